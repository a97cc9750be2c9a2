"""FastMCP's ``fastmcp.skills.provider``: where a server's Agent Skills come from."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .skill import Skill

if TYPE_CHECKING:
    from ..server import FastMCP

_Path = str | os.PathLike[str]


class SkillsDirectoryProvider:
    """Every skill folder below one or more root directories (each folder holding a
    ``SKILL.md`` whose front matter names it and describes it), served at its path below
    its root (``root/ops/deploy/SKILL.md`` as ``skill://ops/deploy/SKILL.md``): every file
    of a skill is listed and read as a resource, beside the skill's ``_manifest``, and
    clients of the 2026-07-28 era list them with ``skills/list`` and ``skills/get``. The
    files are read once, when a server is given the provider; an invalid folder refuses it
    (``ValueError``). When two roots have a skill at one path, the first root's is served.
    A root that is not a directory has no skills. Not as FastMCP: ``reload=True`` (reading
    the folders again at each request) is refused."""

    def __init__(self, roots: _Path | Sequence[_Path], *, reload: bool = False) -> None:
        if reload:
            raise ValueError("oxmcp reads skills once, when they are served: restart the server to serve changes")
        if isinstance(roots, str | os.PathLike):
            roots = [roots]
        self.roots = tuple(Path(root).expanduser().absolute() for root in roots)

    def serve_on(self, server: FastMCP) -> None:
        """Serves the skills under the roots on ``server``, besides those it has."""
        for root in self.roots:
            if root.is_dir():
                server.add_skills(root)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(roots={list(self.roots)!r})"


class SkillCatalogProvider:
    """:class:`~oxmcp.fastmcp.skills.Skill` objects, served as a
    :class:`SkillsDirectoryProvider` serves folders: each at ``skill://<path>/``, its path
    its name (or the key it is given by, in a mapping, whose last segment is its name).
    Two skills of one name in a list are refused. Not as FastMCP: the skills are those given
    (``load_skills``, loading them anew at each request, is not called)."""

    def __init__(self, skills: Mapping[str, Skill] | Iterable[Skill] | None = None) -> None:
        if isinstance(skills, Mapping):
            catalog = dict(skills)
        else:
            catalog = {}
            for skill in skills or ():
                if skill.name in catalog:
                    raise ValueError(f"Duplicate skill name: {skill.name!r}")
                catalog[skill.name] = skill
        for path, skill in catalog.items():
            if not isinstance(skill, Skill):
                raise TypeError(f"Expected a Skill at {path!r}, got {type(skill).__name__}")
            if path.rsplit("/", 1)[-1] != skill.name:
                raise ValueError(f"Skill path {path!r} must end with the skill's name {skill.name!r}")
        self.skills = catalog

    def serve_on(self, server: FastMCP) -> None:
        """Serves the skills on ``server``, besides those it has."""
        for path, skill in self.skills.items():
            server.add_skill(path, skill.files)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self.skills)!r})"

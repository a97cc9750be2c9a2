"""FastMCP's ``fastmcp.skills.provider``: where a server's Agent Skills come from."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

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

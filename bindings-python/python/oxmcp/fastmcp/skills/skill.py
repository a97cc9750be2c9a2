"""FastMCP's ``fastmcp.skills.skill``: a skill's files held in memory, as FastMCP's client
reads a skill (``await client.read_skill(uri)``) and writes it out."""

from __future__ import annotations

import copy
import importlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal
from urllib.parse import unquote

from pydantic import BaseModel, ConfigDict, Field, RootModel

from ... import _native


class SkillFile(BaseModel):
    """One file of a skill, by its digest and size rather than its bytes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    digest: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    size: int = Field(ge=0)


class SkillFrontmatter(RootModel[dict[str, Any]]):
    """A ``SKILL.md``'s front matter, as it was written, with the Agent Skills fields by name."""

    @property
    def name(self) -> str:
        """The front matter's ``name``."""
        name: str = self.root["name"]
        return name

    @property
    def description(self) -> str:
        """The front matter's ``description``."""
        description: str = self.root["description"]
        return description

    @property
    def license(self) -> str | None:
        """The front matter's ``license``, if any."""
        return self.root.get("license")

    @property
    def compatibility(self) -> str | None:
        """The front matter's ``compatibility``, if any."""
        return self.root.get("compatibility")

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The front matter's ``metadata``, if any."""
        return self.root.get("metadata")

    @property
    def allowed_tools(self) -> str | list[str] | None:
        """The front matter's ``allowed-tools``, if any."""
        return self.root.get("allowed-tools")


class SkillResource(BaseModel):
    """One file of a skill as the skills extension lists it: its URI, digest and size."""

    model_config = ConfigDict(extra="forbid")

    uri: str
    digest: str
    size: int


class MCPSkill(BaseModel):
    """A skill as the skills extension lists it (``skills/list``, ``skills/get``): the URI
    of its ``SKILL.md``, its front matter, and its files (or ``"dynamic"``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    uri: str
    frontmatter: SkillFrontmatter
    resources: list[SkillResource] | Literal["dynamic"]
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class SkillManifest(BaseModel):
    """A skill's front matter and each file's digest and size, without the files."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    frontmatter: SkillFrontmatter
    #: Every file, ``SKILL.md`` among them, by its path in the skill.
    files: dict[str, SkillFile]


class Skill:
    """A skill: every file (``SKILL.md`` among them) by its path in the skill's folder, as
    bytes, checked when it is made by the core, as a server checks a skill it serves:
    relative POSIX paths, a ``SKILL.md`` whose front matter
    has a ``name`` (the Agent Skills rule: lowercase letters, digits, single inner hyphens)
    and a ``description``, at most 512 files and 16 MiB. It does not change.

    Written in code, ``Skill(name=, description=, instructions=, files=, frontmatter=)``
    makes its ``SKILL.md`` as FastMCP does (the front matter in YAML, with PyYAML: ``pip
    install pyyaml``, then the instructions); :meth:`from_files` and :meth:`from_directory`
    take the files as they are."""

    __slots__ = ("_files", "_frontmatter", "_manifest")

    _files: Mapping[str, bytes]
    _frontmatter: dict[str, Any]
    _manifest: dict[str, SkillFile]

    def __init__(
        self,
        *,
        name: str,
        description: str,
        instructions: str,
        files: Mapping[str, str | bytes] | None = None,
        frontmatter: Mapping[str, Any] | None = None,
    ) -> None:
        extra = dict(frontmatter or {})
        for key in ("name", "description"):
            if key in extra:
                raise ValueError(f"Pass {key!r} as a Skill argument, not frontmatter")
        header = {"name": name, "description": description, **extra}
        if "SKILL.md" in (files or {}):
            raise ValueError("Pass SKILL.md content as `instructions`")
        try:
            yaml = importlib.import_module("yaml")
        except ModuleNotFoundError as missing:
            raise ImportError("Writing a skill's SKILL.md takes PyYAML: `pip install pyyaml`") from missing
        written = yaml.safe_dump(header, sort_keys=False, allow_unicode=True)
        self._load({"SKILL.md": f"---\n{written}---\n{instructions}", **(files or {})})

    @classmethod
    def from_files(cls, files: Mapping[str, str | bytes]) -> Skill:
        """The skill of ``files`` (text or bytes by relative path; ``SKILL.md`` among them)."""
        skill = object.__new__(cls)
        skill._load(files)
        return skill

    def _load(self, files: Mapping[str, str | bytes]) -> None:
        """Takes ``files`` as the skill's, once the core checked them as it checks a skill
        it serves (its entry gives the front matter and each file's digest and size)."""
        given = {
            path: content.encode() if isinstance(content, str) else bytes(content) for path, content in files.items()
        }
        entry = _native.skill_entry(list(given.items()))
        folder = entry["uri"].removesuffix("SKILL.md")
        self._files = MappingProxyType(dict(sorted(given.items())))
        self._frontmatter = entry["frontmatter"]
        self._manifest = {
            unquote(file["uri"].removeprefix(folder)): SkillFile(digest=file["digest"], size=file["size"])
            for file in entry["resources"]
        }

    @classmethod
    def from_directory(cls, path: str | os.PathLike[str]) -> Skill:
        """The skill in folder ``path``, read now; the folder is named after the skill, and
        holds neither symbolic links nor special files (a skill read stays in its folder)."""
        root = Path(path).absolute()
        if root.is_symlink() or not root.is_dir():
            raise ValueError(f"A skill's folder must be a directory, not a link: {root}")
        files: dict[str, bytes] = {}
        for found in sorted(root.rglob("*")):
            if found.is_symlink():
                raise ValueError(f"The skill holds a symbolic link: {found.relative_to(root)}")
            if found.is_file():
                files[found.relative_to(root).as_posix()] = found.read_bytes()
            elif not found.is_dir():
                raise ValueError(f"The skill holds a file that is not a regular one: {found.relative_to(root)}")
        skill = cls.from_files(files)
        if skill.name != root.name:
            raise ValueError(f"Skill folder {root.name!r} must match its SKILL.md name {skill.name!r}")
        return skill

    @property
    def files(self) -> Mapping[str, bytes]:
        """Every file's bytes, by path, in path order."""
        return self._files

    @property
    def frontmatter(self) -> SkillFrontmatter:
        """A copy of ``SKILL.md``'s front matter."""
        return SkillFrontmatter(copy.deepcopy(self._frontmatter))

    @property
    def name(self) -> str:
        """The front matter's ``name``."""
        name: str = self._frontmatter["name"]
        return name

    @property
    def description(self) -> str:
        """The front matter's ``description``."""
        description: str = self._frontmatter["description"]
        return description

    @property
    def manifest(self) -> SkillManifest:
        """The front matter and each file's digest and size, by path."""
        return SkillManifest(frontmatter=self.frontmatter, files=dict(self._manifest))

    def to_directory(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Writes the files into folder ``path``, named after the skill (so that
        :meth:`from_directory` reads it back), and returns it. An existing folder is
        replaced only with ``overwrite`` (files not of the skill go with it); the files are
        written beside it first, so that a failure leaves it as it was."""
        root = Path(path)
        if root.name != self.name:
            raise ValueError(f"The folder must be named after the skill {self.name!r}, not {root.name!r}")
        if root.exists() and not overwrite:
            raise FileExistsError(f"{root} exists; pass overwrite=True to replace it")
        root.parent.mkdir(parents=True, exist_ok=True)
        staged = Path(tempfile.mkdtemp(prefix=f".{self.name}-", dir=root.parent))
        try:
            for file, content in self._files.items():
                target = staged.joinpath(*file.split("/"))
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
            if root.exists():
                shutil.rmtree(root)
            staged.rename(root)
        except BaseException:
            shutil.rmtree(staged, ignore_errors=True)
            raise
        return root

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Skill) and self._files == other._files

    def __hash__(self) -> int:
        return hash(tuple(self._files.items()))

    def __repr__(self) -> str:
        return f"Skill(name={self.name!r}, files={len(self._files)})"

"""FastMCP's ``fastmcp.skills.skill``: a skill's files held in memory, as FastMCP's client
reads a skill (``await client.read_skill(uri)``) and writes it out."""

from __future__ import annotations

import copy
import hashlib
import importlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from ... import _native

#: The most files, and bytes, one skill may have (the skills extension's limits).
MAX_SKILL_FILES = 512
MAX_SKILL_BYTES = 16 * 1024 * 1024
#: The Agent Skills naming rule: lowercase letters, digits and single inner hyphens.
_SKILL_NAME = re.compile(r"(?!-)(?!.*--)[a-z0-9-]{1,64}(?<!-)")


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
    bytes, checked when it is made: relative POSIX paths, a ``SKILL.md`` whose front matter
    has a ``name`` (the Agent Skills rule: lowercase letters, digits, single inner hyphens)
    and a ``description``, at most 512 files and 16 MiB. It does not change.

    Written in code, ``Skill(name=, description=, instructions=, files=, frontmatter=)``
    makes its ``SKILL.md`` as FastMCP does (the front matter in YAML, with PyYAML: ``pip
    install pyyaml``, then the instructions); :meth:`from_files` and :meth:`from_directory`
    take the files as they are."""

    __slots__ = ("_files", "_frontmatter")

    _files: Mapping[str, bytes]
    _frontmatter: dict[str, Any]

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
        _check_frontmatter(header)
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
        """Takes ``files`` as the skill's, once they are checked."""
        given = {
            path: content.encode() if isinstance(content, str) else bytes(content) for path, content in files.items()
        }
        _check_paths(given)
        try:
            frontmatter = _native.skill_frontmatter(given["SKILL.md"].decode("utf-8-sig"))
        except UnicodeDecodeError as not_text:
            raise ValueError("SKILL.md is not UTF-8 text") from not_text
        _check_frontmatter(frontmatter)
        self._files = MappingProxyType(dict(sorted(given.items())))
        self._frontmatter = frontmatter

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
        return self.frontmatter.name

    @property
    def description(self) -> str:
        """The front matter's ``description``."""
        return self.frontmatter.description

    @property
    def manifest(self) -> SkillManifest:
        """The front matter and each file's digest and size, by path."""
        files = {
            path: SkillFile(digest=f"sha256:{hashlib.sha256(content).hexdigest()}", size=len(content))
            for path, content in self._files.items()
        }
        return SkillManifest(frontmatter=self.frontmatter, files=files)

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


def _check_paths(files: Mapping[str, bytes]) -> None:
    """Refuses what a skill's files may not be: paths that leave the folder or are not
    POSIX, a file that is also a directory, no ``SKILL.md``, more than the limits."""
    for path in files:
        parts = path.split("/")
        if not path or path.startswith("/") or "\\" in path or "\x00" in path or ":" in parts[0]:
            raise ValueError(f"Skill file path must be relative POSIX: {path!r}")
        if any(part in ("", ".", "..") for part in parts):
            raise ValueError(f"Skill file path contains an invalid segment: {path!r}")
        if any("/".join(parts[:end]) in files for end in range(1, len(parts))):
            raise ValueError(f"Skill file is also used as a directory: {path!r}")
    if "SKILL.md" not in files:
        raise ValueError("A skill must contain SKILL.md")
    if len(files) > MAX_SKILL_FILES:
        raise ValueError(f"A skill may contain at most {MAX_SKILL_FILES} files")
    if sum(map(len, files.values())) > MAX_SKILL_BYTES:
        raise ValueError(f"A skill may contain at most {MAX_SKILL_BYTES} bytes")


def _check_frontmatter(frontmatter: dict[str, Any]) -> None:
    """Refuses front matter without an Agent Skills ``name`` or a ``description``."""
    name = frontmatter.get("name")
    if not isinstance(name, str) or not _SKILL_NAME.fullmatch(name):
        raise ValueError(
            "name must be 1-64 lowercase letters, digits, or hyphens; "
            "it cannot start or end with a hyphen or contain consecutive hyphens"
        )
    description = frontmatter.get("description")
    if not isinstance(description, str) or not description.strip() or len(description) > 1024:
        raise ValueError("description must contain 1-1024 characters")

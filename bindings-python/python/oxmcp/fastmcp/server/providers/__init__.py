"""FastMCP's ``fastmcp.server.providers``: where a server's components come from besides
its own decorators. ``FastMCP(providers=[...])`` or ``mcp.add_provider(provider,
namespace=...)`` serves a provider's components after the server's own (a name the server
has keeps what it has), as mounting does; a FastMCP server is a provider of its own.

:class:`LocalProvider` holds components registered with its own decorators, for several
servers to serve (each with transforms of its own, such as a ``VersionFilter``).
:class:`FileSystemProvider` finds the functions the standalone decorators marked
(``@tool``, ``@resource(uri)``, ``@prompt``) in the Python files under a directory.
A :class:`Provider` of one's own gives its components as the requests ask for them
(:mod:`.base`)."""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from ...decorators import marked
from ..middleware.middleware import CallNext, Middleware, MiddlewareContext
from ..server import FastMCP
from .base import Provider

if TYPE_CHECKING:
    from ...apps.app import FastMCPApp
    from ...skills.provider import SkillCatalogProvider, SkillsDirectoryProvider
    from .openapi import OpenAPIProvider

_log = logging.getLogger("oxmcp.fastmcp")


class LocalProvider(FastMCP):
    """Components registered with its decorators (``@provider.tool(version="2.0")``,
    ``@provider.resource(uri)``, ``@provider.prompt``) and ``add_*`` methods, served by
    every server given it (``FastMCP(providers=[provider])``), after their own and as their
    transforms make them. It is a FastMCP server of its own, which they mount."""

    def __init__(self, on_duplicate: Literal["warn", "error", "replace", "ignore"] = "error") -> None:
        super().__init__(type(self).__name__, on_duplicate=on_duplicate)


class FileSystemProvider:
    """The tools, resources, templates and prompts that FastMCP's standalone decorators
    marked in the ``.py`` files under ``root`` (recursively, in path order; ``__init__.py``
    aside), found when it is made. A file that fails to import is left out, logged, and
    named in :attr:`failed_files`. With ``reload`` (while writing them), each request a
    server serving it answers looks at the files first, and reads them all again when one
    was added, removed or changed since: its components are replaced (and clients told the
    lists changed). A file imports others by absolute names, as a script does (not
    relatively: files are not imported as a package)."""

    def __init__(self, root: str | Path = ".", reload: bool = False) -> None:
        self.root = Path(root).resolve()
        self.reload = reload
        #: The server its components are registered on, which a server mounts.
        self.server = FastMCP(f"FileSystemProvider({self.root})")
        self._failed: dict[Path, str] = {}
        #: Each file read, with its modification time and size, as they were read.
        self._read: dict[Path, tuple[int, int]] = {}
        self._load()

    def _load(self) -> None:
        """Reads the files and registers what they mark, in place of what was."""
        self.server._components.clear()
        self._failed = {}
        paths = _python_files(self.root)
        self._read = _stamps(paths)
        for path in paths:
            try:
                self._register(_imported(path, self.root))
            except Exception as error:
                self._failed[path] = str(error)
                _log.warning("Failed to load %s: %s", path, error)

    def _refresh(self) -> None:
        """Reads the files again if one was added, removed or changed since they were read."""
        if _stamps(_python_files(self.root)) != self._read:
            self._load()

    @property
    def reloading(self) -> Middleware | None:
        """What a server serving this provider runs before each request (with ``reload``)."""
        return _Reloading(self) if self.reload else None

    def __repr__(self) -> str:
        return f"FileSystemProvider(root={str(self.root)!r})"

    @property
    def failed_files(self) -> Mapping[Path, str]:
        """The files that failed to import or to register, with why."""
        return dict(self._failed)

    def _register(self, module: ModuleType) -> None:
        for name in dir(module):
            fn = getattr(module, name)
            found = marked(fn)
            if found is None or name.startswith("_"):
                continue
            options = dict(found.options)
            if found.kind == "tool":
                self.server.add_tool(fn)
            elif found.kind == "resource":
                self.server.resource(options.pop("uri"), **options)(fn)
            else:
                self.server.prompt(fn, **options)


class _Reloading(Middleware):
    """Looks at a reloading provider's files before each request."""

    def __init__(self, provider: FileSystemProvider) -> None:
        self.provider = provider

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        self.provider._refresh()
        return await call_next(context)


if TYPE_CHECKING:
    #: What a server serves the components of, besides another server.
    AnyProvider: TypeAlias = (
        Provider | FileSystemProvider | OpenAPIProvider | SkillsDirectoryProvider | SkillCatalogProvider | FastMCPApp
    )


def _python_files(root: Path) -> list[Path]:
    """The ``.py`` files under ``root`` (``root`` itself, if it is one), ``__init__.py`` and
    caches aside, in path order."""
    if root.is_file():
        return [root] if root.suffix == ".py" and root.name != "__init__.py" else []
    if not root.is_dir():
        _log.warning("FileSystemProvider root does not exist: %s", root)
        return []
    found = root.rglob("*.py")
    return sorted(path for path in found if path.name != "__init__.py" and "__pycache__" not in path.parts)


def _stamps(paths: list[Path]) -> dict[Path, tuple[int, int]]:
    """Each file's modification time and size (a file gone in between left out)."""
    stamps = {}
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            continue
        stamps[path] = (stat.st_mtime_ns, stat.st_size)
    return stamps


def _imported(path: Path, root: Path) -> ModuleType:
    """The module ``path`` is, imported under a name of this root's own (files of two
    providers never take each other's place)."""
    prefix = "oxmcp_filesystem_" + hashlib.sha256(str(root).encode()).hexdigest()[:12]
    name = "__".join([prefix, *path.relative_to(root if root.is_dir() else root.parent).with_suffix("").parts])
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


__all__ = ["FileSystemProvider", "LocalProvider", "Provider"]

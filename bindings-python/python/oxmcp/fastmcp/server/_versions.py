"""FastMCP's component versions: ``@mcp.tool(version="2.0")`` registers one version of a
tool (resource, template, prompt) beside the others of its name.

The core serves one definition a name. As FastMCP lists them, that is the highest version's,
with every version in ``_meta.fastmcp.versions`` (highest first); a request picks one with
``_meta.fastmcp.version`` (``"1.0"``, ``"v1"``, ``"1"``: versions compare as PEP 440 ones,
a leading ``v`` aside, else as text, after them) and gets the highest without. What tells
the versions apart is here: the handler the core calls for the name runs the version asked
for, and answers as FastMCP does when there is none."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

from packaging.version import InvalidVersion, Version

from ... import _native
from ..._errors import McpError, ResourceNotFoundError, ToolError
from ...server._mounting import _NAMING_FIELD, Components, Key, Kind, _Registration, named

_log = logging.getLogger("oxmcp.fastmcp")

#: A version's place in the order: PEP 440 versions first, by their order, then text.
VersionKey = tuple[int, Version | str]


def version_key(version: str) -> VersionKey:
    """Where ``version`` sorts among its name's versions (FastMCP's order)."""
    try:
        return (0, Version(version.lstrip("v")))
    except InvalidVersion:
        return (1, version)


def version_of(definition: dict[str, Any]) -> str | None:
    """The version a definition's ``_meta.fastmcp`` gives it."""
    upstream = (definition.get("_meta") or {}).get("fastmcp")
    version = upstream.get("version") if isinstance(upstream, dict) else None
    return version if isinstance(version, str) else None


def requested(native_ctx: _native.Context) -> str | None:
    """The version a request asks for in its ``_meta.fastmcp.version``."""
    return version_of({"_meta": native_ctx.meta})


class VersionedComponents(Components):
    """A FastMCP server's components, with several versions of a name served as one."""

    def __init__(self, native: _native.Server) -> None:
        super().__init__(native)
        self._versions: dict[Key, dict[str, _Registration]] = {}
        #: What is told of each tool the server comes to serve (its own or a mount's), by
        #: its definition: the server serves the UI resource that renders it.
        self.on_tool: Callable[[dict[str, Any]], None] | None = None
        #: What registering a name (and version) the server has already does, as FastMCP's
        #: ``on_duplicate`` says: ``"error"`` refuses it, ``"warn"`` logs a warning and
        #: replaces it, ``"replace"`` replaces it, ``"ignore"`` keeps what was there.
        self.on_duplicate: Literal["error", "warn", "replace", "ignore"] = "error"

    def _register(self, registration: _Registration) -> None:
        super()._register(registration)
        if registration.kind == "tool" and self.on_tool is not None:
            self.on_tool(registration.definition)

    def add(
        self, kind: Kind, definition: dict[str, Any], *rest: Any, titled: Callable[[str], str | None] | None = None
    ) -> None:
        version = version_of(definition)
        name = definition[_NAMING_FIELD[kind]]
        if self._has(kind, name, version):
            message = f"Component already exists: {kind}:{name}@{version or ''}"
            if self.on_duplicate == "ignore":
                return
            if self.on_duplicate == "error":
                raise ValueError(message)
            if self.on_duplicate == "warn":
                _log.warning(message)
            if version is None:
                self.remove(kind, name)
            else:
                self.remove_version(kind, name, version)
        if version is None:
            super().add(kind, definition, *rest, titled=titled)
            return
        key: Key = (kind, definition[_NAMING_FIELD[kind]])
        self._serve(key, {**self._versions.get(key, {}), version: _Registration(kind, definition, rest, titled)})

    def _has(self, kind: Kind, name: str, version: str | None) -> bool:
        """Whether the server has a component of its own of this name (and version)."""
        if version is None:
            return (kind, name) not in self._versions and self._served_key((kind, name), None) is not None
        return any(version_key(held) == version_key(version) for held in self._versions.get((kind, name), {}))

    def remove(self, kind: Kind, name: str) -> bool:
        self._versions.pop((kind, name), None)
        return super().remove(kind, name)

    def remove_version(self, kind: Kind, name: str, version: str) -> bool:
        """Removes one version of a name (the others served as before); returns whether it
        existed."""
        versions = self._versions.get((kind, name), {})
        remaining = {v: held for v, held in versions.items() if version_key(v) != version_key(version)}
        if len(remaining) == len(versions):
            return False
        if not remaining:
            return self.remove(kind, name)
        self._serve((kind, name), remaining)
        return True

    def _serve(self, key: Key, versions: dict[str, _Registration]) -> None:
        """Serves ``versions`` for one name in place of what this server served for it;
        nothing changes when they cannot be served together."""
        served = _served(key, versions)
        self._versions[key] = versions
        super().remove(*key)
        self._add(served)


def _served(key: Key, versions: dict[str, _Registration]) -> _Registration:
    """What the core serves for the versions of one name: the highest version's definition,
    listing them all, and a handler that runs the version a request asks for."""
    kind, name = key
    ordered = sorted(versions, key=lambda v: (version_key(v), v), reverse=True)
    highest = versions[ordered[0]]
    if kind == "tool" and any(_output(v) != _output(highest) for v in versions.values()):
        raise TypeError(
            f"tool {name}: its versions give different output schemas; oxmcp lists and checks one"
            " output schema for every version of a tool"
        )
    meta = dict(highest.definition["_meta"])
    meta["fastmcp"] = {"versions": ordered, **meta["fastmcp"]}
    handler = _dispatching(key, versions, ordered[0])
    definition = {**highest.definition, "_meta": meta}
    return _Registration(kind, definition, (handler, *highest.rest[1:]), highest.titled, versions=versions)


def narrowed(registration: _Registration, keeps: Callable[[str | None], bool]) -> _Registration | None:
    """``registration`` served with only the versions ``keeps`` takes (None stands for an
    unversioned component), under the name it is served by: the highest of them listed,
    with them alone as its versions; None when it keeps none. One whose versions are not
    served apart (a transformed tool) is kept or not by the version it lists."""
    if registration.versions is None:
        return registration if keeps(version_of(registration.definition)) else None
    kept = {version: held for version, held in registration.versions.items() if keeps(version)}
    if not kept:
        return None
    if kept.keys() == registration.versions.keys():
        return registration
    name = registration.key[1]
    served = replace(_served(registration.key, kept), titled=registration.titled, placed_by=registration.placed_by)
    return replace(served, definition=named(served, served.definition, name))


def _output(version: _Registration) -> tuple[Any, Any]:
    """How a tool version's results are made and checked: its output schema, and whether
    its values are content, data, or data wrapped as ``{"result": ...}``."""
    return version.definition.get("outputSchema"), version.rest[1]


def _accepted(version: _Registration) -> set[str] | None:
    """The arguments a tool version takes, when its input schema allows no others."""
    schema = version.definition.get("inputSchema", {})
    return set(schema.get("properties", {})) if schema.get("additionalProperties") is False else None


def _dispatching(key: Key, versions: dict[str, _Registration], highest: str) -> Callable[..., Any]:
    """The handler of a versioned name: it runs the version the request asks for (the
    highest when it asks for none), as the native layer calls handlers (the native
    context last). The core checks a call's arguments against the highest version's input
    schema only: an older tool version refuses those its own schema does not have. A plain
    ``def`` version runs on a thread when another is ``async``."""
    kind, name = key
    handlers = {version: held.rest[0] for version, held in versions.items()}
    accepted = {version: _accepted(held) for version, held in versions.items()} if kind == "tool" else {}

    def chosen(native: tuple[Any, ...]) -> Any:
        asked = requested(native[-1])
        found = [highest] if asked is None else [v for v in handlers if version_key(v) == version_key(asked)]
        if not found:
            raise unknown_version(kind, name, native)
        version = max(found)
        known = accepted.get(version)
        if known is not None and (unknown := sorted(set(native[0]) - known)):
            raise ToolError(f"Error calling tool {name!r}: version {version} takes no argument {', '.join(unknown)}")
        return handlers[version]

    if not any(inspect.iscoroutinefunction(h) for h in handlers.values()):

        def run_here(*native: Any) -> Any:
            return chosen(native)(*native)

        return run_here

    async def run_on_loop(*native: Any) -> Any:
        handler = chosen(native)
        if inspect.iscoroutinefunction(handler):
            return await handler(*native)
        return await asyncio.to_thread(handler, *native)

    return run_on_loop


def unknown_version(kind: Kind, name: str, native: tuple[Any, ...]) -> Exception:
    """What FastMCP answers for a version it does not have (a resource's or template's
    handler gets the URI read first)."""
    if kind == "tool":
        return ToolError(f"Unknown tool: {name!r}")
    if kind == "prompt":
        return McpError(-32602, f"Unknown prompt: {name!r}")
    uri = native[0]
    return ResourceNotFoundError(uri, f"Resource not found: {uri!r}")

"""What a server registered, kept so that the servers it is mounted on serve it too.

A server's tools, resources, templates and prompts go to the core through its
:class:`Components`, which remembers them. Mounting one server on another places the
mounted server's components on the other's, renamed by the mount's namespace as the core
names them (``oxmcp::server::namespace``: tools and prompts ``namespace_name``, URIs
``scheme://namespace/path``, as FastMCP does), and keeps placing what the mounted server
adds or removes later. The handlers stay the mounted server's own: a call runs exactly
what it would run there. (What a mounted proxy serves is forwarded by the core, under the
same names: see ``Server._proxies``.)
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .. import _native

Kind = Literal["tool", "resource", "template", "prompt"]
Key = tuple[Kind, str]

#: Where each kind keeps the field that names it.
_NAMING_FIELD: dict[Kind, str] = {"tool": "name", "resource": "uri", "template": "uriTemplate", "prompt": "name"}


@dataclass
class _Registration:
    """A component as the core was given it: its definition and the rest of the call."""

    kind: Kind
    definition: dict[str, Any]
    rest: tuple[Any, ...]
    #: What titles it after its name, for a tool whose title its server's conventions
    #: make from the name (FastMCP's): renamed, it is titled after its new name.
    titled: Callable[[str], str | None] | None = None
    #: The mount that placed it here; None for the server's own.
    placed_by: Mount | None = None
    #: What it was before the server's transforms made it what it serves; None when none did.
    source: _Registration | None = None
    #: Whether it is shown to clients before the server's visibility rules say (FastMCP's
    #: ``ToolTransformConfig(enabled=False)`` hides one).
    enabled: bool = True
    #: For several versions of one name served as one (FastMCP's), each version as it was
    #: registered, by version: what a transform that keeps some versions chooses among.
    versions: dict[str, _Registration] | None = None

    @property
    def key(self) -> Key:
        """Its kind and the name (or URI) it is served under."""
        return (self.kind, self.definition[_NAMING_FIELD[self.kind]])

    @property
    def given_key(self) -> Key:
        """Its kind and the name (or URI) it was given, before the server's transforms."""
        return (self.source or self).key


def named(registration: _Registration, definition: dict[str, Any], name: str) -> dict[str, Any]:
    """``definition`` (one of ``registration``'s) under ``name``, titled after it when its
    title is made from its name."""
    definition = {**definition, _NAMING_FIELD[registration.kind]: name}
    if registration.titled is not None:
        definition.pop("title", None)
        if (title := registration.titled(name)) is not None:
            definition["title"] = title
    return definition


class Transform(ABC):
    """What a server makes of each of its components (its own and those mounts place)
    before serving it: renamed, redescribed, its handler wrapped, or not served."""

    @abstractmethod
    def apply(self, registration: _Registration) -> _Registration | None:
        """``registration`` as the server serves it (the same one when this leaves it be);
        None when the server does not serve it."""


@dataclass(frozen=True)
class Renaming(Transform):
    """Components renamed: tools first by ``tool_names``, then under a ``namespace`` as the
    core names them (a tool whose title is made from its name titled after its new one)."""

    namespace: str | None
    tool_names: dict[str, str] = field(default_factory=dict)

    def apply(self, registration: _Registration) -> _Registration:
        kind, definition = registration.kind, registration.definition
        name = self.rename(kind, definition[_NAMING_FIELD[kind]])
        return replace(registration, definition=named(registration, definition, name))

    def rename(self, kind: Kind, name: str) -> str:
        """A component's name (or URI), renamed."""
        if kind == "tool":
            name = self.tool_names.get(name, name)
        if self.namespace is None:
            return name
        if kind in ("tool", "prompt"):
            return _native.name_in(self.namespace, name)
        return _native.uri_in(self.namespace, name)


#: Numbers mounts in the order they are made.
_MOUNTS = itertools.count(1)


@dataclass(eq=False)
class Mount:
    """One server mounted on another: how its components are renamed there."""

    parent: Components
    renaming: Renaming
    #: Where what it places is listed: after the server's own and the earlier mounts'.
    rank: int = field(default_factory=lambda: next(_MOUNTS))

    def renamed(self, registration: _Registration) -> _Registration:
        """The registration as the parent serves it (before the parent's transforms)."""
        return replace(self.renaming.apply(registration), placed_by=self, source=None)

    def rename(self, kind: Kind, name: str) -> str:
        """A component's name (or URI) as the parent serves it."""
        return self.renaming.rename(kind, name)


class Components:
    """A server's components, its own and those mounts placed, as the core serves them."""

    def __init__(self, native: _native.Server) -> None:
        self._native = native
        self._registered: dict[Key, _Registration] = {}
        #: Where this server is mounted.
        self._mounts: list[Mount] = []
        #: What the server makes of each component it serves, in the order given.
        self._transforms: list[Transform] = []

    def add(
        self, kind: Kind, definition: dict[str, Any], *rest: Any, titled: Callable[[str], str | None] | None = None
    ) -> None:
        """Registers one of the server's own components (``rest``: the core's arguments
        after the definition; ``titled``: what titles a tool after its name, when its title
        is made so). It takes the place of one a mount placed under the same name (a
        server's own come first, as in FastMCP); its own names are registered once."""
        self._add(_Registration(kind, definition, rest, titled))

    def _add(self, registration: _Registration) -> None:
        """Registers one of the server's own components, as :meth:`add` says."""
        served = self._served(registration)
        if served is None:
            return
        held = self._registered.get(served.key)
        if held is not None and held.placed_by is not None:
            self._withdraw(served.key)
        self._register(served)

    def remove(self, kind: Kind, name: str) -> bool:
        """Removes one of the server's own components by the name (or URI) it was given;
        returns whether it existed."""
        key = self._served_key((kind, name), None)
        if key is None:
            return False
        self._withdraw(key)
        return True

    def clear(self) -> None:
        """Removes every one of the server's own components (those mounts placed stay)."""
        for key, registration in list(self._registered.items()):
            if registration.placed_by is None:
                self._withdraw(key)

    def transform(self, transform: Transform) -> None:
        """Serves every component, those there already and those to come, as ``transform``
        makes it (after the transforms given before)."""
        self._transforms.append(transform)
        held = list(self._registered.values())
        for registration in held:
            self._withdraw(registration.key)
        for registration in held:
            served = self._served(registration.source or registration)
            if served is not None and served.key not in self._registered:
                self._register(served)

    def mount(self, parent: Components, namespace: str | None, tool_names: dict[str, str] | None) -> None:
        """Serves these components on ``parent`` too, renamed, from now on."""
        if parent is self or self in parent._above():
            raise ValueError("a server cannot be mounted on itself, nor on a server mounted on it")
        if any(m.parent is parent for m in self._mounts):
            raise ValueError("a server is mounted on another once")
        mount = Mount(parent, Renaming(namespace, dict(tool_names or {})))
        self._mounts.append(mount)
        for registration in list(self._registered.values()):
            parent._place(mount, registration)

    def namespaces(self) -> list[str]:
        """The namespaces the server's transforms put its components under, the outermost
        (the last given) first."""
        renamings = [t for t in reversed(self._transforms) if isinstance(t, Renaming)]
        return [renaming.namespace for renaming in renamings if renaming.namespace is not None]

    def definitions(self, kind: Kind) -> list[dict[str, Any]]:
        """The definitions of one kind, in the order they were registered."""
        return [r.definition for (k, _), r in self._registered.items() if k == kind]

    def enabled(self, kind: Kind, definition: dict[str, Any]) -> bool:
        """Whether the component ``definition`` describes is shown before the server's
        visibility rules say."""
        held = self._registered.get((kind, definition[_NAMING_FIELD[kind]]))
        return held is None or held.enabled

    def versions(self, kind: Kind, name: str) -> dict[str, dict[str, Any]] | None:
        """The definition of each version of the ``kind`` served as ``name``, by version,
        when it has versions served as one."""
        registered = self._registered.get((kind, name))
        versions = None if registered is None else registered.versions
        return None if versions is None else {version: held.definition for version, held in versions.items()}

    def definition(self, kind: Kind, name: str) -> dict[str, Any] | None:
        """The definition of the ``kind`` named ``name`` (a resource by its URI, a template
        by its URI template), if there is one."""
        registered = self._registered.get((kind, name))
        return None if registered is None else registered.definition

    def owns(self, kind: Kind, name: str) -> bool:
        """Whether the ``kind`` served as ``name`` is one of the server's own (not one a
        mount placed)."""
        registered = self._registered.get((kind, name))
        return registered is not None and registered.placed_by is None

    def outermost(self) -> Components:
        """The components of the server that serves these at the top: the one they are
        mounted on, and so on up, while each is mounted on one alone."""
        components = self
        while len(components._mounts) == 1:
            components = components._mounts[0].parent
        return components

    def _above(self) -> list[Components]:
        """The servers this one is mounted on, and theirs, and so on."""
        above = [m.parent for m in self._mounts]
        return above + [a for parent in above for a in parent._above()]

    def _place(self, mount: Mount, registration: _Registration) -> None:
        """A mounted server's component, renamed; a name taken already keeps what has it
        (the server's own, or the server mounted first)."""
        served = self._served(mount.renamed(registration))
        if served is not None and served.key not in self._registered:
            self._register(served)

    def _unplace(self, mount: Mount, kind: Kind, name: str) -> None:
        """A mounted server's component gone from it."""
        key = self._served_key((kind, mount.rename(kind, name)), mount)
        if key is not None:
            self._withdraw(key)

    def _served(self, registration: _Registration) -> _Registration | None:
        """``registration`` as the server's transforms make it; None when they leave it out."""
        served = registration
        for transform in self._transforms:
            made = transform.apply(served)
            if made is None:
                return None
            served = made
        return served if served is registration else replace(served, source=registration)

    def _served_key(self, given: Key, placed_by: Mount | None) -> Key | None:
        """The key a component given as ``given`` (by the mount ``placed_by``; None: one of
        the server's own) is served under, if it is served."""
        if not self._transforms:
            held = self._registered.get(given)
            return given if held is not None and held.placed_by is placed_by else None
        return next(
            (key for key, held in self._registered.items() if held.placed_by is placed_by and held.given_key == given),
            None,
        )

    def _register(self, registration: _Registration) -> None:
        # Lists give the server's own first, then each mount's in the order they were
        # mounted, as FastMCP lists its providers: what ranks behind this one goes after it.
        behind = [
            held
            for (kind, _), held in self._registered.items()
            if kind == registration.kind and _rank(held) > _rank(registration)
        ]
        for held in behind:
            self._withdraw(held.key)
        self._register_last(registration)
        for held in behind:
            self._register(held)

    def _register_last(self, registration: _Registration) -> None:
        kind, definition = registration.kind, registration.definition
        if kind == "tool":
            self._native.add_tool(definition, *registration.rest)
        elif kind == "resource":
            self._native.add_resource(definition, *registration.rest)
        elif kind == "template":
            self._native.add_resource_template(definition, *registration.rest)
        else:
            self._native.add_prompt(definition, *registration.rest)
        self._registered[registration.key] = registration
        for mount in self._mounts:
            mount.parent._place(mount, registration)

    def _withdraw(self, key: Key) -> None:
        kind, name = key
        del self._registered[key]
        if kind == "tool":
            self._native.remove_tool(name)
        elif kind == "resource":
            self._native.remove_resource(name)
        elif kind == "template":
            self._native.remove_resource_template(name)
        else:
            self._native.remove_prompt(name)
        for mount in self._mounts:
            mount.parent._unplace(mount, kind, name)


def _rank(registration: _Registration) -> int:
    """Where a component is listed among its kind: the server's own first (0), then each
    mount's, in the order they were mounted."""
    return 0 if registration.placed_by is None else registration.placed_by.rank

"""FastMCP's visibility rules: ``mcp.disable(tags={"admin"})`` hides what matches from every
client, ``ctx.enable_components(tags={"admin"})`` shows it again to one session. Rules apply
in order, the server's first, then the session's; the last one that matches a tool,
resource, template or prompt says whether it is listed and served. What is hidden is not
listed and is answered as unknown (a call as FastMCP answers an unknown tool). The server's
FastMCP interceptor applies them (:mod:`oxmcp.fastmcp.server._middleware`), inside its
middleware, as FastMCP applies them inside its own."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from typing_extensions import TypedDict, Unpack

from ....server._mounting import Kind
from ...utilities.versions import VersionSpec


@dataclass(frozen=True)
class Component:
    """What a rule matches of a tool, resource, template or prompt."""

    kind: Kind
    name: str
    #: A resource's URI, a template's URI template.
    uri: str | None
    tags: frozenset[str]
    version: str | None

    @property
    def key(self) -> str:
        """FastMCP's key of it: ``tool:name@``, ``resource:uri@1.0``..."""
        return f"{self.kind}:{self.uri or self.name}@{self.version or ''}"

    @classmethod
    def listed(cls, kind: Kind, definition: Mapping[str, Any]) -> Component:
        """The component a definition, as listed, describes (tags and version from its
        ``_meta.fastmcp``)."""
        fastmcp = (definition.get("_meta") or {}).get("fastmcp")
        fastmcp = fastmcp if isinstance(fastmcp, dict) else {}
        uri = definition.get("uri") if kind == "resource" else definition.get("uriTemplate")
        return cls(
            kind=kind,
            name=str(definition.get("name", "")),
            uri=uri if isinstance(uri, str) else None,
            tags=frozenset(fastmcp.get("tags") or ()),
            version=str(fastmcp["version"]) if fastmcp.get("version") is not None else None,
        )


class Criteria(TypedDict, total=False):
    """What a rule matches: every criterion given must hold."""

    #: Names, or a resource's URI or a template's URI template.
    names: Iterable[str] | None
    #: FastMCP's keys (``tool:name@``, ``resource:uri@1.0``).
    keys: Iterable[str] | None
    #: The versions (a ``VersionSpec``; unversioned components never match it).
    version: VersionSpec | None
    #: Tags, any one of which holds.
    tags: Iterable[str] | None
    #: Kinds: ``tool``, ``resource``, ``template``, ``prompt``.
    components: Iterable[Kind] | None


class Visibility:
    """A rule that shows (``enabled``) or hides what it matches: every criterion given must
    hold (``names`` holds for a name or a resource's URI, ``tags`` for any one tag);
    a rule with none matches nothing, unless ``match_all``."""

    def __init__(self, enabled: bool, *, match_all: bool = False, **criteria: Unpack[Criteria]) -> None:
        names, keys = criteria.get("names"), criteria.get("keys")
        tags, components = criteria.get("tags"), criteria.get("components")
        self.enabled = enabled
        self.names = None if names is None else frozenset(names)
        self.keys = None if keys is None else frozenset(keys)
        self.tags = frozenset(tags) if tags else None
        self.components = frozenset(components) if components else None
        self.version = criteria.get("version")
        self.match_all = match_all

    def __repr__(self) -> str:
        given = {
            "names": self.names,
            "keys": self.keys,
            "tags": self.tags,
            "components": self.components,
            "version": self.version,
            "match_all": self.match_all or None,
        }
        criteria = ", ".join(f"{name}={value!r}" for name, value in given.items() if value is not None)
        return f"Visibility({self.enabled}{', ' if criteria else ''}{criteria})"

    def matches(self, component: Component) -> bool:
        """Whether this rule says something of ``component``."""
        if self.match_all:
            return True
        criteria = (self.names, self.keys, self.tags, self.components, self.version)
        if all(criterion is None for criterion in criteria):
            return False
        return (
            (self.components is None or component.kind in self.components)
            and (self.version is None or self.version.matches(component.version, match_none=False))
            and (self.keys is None or component.key in self.keys)
            and (self.names is None or component.name in self.names or component.uri in self.names)
            and (self.tags is None or bool(component.tags & self.tags))
        )

    def to_rule(self) -> dict[str, Any]:
        """The rule as JSON, as a session keeps it."""
        return {
            "enabled": self.enabled,
            "names": None if self.names is None else sorted(self.names),
            "keys": None if self.keys is None else sorted(self.keys),
            "tags": None if self.tags is None else sorted(self.tags),
            "components": None if self.components is None else sorted(self.components),
            "version": None if self.version is None else dataclasses.asdict(self.version),
            "match_all": self.match_all,
        }

    @classmethod
    def from_rule(cls, rule: Mapping[str, Any]) -> Visibility:
        """The rule :meth:`to_rule` wrote."""
        return cls(
            bool(rule["enabled"]),
            names=rule.get("names"),
            keys=rule.get("keys"),
            tags=rule.get("tags"),
            components=rule.get("components"),
            version=None if rule.get("version") is None else VersionSpec(**rule["version"]),
            match_all=bool(rule.get("match_all")),
        )


def is_visible(rules: Iterable[Visibility], component: Component, shown: bool = True) -> bool:
    """Whether ``component`` is shown: as the last rule that matches it says, else as
    ``shown`` says."""
    for rule in rules:
        if rule.matches(component):
            shown = rule.enabled
    return shown


def template_matches(template: str, uri: str) -> bool:
    """Whether ``uri`` is an instance of the URI ``template`` (``{name}`` a path segment,
    ``{+name}`` or ``{name*}`` any text; a template with other expressions matches nothing
    here)."""
    pattern = _pattern(template)
    return pattern is not None and pattern.fullmatch(uri) is not None


@lru_cache(maxsize=256)
def _pattern(template: str) -> re.Pattern[str] | None:
    parts = re.split(r"(\{[^}]*\})", template)
    pattern = ""
    for part in parts:
        if not (part.startswith("{") and part.endswith("}")):
            pattern += re.escape(part)
        elif re.fullmatch(r"\{\w+\}", part):
            pattern += "[^/]+"
        elif re.fullmatch(r"\{\+\w+\}|\{\w+\*\}", part):
            pattern += ".+"
        else:
            return None
    return re.compile(pattern)


__all__ = ["Component", "Criteria", "Visibility", "is_visible", "template_matches"]

"""FastMCP's ``fastmcp.resources.template``: :class:`ResourceTemplate`, the resources a
function reads at the URIs of a template (``mcp.add_template``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ... import _native


@dataclass
class ResourceTemplate:
    """The resources ``fn`` reads at the URIs ``uri_template`` matches, its variables its
    parameters, with ``mcp.resource``'s ``options``."""

    fn: Callable[..., Any]
    uri_template: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The template's name (the function's unless given)."""
        return str(self.options.get("name") or getattr(self.fn, "__name__", self.uri_template))

    def matches(self, uri: str) -> dict[str, str] | None:
        """The values ``uri`` gives the template's variables, or None when it is not one of
        its URIs."""
        return _native.uri_template_match(self.uri_template, uri)

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri_template: str, **options: Any) -> ResourceTemplate:
        """The template ``fn`` reads at ``uri_template``, with ``mcp.resource``'s options."""
        return cls(fn, uri_template, options)


__all__ = ["ResourceTemplate"]

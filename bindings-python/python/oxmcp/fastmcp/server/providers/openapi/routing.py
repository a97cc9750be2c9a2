"""FastMCP's ``fastmcp.server.providers.openapi.routing``: which operations become tools,
resources or resource templates, and which none (:class:`RouteMap`)."""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from re import Pattern
from typing import TYPE_CHECKING, Any, Literal

from ....utilities.openapi import HttpMethod, HTTPRoute

if TYPE_CHECKING:
    from .components import OpenAPIResource, OpenAPIResourceTemplate, OpenAPITool


class MCPType(enum.Enum):
    """What an operation becomes."""

    TOOL = "TOOL"
    RESOURCE = "RESOURCE"
    RESOURCE_TEMPLATE = "RESOURCE_TEMPLATE"
    EXCLUDE = "EXCLUDE"


@dataclass(kw_only=True)
class RouteMap:
    """Operations of ``methods`` whose path ``pattern`` matches (searched) and that have every
    one of ``tags`` become ``mcp_type``, tagged ``mcp_tags`` too."""

    methods: list[HttpMethod] | Literal["*"] = "*"
    pattern: Pattern[str] | str = r".*"
    tags: set[str] = field(default_factory=set)
    mcp_type: MCPType
    mcp_tags: set[str] = field(default_factory=set)

    def matches(self, route: HTTPRoute) -> bool:
        """Whether ``route`` is one of the operations this map says."""
        if self.methods != "*" and route.method not in self.methods:
            return False
        if not re.search(self.pattern, route.path):
            return False
        return self.tags <= set(route.tags)


#: What every operation no map says becomes: a tool.
DEFAULT_ROUTE_MAPPINGS = [RouteMap(mcp_type=MCPType.TOOL)]

#: ``route_map_fn(route, mcp_type)``: what ``route`` becomes instead (None: as mapped).
RouteMapFn = Callable[[HTTPRoute, MCPType], "MCPType | None"]
#: ``mcp_component_fn(route, component)``: changes a component before it is served.
ComponentFn = Callable[[HTTPRoute, "OpenAPITool | OpenAPIResource | OpenAPIResourceTemplate"], Any]


def route_map_of(route: HTTPRoute, maps: list[RouteMap]) -> RouteMap:
    """The first of ``maps`` that says ``route`` (a tool when none does)."""
    return next((route_map for route_map in maps if route_map.matches(route)), DEFAULT_ROUTE_MAPPINGS[0])


__all__ = ["DEFAULT_ROUTE_MAPPINGS", "ComponentFn", "MCPType", "RouteMap", "RouteMapFn", "route_map_of"]

"""FastMCP's ``fastmcp.server.providers.openapi``: an HTTP API's operations, read from its
OpenAPI description, served as tools, resources and resource templates
(``FastMCP.from_openapi``, ``FastMCP.from_fastapi``)."""

from .components import OpenAPIResource, OpenAPIResourceTemplate, OpenAPITool
from .provider import OpenAPIProvider
from .routing import DEFAULT_ROUTE_MAPPINGS, ComponentFn, MCPType, RouteMap, RouteMapFn

__all__ = [
    "DEFAULT_ROUTE_MAPPINGS",
    "ComponentFn",
    "MCPType",
    "OpenAPIProvider",
    "OpenAPIResource",
    "OpenAPIResourceTemplate",
    "OpenAPITool",
    "RouteMap",
    "RouteMapFn",
]

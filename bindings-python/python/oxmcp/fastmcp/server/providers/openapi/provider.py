"""FastMCP's ``fastmcp.server.providers.openapi.provider``: the components an OpenAPI
description makes (:class:`OpenAPIProvider`), each calling its operation with an HTTP
client."""

from __future__ import annotations

import importlib
import logging
import re
from collections import Counter
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from ....utilities.openapi import (
    HTTPRoute,
    flat_parameter_schema,
    output_schema,
    parse_openapi_to_http_routes,
    response_mime_type,
)
from .components import OpenAPIResource, OpenAPIResourceTemplate, OpenAPITool
from .routing import DEFAULT_ROUTE_MAPPINGS, ComponentFn, MCPType, RouteMap, RouteMapFn, route_map_of

if TYPE_CHECKING:
    pass

_log = logging.getLogger("oxmcp.fastmcp")
#: Seconds a client made from the description's server URL waits for an answer.
DEFAULT_TIMEOUT = 30.0
#: The longest name FastMCP gives a component made from an operation.
_NAME_LIMIT = 56
Kind = Literal["tool", "resource", "resource_template"]


class OpenAPIProvider:
    """The tools, resources and templates the operations of ``openapi_spec`` become (every
    one a tool unless ``route_maps`` or ``route_map_fn`` say otherwise), calling the API
    with ``client`` (an ``httpx``/``httpx2`` ``AsyncClient``; without one, a client of the
    description's first server URL). ``mcp_names`` names components by operation id;
    ``tags`` tags every one; ``mcp_component_fn`` changes each before it is served.
    ``mcp.add_provider(provider)`` serves them."""

    def __init__(
        self,
        openapi_spec: dict[str, Any],
        client: Any = None,
        *,
        route_maps: list[RouteMap] | None = None,
        route_map_fn: RouteMapFn | None = None,
        mcp_component_fn: ComponentFn | None = None,
        mcp_names: dict[str, str] | None = None,
        tags: set[str] | None = None,
        validate_output: bool = True,
    ) -> None:
        from ...server import FastMCP

        self.client = client if client is not None else _default_client(openapi_spec)
        #: The server its components are registered on, which a server mounts.
        self.server = FastMCP("OpenAPIProvider")
        self._used: dict[Kind, Counter[str]] = {
            "tool": Counter(),
            "resource": Counter(),
            "resource_template": Counter(),
        }
        maps = [*(route_maps or []), *DEFAULT_ROUTE_MAPPINGS]
        for route in parse_openapi_to_http_routes(openapi_spec):
            route_map = route_map_of(route, maps)
            kind = route_map.mcp_type
            if route_map_fn is not None:
                try:
                    kind = route_map_fn(route, kind) or kind
                except Exception as error:
                    _log.warning("Error in route_map_fn for %s %s: %s", route.method, route.path, error)
            if kind is MCPType.EXCLUDE:
                continue
            component = self._component(route, kind, _name(route, mcp_names or {}), validate_output)
            component.tags = set(route.tags) | route_map.mcp_tags | (tags or set())
            if mcp_component_fn is not None:
                try:
                    mcp_component_fn(route, component)
                except Exception as error:
                    _log.warning("Error in mcp_component_fn for %s: %s", component.name, error)
            component.register(self.server)

    def __repr__(self) -> str:
        return f"OpenAPIProvider(server={self.server.name!r})"

    def _component(
        self, route: HTTPRoute, kind: MCPType, name: str, validate_output: bool
    ) -> OpenAPITool | OpenAPIResource:
        summary = route.description or route.summary
        if kind is MCPType.TOOL:
            parameters, where = flat_parameter_schema(route)
            made = output_schema(route)
            if made is not None and not validate_output:
                made = _permissive(made)
            described = summary or f"Executes {route.method} {route.path}"
            return OpenAPITool(self.client, route, self._unique(name, "tool"), described, parameters, made, where)
        mime_type = response_mime_type(route)
        if kind is MCPType.RESOURCE:
            named = self._unique(name, "resource")
            described = summary or f"Represents {route.path}"
            return OpenAPIResource(self.client, route, f"resource://{named}", named, described, mime_type)
        named = self._unique(name, "resource_template")
        variables = "".join(f"/{{{p}}}" for p in sorted(p.name for p in route.parameters if p.location == "path"))
        described = summary or f"Template for {route.path}"
        return OpenAPIResourceTemplate(
            self.client, route, f"resource://{named}{variables}", named, described, mime_type
        )

    def _unique(self, name: str, kind: Kind) -> str:
        """``name``, or ``name_2``, ``name_3``... when a component of ``kind`` has it."""
        used = self._used[kind]
        used[name] += 1
        if used[name] == 1:
            return name
        unique = f"{name}_{used[name]}"
        while unique in used:
            used[name] += 1
            unique = f"{name}_{used[name]}"
        used[unique] += 1
        return unique


def _name(route: HTTPRoute, names: dict[str, str]) -> str:
    """The name FastMCP gives a component of ``route``: ``mcp_names``' for its operation
    id, else the id up to its first ``__``, else its summary, else its method and path;
    made of letters, digits and single underscores, at most 56 characters."""
    if route.operation_id:
        name = names.get(route.operation_id) or route.operation_id.split("__")[0]
    else:
        name = route.summary or f"{route.method}_{route.path}"
    return (_slug(name) or _slug(f"{route.method}_{route.path}"))[:_NAME_LIMIT]


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-zA-Z0-9_]", "", re.sub(r"[\s\-.]+", "_", text))
    return re.sub(r"_+", "_", slug).strip("_")


def _permissive(schema: dict[str, Any]) -> dict[str, Any]:
    """An output schema that takes any JSON answer (``validate_output=False``)."""
    permissive: dict[str, Any] = {"type": "object", "additionalProperties": True}
    if schema.get("x-fastmcp-wrap-result"):
        permissive |= {"x-fastmcp-wrap-result": True, "properties": {"result": {}}}
    return permissive


def _default_client(spec: dict[str, Any]) -> Any:
    """A client of the description's first server URL (its variables at their defaults)."""
    servers = spec.get("servers") or [{}]
    url = servers[0].get("url")
    if not url:
        raise ValueError(
            "No server URL found in OpenAPI spec. Either add a 'servers' entry to the spec or provide a client."
        )
    for name, variable in servers[0].get("variables", {}).items():
        url = url.replace(f"{{{name}}}", str(variable.get("default", "")))
    return http_module().AsyncClient(base_url=url, timeout=DEFAULT_TIMEOUT)


def http_module() -> ModuleType:
    """``httpx2`` (FastMCP's HTTP client), else ``httpx``."""
    for name in ("httpx2", "httpx"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImportError("an OpenAPI server needs httpx2 or httpx installed, or a client given")


def asgi_client(app: Any, **options: Any) -> Any:
    """A client that calls the ASGI application ``app`` in this process."""
    http = http_module()
    return http.AsyncClient(transport=http.ASGITransport(app=app), **{"base_url": "http://fastapi", **options})


__all__ = ["DEFAULT_TIMEOUT", "OpenAPIProvider", "asgi_client", "http_module"]

"""MCP Apps (``io.modelcontextprotocol/ui``) as the official SDK's ``mcp.server.apps``
offers them: an :class:`Apps` extension whose tools are bound to ``ui://`` HTML resources
a host renders::

    apps = Apps()

    @apps.tool(resource_uri="ui://clock/app.html", title="Get Time")
    def get_time(ctx: Context) -> str:
        return now() if client_supports_apps(ctx) else f"The time is {now()}."

    apps.add_html_resource("ui://clock/app.html", CLOCK_HTML, title="Clock")
    server = MCPServer("clock", extensions=[apps])

FastMCP's way to write apps is :mod:`oxmcp.fastmcp.apps`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from ..context import Context
from ..resources import Resource, TextResource
from .extension import Extension, ResourceBinding, ToolBinding, read_client_extension_settings

__all__ = [
    "APP_MIME_TYPE",
    "EXTENSION_ID",
    "Apps",
    "ResourceCsp",
    "ResourcePermissions",
    "Visibility",
    "client_supports_apps",
]

#: The MCP Apps extension's identifier.
EXTENSION_ID = "io.modelcontextprotocol/ui"
#: The MIME type of a ``ui://`` app resource.
APP_MIME_TYPE = "text/html;profile=mcp-app"
#: Where a tool bound to a UI is offered (``_meta.ui.visibility``).
Visibility = Literal["model", "app"]

Fn = TypeVar("Fn", bound=Callable[..., Any])


class ResourcePermissions(BaseModel):
    """What a ``ui://`` resource's frame may use (``_meta.ui.permissions``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    camera: dict[str, Any] | None = None
    microphone: dict[str, Any] | None = None
    geolocation: dict[str, Any] | None = None
    clipboard_write: dict[str, Any] | None = None


class ResourceCsp(BaseModel):
    """The domains a ``ui://`` resource's Content-Security-Policy allows (``_meta.ui.csp``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    connect_domains: list[str] | None = None
    resource_domains: list[str] | None = None
    frame_domains: list[str] | None = None
    base_uri_domains: list[str] | None = None


class Apps(Extension):
    """The MCP Apps extension: tools bound to ``ui://`` resources (``@apps.tool``), and
    those resources (:meth:`add_html_resource`, :meth:`add_resource`)."""

    identifier = EXTENSION_ID

    def __init__(self) -> None:
        self._tools: list[tuple[ToolBinding, str]] = []
        self._resources: list[ResourceBinding] = []

    def tool(
        self,
        *,
        resource_uri: str,
        visibility: Sequence[Visibility] | None = None,
        meta: dict[str, Any] | None = None,
        **tool_options: Any,
    ) -> Callable[[Fn], Fn]:
        """Registers a tool whose results the UI at ``resource_uri`` renders
        (``_meta.ui.resourceUri``, and ``_meta.ui.visibility`` when given); the other
        options are ``@server.tool``'s, ``meta`` merged beside ``ui``."""
        _require_ui_scheme(resource_uri)
        if meta and "ui" in meta:
            raise ValueError("Apps.tool() owns _meta['ui']; pass resource_uri=/visibility= instead of a 'ui' meta key")
        ui: dict[str, Any] = {"resourceUri": resource_uri}
        if visibility is not None:
            ui["visibility"] = list(visibility)

        def register(fn: Fn) -> Fn:
            self._tools.append((ToolBinding(fn=fn, meta={**(meta or {}), "ui": ui}, kwargs=tool_options), resource_uri))
            return fn

        return register

    def add_html_resource(
        self,
        uri: str,
        html: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        csp: ResourceCsp | None = None,
        permissions: ResourcePermissions | None = None,
        domain: str | None = None,
        prefers_border: bool | None = None,
    ) -> None:
        """Serves ``html`` at the ``ui://`` URI ``uri`` as ``text/html;profile=mcp-app``,
        its frame policy (``csp``, ``permissions``, ``domain``, ``prefers_border``) in
        ``_meta.ui``."""
        ui: dict[str, Any] = {}
        if csp is not None:
            ui["csp"] = csp.model_dump(by_alias=True, exclude_none=True)
        if permissions is not None:
            ui["permissions"] = permissions.model_dump(by_alias=True, exclude_none=True)
        if domain is not None:
            ui["domain"] = domain
        if prefers_border is not None:
            ui["prefersBorder"] = prefers_border
        resource = TextResource(
            uri=uri,
            name=name or uri,
            title=title,
            description=description,
            mime_type=APP_MIME_TYPE,
            meta={"ui": ui} if ui else None,
            text=html,
        )
        self.add_resource(resource)

    def add_resource(self, resource: Resource) -> None:
        """Serves a ``ui://`` resource made beforehand: as ``text/html;profile=mcp-app``
        unless it names that type itself (any other is refused: hosts render no other)."""
        _require_ui_scheme(resource.uri)
        if "mime_type" not in resource.model_fields_set:
            resource = resource.model_copy(update={"mime_type": APP_MIME_TYPE})
        elif resource.mime_type != APP_MIME_TYPE:
            raise ValueError(f"MCP Apps resources are served as {APP_MIME_TYPE!r}, got {resource.mime_type!r}")
        self._resources.append(ResourceBinding(resource=resource))

    def tools(self) -> Sequence[ToolBinding]:
        """The tools bound to UIs; ``ValueError`` for one whose UI is not served here."""
        served = {binding.resource.uri for binding in self._resources}
        for tool, uri in self._tools:
            if uri not in served:
                raise ValueError(
                    f"Apps tool {tool.fn.__name__!r} binds resource_uri {uri!r}, but no such resource "
                    "is registered; add it with add_html_resource() or add_resource()"
                )
        return [tool for tool, _ in self._tools]

    def resources(self) -> Sequence[ResourceBinding]:
        """The UIs."""
        return self._resources


def client_supports_apps(ctx: Context[Any]) -> bool:
    """Whether the request's client declared MCP Apps with the app MIME type among its
    ``mimeTypes``: a tool then answers for its UI, and in text alone otherwise."""
    settings = read_client_extension_settings(ctx, EXTENSION_ID)
    mime_types = None if settings is None else settings.get("mimeTypes")
    return isinstance(mime_types, list | tuple) and APP_MIME_TYPE in mime_types


def _require_ui_scheme(uri: str) -> None:
    if not uri.startswith("ui://"):
        raise ValueError(f"MCP Apps URIs must use the ui:// scheme, got {uri!r}")

"""FastMCP's ``fastmcp.apps.config``: the configuration of MCP Apps (the
``io.modelcontextprotocol/ui`` extension) that ``@mcp.tool(app=...)`` and
``@mcp.resource(uri, app=...)`` take. A tool names
the ``ui://`` resource that renders its results (``resource_uri``) and who it is for
(``visibility``); a resource, the HTML it serves, says what its frame may load and do. Both
are listed in the definition's ``_meta.ui``, and a resource's contents carry it too."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

#: The MIME type of an MCP App's HTML, the default of a ``ui://`` resource.
UI_MIME_TYPE = "text/html;profile=mcp-app"

#: The extension's identifier.
UI_EXTENSION_ID = "io.modelcontextprotocol/ui"


class _UiModel(BaseModel):
    """Fields by their Python names or their wire (camelCase) names; others kept."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")


class ResourceCSP(_UiModel):
    """The origins an app's frame may connect to and load from, for its host's
    ``Content-Security-Policy``."""

    connect_domains: list[str] | None = Field(
        default=None, validation_alias="connectDomains", serialization_alias="connectDomains"
    )
    resource_domains: list[str] | None = Field(
        default=None, validation_alias="resourceDomains", serialization_alias="resourceDomains"
    )
    frame_domains: list[str] | None = Field(
        default=None, validation_alias="frameDomains", serialization_alias="frameDomains"
    )
    base_uri_domains: list[str] | None = Field(
        default=None, validation_alias="baseUriDomains", serialization_alias="baseUriDomains"
    )


class ResourcePermissions(_UiModel):
    """What an app's frame asks its host to allow (each set, usually to ``{}``, asks)."""

    camera: dict[str, Any] | None = None
    microphone: dict[str, Any] | None = None
    geolocation: dict[str, Any] | None = None
    clipboard_write: dict[str, Any] | None = Field(
        default=None, validation_alias="clipboardWrite", serialization_alias="clipboardWrite"
    )


class AppConfig(_UiModel):
    """How a tool or resource takes part in MCP Apps: on a tool, the UI resource that
    renders it and its audience; on a resource (which is the UI), its frame's policy."""

    resource_uri: str | None = Field(default=None, validation_alias="resourceUri", serialization_alias="resourceUri")
    visibility: list[Literal["app", "model"]] | None = None
    csp: ResourceCSP | None = None
    permissions: ResourcePermissions | None = None
    domain: str | None = None
    prefers_border: bool | None = Field(
        default=None, validation_alias="prefersBorder", serialization_alias="prefersBorder"
    )


class PrefabAppConfig(AppConfig):
    """``app=True`` with settings of one's own: the tool's results are rendered by Prefab
    UI's renderer, whose resource the server serves, its frame allowed what the renderer
    needs and what this adds (``csp``, ``permissions``, ``domain``, ``prefers_border``)."""

    def model_post_init(self, context: Any) -> None:
        if self.resource_uri is None:
            self.resource_uri = PREFAB_PLACEHOLDER_URI


#: What a tool whose results Prefab UI renders names as its UI resource when made: the
#: server lists the renderer's own resource in its place (see ``oxmcp.fastmcp._prefab``).
PREFAB_PLACEHOLDER_URI = "ui://prefab/renderer.html"


def app_config_to_meta_dict(app: AppConfig | dict[str, Any]) -> dict[str, Any]:
    """``app`` as listed in ``_meta.ui``."""
    if isinstance(app, AppConfig):
        return app.model_dump(by_alias=True, exclude_none=True)
    return app


def resolve_ui_mime_type(uri: str, explicit_mime_type: str | None) -> str | None:
    """The MIME type given, else :data:`UI_MIME_TYPE` for a ``ui://`` URI."""
    if explicit_mime_type is not None:
        return explicit_mime_type
    return UI_MIME_TYPE if uri.lower().startswith("ui://") else None


__all__ = [
    "PREFAB_PLACEHOLDER_URI",
    "UI_EXTENSION_ID",
    "UI_MIME_TYPE",
    "AppConfig",
    "PrefabAppConfig",
    "ResourceCSP",
    "ResourcePermissions",
    "app_config_to_meta_dict",
    "resolve_ui_mime_type",
]

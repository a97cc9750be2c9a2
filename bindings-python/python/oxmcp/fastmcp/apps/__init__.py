"""FastMCP's ``fastmcp.apps``: MCP Apps, interactive UIs for tools. Their configuration
(:mod:`.config`); a tool given ``app=True`` (or returning a Prefab UI component) is
rendered by Prefab UI's renderer, which the server serves; :class:`~.app.FastMCPApp`, an
app's tools for servers to serve."""

from typing import TYPE_CHECKING

from .config import (
    UI_EXTENSION_ID,
    UI_MIME_TYPE,
    AppConfig,
    PrefabAppConfig,
    ResourceCSP,
    ResourcePermissions,
    app_config_to_meta_dict,
    resolve_ui_mime_type,
)

__all__ = [
    "UI_EXTENSION_ID",
    "UI_MIME_TYPE",
    "AppConfig",
    "FastMCPApp",
    "PrefabAppConfig",
    "ResourceCSP",
    "ResourcePermissions",
    "app_config_to_meta_dict",
    "resolve_ui_mime_type",
]

if TYPE_CHECKING:
    from .app import FastMCPApp


def __getattr__(name: str) -> object:
    # Imported when asked for: it needs the server, which needs this package's configuration.
    if name == "FastMCPApp":
        from .app import FastMCPApp

        return FastMCPApp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

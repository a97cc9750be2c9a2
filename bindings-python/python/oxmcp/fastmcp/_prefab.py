"""Prefab UI (the ``prefab-ui`` package), which renders FastMCP's app tools, served as
FastMCP serves it.

A tool given ``app=True`` (or returning a Prefab component or app) answers with the
component tree as its structured content, ``[Rendered Prefab UI]`` as its text, and names
Prefab's renderer as its UI resource. The renderer's resource is named by the digest of
what makes it differ (Prefab's version, how the renderer is delivered, what its frame may
load and do), so that the tools that render alike share one and its URI is the same on
every replica and in FastMCP: ``ui://prefab/renderer/<digest>/renderer.html``.
"""

from __future__ import annotations

import hashlib
import json
import os
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from ..types import CallToolResult, TextContent
from .apps.config import PREFAB_PLACEHOLDER_URI, UI_MIME_TYPE, AppConfig, ResourceCSP, app_config_to_meta_dict

#: The text of a Prefab result, for clients that do not render it.
TEXT_FALLBACK = "[Rendered Prefab UI]"

#: What the tool's ``_meta.ui`` gives the renderer's resource rather than keeping.
_RESOURCE_FIELDS = ("csp", "permissions", "domain", "prefersBorder")

#: The domain lists of a frame's policy, by their Python and wire names.
_CSP_FIELDS = {
    "connect_domains": "connectDomains",
    "resource_domains": "resourceDomains",
    "frame_domains": "frameDomains",
    "base_uri_domains": "baseUriDomains",
}


def _prefab_types() -> tuple[type[Any], type[Any]]:
    """Prefab's app and component classes; ImportError, saying what to install, without it."""
    try:
        from prefab_ui.app import PrefabApp
        from prefab_ui.components.base import Component
    except ImportError as error:
        raise ImportError("app=True renders with Prefab UI: pip install 'oxmcp[apps]'") from error
    return PrefabApp, Component


def _from_prefab(candidate: type[Any]) -> bool:
    """Whether a class comes from Prefab (a cheap check that imports nothing: it runs on
    every result of a FastMCP tool)."""
    module = candidate.__module__
    return module.startswith("prefab_ui.") or module == "prefab_ui"


def is_prefab_value(value: Any) -> bool:
    """Whether ``value`` is a Prefab app or component."""
    return _from_prefab(type(value)) and isinstance(value, _prefab_types())


def is_prefab_annotation(annotation: Any) -> bool:
    """Whether a return annotation is a Prefab app or component class, or a union (or
    ``Annotated``) of one."""
    if isinstance(annotation, type):
        return _from_prefab(annotation) and issubclass(annotation, _prefab_types())
    if get_origin(annotation) in (Union, types.UnionType, Annotated):
        return any(is_prefab_annotation(argument) for argument in get_args(annotation))
    return False


def prefab_json(value: Any, address: Callable[[str], str] | None = None) -> dict[str, Any]:
    """A Prefab app or component (in an app of its own) as its wire form, each tool its
    actions call named by its name (a function's: the one its standalone ``@tool`` gave
    it, else its own), as ``address`` writes it."""
    from prefab_ui.app import ResolvedTool

    from .decorators import marked

    def resolve(tool: Any) -> Any:
        if isinstance(tool, str):
            name = tool
        else:
            given = marked(tool)
            name = (given.options.get("name") if given is not None else None) or tool.__name__
        return ResolvedTool(name=name if address is None else address(name))

    app_type, _ = _prefab_types()
    app = value if isinstance(value, app_type) else app_type(view=value)
    data: dict[str, Any] = app.to_json(tool_resolver=resolve)
    return data


def prefab_result(value: Any, address: Callable[[str], str] | None = None) -> CallToolResult:
    """A tool's result of a Prefab app or component, as FastMCP answers it."""
    return CallToolResult(
        content=[TextContent(text=TEXT_FALLBACK)], structured_content=prefab_json(value, address), is_error=False
    )


@dataclass(frozen=True)
class Renderer:
    """Prefab's renderer, as one resource: where it is, how it is delivered (``mode``,
    Prefab's: ``"cdn"``, ``"bundled"`` or a URL) and its ``_meta``."""

    uri: str
    mode: str
    meta: dict[str, Any]

    def html(self) -> str:
        """The renderer's page (loaded when read, not when listed)."""
        from prefab_ui.renderer import get_renderer_html

        page: str = get_renderer_html(mode=self.mode)  # type: ignore[arg-type]
        return page


#: The renderers made, by URI (a digest of what they are, so one URI is one renderer).
_renderers: dict[str, Renderer] = {}


def renderer_at(uri: Any) -> Renderer | None:
    """The renderer a tool's ``_meta.ui.resourceUri`` names, if it names one."""
    return _renderers.get(uri) if isinstance(uri, str) else None


def rendered_ui(ui: dict[str, Any]) -> dict[str, Any]:
    """A Prefab tool's ``_meta.ui`` (its ``resourceUri`` the placeholder) as it is listed:
    naming the renderer that what it asks of its frame makes, which keeps what it asks."""
    _prefab_types()
    renderer = _renderer(ui)
    _renderers.setdefault(renderer.uri, renderer)
    listed = {key: value for key, value in ui.items() if key not in _RESOURCE_FIELDS}
    return {**listed, "resourceUri": renderer.uri}


def is_placeholder(ui: dict[str, Any]) -> bool:
    """Whether a tool's ``_meta.ui`` asks for Prefab's renderer."""
    return ui.get("resourceUri") == PREFAB_PLACEHOLDER_URI


def _renderer(ui: dict[str, Any]) -> Renderer:
    """The renderer of a tool's ``_meta.ui``: Prefab's own frame policy with the tool's
    domains added (a set: sorted), and the tool's permissions, domain and border."""
    from prefab_ui import __version__
    from prefab_ui.renderer import get_renderer_csp

    mode = os.environ.get("PREFAB_RENDERER_URL", "").rstrip("/")
    if not mode:
        development = "dev" in __version__ or __version__ == "0.0.0"
        mode = "bundled" if os.environ.get("PREFAB_BUNDLED_RENDERER") or development else "cdn"
    needed: dict[str, Any] = get_renderer_csp(mode=mode) or {}  # type: ignore[arg-type]
    given = ui.get("csp")
    asked: dict[str, Any] = given if isinstance(given, dict) else {}
    domains = {
        field: sorted({*(needed.get(field) or ()), *(asked.get(field) or asked.get(wire) or ())})
        for field, wire in _CSP_FIELDS.items()
    }
    allowed = {field: listed for field, listed in domains.items() if listed}
    csp = ResourceCSP(**allowed) if allowed else None
    own = {key: ui[key] for key in ("permissions", "domain", "prefersBorder") if key in ui}
    meta = {"ui": app_config_to_meta_dict(AppConfig(csp=csp, **own))}
    identity = {"version": __version__, "mode": mode, "mime_type": UI_MIME_TYPE, "meta": meta}
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return Renderer(f"ui://prefab/renderer/{digest}/renderer.html", mode, meta)


__all__ = [
    "TEXT_FALLBACK",
    "Renderer",
    "is_placeholder",
    "is_prefab_annotation",
    "is_prefab_value",
    "prefab_json",
    "prefab_result",
    "rendered_ui",
    "renderer_at",
]

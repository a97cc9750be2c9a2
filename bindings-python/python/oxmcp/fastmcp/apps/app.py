"""FastMCP's ``FastMCPApp``: an MCP App's tools, served by the servers given it as a
provider (``FastMCP(providers=[app])``).

``@app.ui()`` registers the tools a model calls to open the app, rendered by Prefab UI;
``@app.tool()`` the tools the app's UI calls (listed for the app alone unless
``model=True``). Each is marked with the app's name and an identity, a digest of the app's
name and the tool's, which stays the same whatever a server that serves it renames it to.
A UI's actions name the tools they call by that identity (``__<digest>_<name>``), and its
tree is sent with each named as the server serving the request lists it, the identity of
each kept in ``_meta.fastmcp.toolNames``, as FastMCP sends them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from ...server._mounting import Components
from ...types import CallToolResult
from .._prefab import is_prefab_value, prefab_result
from .._wrapping import wrapped
from ..decorators import named
from ..server.server import FastMCP
from ..tools.base import FunctionTool
from .config import PREFAB_PLACEHOLDER_URI, AppConfig

F = TypeVar("F", bound=Callable[..., Any])

#: How many hexadecimal digits of the digest name a tool's identity.
_IDENTITY_LENGTH = 12


def tool_identity(app: str, tool: str) -> str:
    """The identity of the tool ``tool`` of the app ``app``, the same on every replica."""
    return hashlib.sha256(f"{app}\x00{tool}".encode()).hexdigest()[:_IDENTITY_LENGTH]


def identity_address(name: str) -> tuple[str, str] | None:
    """The identity and the tool's own name of an address ``__<identity>_<name>``, or None
    when ``name`` is not one."""
    identity, underscore, local = name.removeprefix("__").partition("_")
    if not name.startswith("__") or len(identity) != _IDENTITY_LENGTH or not underscore or not local:
        return None
    return (identity, local) if all(digit in "0123456789abcdef" for digit in identity) else None


class FastMCPApp:
    """An MCP App: the tools that open it (:meth:`ui`) and those its UI calls (:meth:`tool`),
    served by every server given it as a provider."""

    def __init__(self, name: str) -> None:
        #: The app's name, which its tools' identities are made of.
        self.name = name
        #: The server its tools are registered on, which the servers given it mount.
        self.server = FastMCP(name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def tool(
        self,
        name_or_fn: Any = None,
        *,
        name: str | None = None,
        description: str | None = None,
        model: bool = False,
        auth: Any = None,
        timeout: float | None = None,
    ) -> Any:
        """Registers a tool the app's UI calls: listed for the app (and the model too with
        ``model``); ``@app.tool``, ``@app.tool()`` or ``@app.tool("name")``."""
        visibility: list[Literal["app", "model"]] = ["app", "model"] if model else ["app"]
        options = {"name": name, "description": description, "auth": auth, "timeout": timeout}
        return self._decorator(name_or_fn, AppConfig(visibility=visibility), options)

    def ui(
        self,
        name_or_fn: Any = None,
        *,
        name: str | None = None,
        description: str | None = None,
        title: str | None = None,
        tags: set[str] | None = None,
        icons: list[Any] | None = None,
        annotations: Any = None,
        auth: Any = None,
        timeout: float | None = None,
    ) -> Any:
        """Registers a tool the model calls to open the app, rendered by Prefab UI;
        ``@app.ui``, ``@app.ui()`` or ``@app.ui("name")``."""
        app = AppConfig(resource_uri=PREFAB_PLACEHOLDER_URI, visibility=["model"])
        options = {
            "name": name,
            "description": description,
            "title": title,
            "tags": tags,
            "icons": icons,
            "annotations": annotations,
            "auth": auth,
            "timeout": timeout,
        }
        return self._decorator(name_or_fn, app, options)

    def add_tool(self, tool: FunctionTool | Callable[..., Any]) -> None:
        """Adds a tool the app's UI calls (a function, or a tool made of one), listed for
        the app unless its ``meta`` says otherwise."""
        if isinstance(tool, FunctionTool):
            meta = tool.meta or {}
            ui = {"visibility": ["app"], **meta.get("ui", {})}
            options = {"name": tool.name, "description": tool.description}
            self._register(tool.fn, AppConfig.model_validate(ui), options)
        else:
            self._register(tool, AppConfig(visibility=["app"]), {})

    def run(self, transport: Literal["stdio", "http", "sse", "streamable-http"] = "stdio", **options: Any) -> None:
        """Serves the app alone, on a server of its name."""
        server = FastMCP(self.name)
        server.add_provider(self)
        server.run(transport, **options)

    def _decorator(self, name_or_fn: Any, app: AppConfig, options: dict[str, Any]) -> Any:
        """Registers a function as :meth:`tool` and :meth:`ui` take it: given, or named
        first (``("name")``), or later."""
        if name_or_fn is not None and not isinstance(name_or_fn, str) and not callable(name_or_fn):
            raise TypeError(f"a tool is a function, a name or nothing, not {type(name_or_fn).__name__}")
        given = named(name_or_fn, {key: value for key, value in options.items() if value is not None})

        def register(fn: F) -> F:
            self._register(fn, app, given)
            return fn

        return register(name_or_fn) if callable(name_or_fn) else register

    def _register(self, fn: Callable[..., Any], app: AppConfig, options: dict[str, Any]) -> None:
        name = options.get("name") or fn.__name__
        if identity_address(name) is not None:
            raise ValueError(
                f"Tool name {name!r} is reserved for generated tool addresses "
                "(__<12 lowercase hex>_<name>). Choose a different tool name."
            )
        meta = {"fastmcp": {"app": self.name, "tool_hash": tool_identity(self.name, name)}}
        self.server.tool(_rendered(fn, self.name, self.server), app=app, meta=meta, **{**options, "name": name})


def _rendered(fn: Callable[..., Any], app: str, server: FastMCP) -> Callable[..., Any]:
    """``fn``, a Prefab UI it returns sent as the app's: the tools its actions call named
    as the server serving the request lists them."""

    def render(value: Any) -> Any:
        if not is_prefab_value(value):
            return value
        return _bound(prefab_result(value, _by_identity(app)), _listed_names(server._components))

    return wrapped(fn, after=render)


def _by_identity(app: str) -> Callable[[str], str]:
    """How a tool an action of the app ``app`` calls is addressed: by its identity and its
    name (an address already, as it is)."""

    def address(name: str) -> str:
        return name if identity_address(name) is not None else f"__{tool_identity(app, name)}_{name}"

    return address


def _listed_names(components: Components) -> dict[str, str]:
    """The name of each tool identity (one tool's alone) as the server that serves the
    request lists it (:meth:`Components.outermost`)."""
    names: dict[str, str] = {}
    claimed: set[str] = set()
    for definition in components.outermost().definitions("tool"):
        listed = (definition.get("_meta") or {}).get("fastmcp") or {}
        identity = listed.get("tool_hash")
        if isinstance(identity, str):
            if identity in claimed:
                names.pop(identity, None)
            else:
                names[identity] = definition["name"]
            claimed.add(identity)
    return names


def _bound(result: CallToolResult, names: dict[str, str]) -> CallToolResult:
    """A Prefab result whose actions name tools by their addresses, naming each as
    ``names`` says its identity is listed, the address of each name kept in the tree's
    ``_meta.fastmcp.toolNames``."""
    tree = result.structured_content
    assert tree is not None
    addresses: dict[str, str] = {}
    for action in _tool_calls(tree):
        address = action["tool"]
        parsed = identity_address(address)
        if parsed is None:
            continue
        action["tool"] = names.get(parsed[0], address)
        addresses[action["tool"]] = address
    if addresses:
        meta = tree.setdefault("_meta", {})
        meta.setdefault("fastmcp", {})["toolNames"] = addresses
    return result


def _tool_calls(node: Any) -> list[dict[str, Any]]:
    """Every action of a Prefab tree that calls a tool."""
    if isinstance(node, list):
        return [action for item in node for action in _tool_calls(item)]
    if not isinstance(node, dict):
        return []
    own = [node] if node.get("action") == "toolCall" and isinstance(node.get("tool"), str) else []
    return own + [action for value in node.values() for action in _tool_calls(value)]


__all__ = ["FastMCPApp", "identity_address", "tool_identity"]

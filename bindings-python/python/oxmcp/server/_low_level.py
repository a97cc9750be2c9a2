"""A low-level server's handlers, as the official SDK's ``Server(on_list_tools=...,
on_call_tool=..., ...)`` takes them: each is called with a :class:`ServerRequestContext` and
the request's (or notification's) params, and returns the method's result. The core serves
the requests from the server's catalog, after what is registered with the decorators."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter, ValidationError
from typing_extensions import TypedDict

from .. import types
from .._errors import McpError
from .._native import INVALID_PARAMS
from ..context import ServerRequestContext
from ._calling import Call, native_callable, result_object

#: A low-level handler: ``handler(ctx, params)`` returns (an awaitable of) the result.
LowLevelHandler = Callable[[ServerRequestContext[Any], Any], Any]


class LowLevelHandlers(TypedDict, total=False):
    """The official SDK's low-level handlers that a :class:`~oxmcp.Server` takes."""

    on_list_tools: LowLevelHandler
    on_call_tool: LowLevelHandler
    on_list_prompts: LowLevelHandler
    on_get_prompt: LowLevelHandler
    on_list_resources: LowLevelHandler
    on_list_resource_templates: LowLevelHandler
    on_read_resource: LowLevelHandler
    on_roots_list_changed: LowLevelHandler


#: Each handler's keyword, the method it serves, and the params it gets unless its second
#: parameter annotates a type of its own (the official SDK's ``mcp.types`` ones, say).
CATALOG: dict[str, tuple[str, Any]] = {
    "on_list_tools": ("tools/list", types.PaginatedRequestParams | None),
    "on_call_tool": ("tools/call", types.CallToolRequestParams),
    "on_list_prompts": ("prompts/list", types.PaginatedRequestParams | None),
    "on_get_prompt": ("prompts/get", types.GetPromptRequestParams),
    "on_list_resources": ("resources/list", types.PaginatedRequestParams | None),
    "on_list_resource_templates": ("resources/templates/list", types.PaginatedRequestParams | None),
    "on_read_resource": ("resources/read", types.ReadResourceRequestParams),
}

#: Each notification handler's keyword, its notification, and the params it gets by default.
NOTIFICATIONS: dict[str, tuple[str, Any]] = {
    "on_roots_list_changed": ("notifications/roots/list_changed", types.NotificationParams | None),
}

#: The methods whose handler the core calls with a cursor rather than params.
_LISTS = frozenset(method for method, params in CATALOG.values() if params == CATALOG["on_list_tools"][1])


def low_level_handler(fn: Callable[..., Any], keyword: str, lifespan: Callable[[], Any]) -> Callable[..., Any]:
    """`fn`, the handler given as `keyword`, as the native layer calls it: with the cursor
    (a list) or the params as a dict, and the native context. An ``async def`` gets a
    coroutine function, run on the loop; a plain ``def`` a function run on a worker thread."""
    method, default = CATALOG.get(keyword) or NOTIFICATIONS[keyword]
    adapter: TypeAdapter[Any] = TypeAdapter(_params_annotation(fn) or default)

    def prepare(given: Any, native_ctx: Any) -> Call:
        params = ({"cursor": given} if given is not None else None) if method in _LISTS else given
        try:
            parsed = adapter.validate_python(params)
        except ValidationError as error:
            raise McpError(INVALID_PARAMS, f"{method}: invalid params: {error.errors()[0]['msg']}") from None
        return (ServerRequestContext(native_ctx, lifespan()), parsed), {}

    return native_callable(fn, inspect.iscoroutinefunction(fn), prepare, result_object)


def _params_annotation(fn: Callable[..., Any]) -> Any:
    """The type `fn`'s second parameter annotates, or None."""
    parameters = list(inspect.signature(fn).parameters.values())
    if len(parameters) != 2:
        raise TypeError(f"{getattr(fn, '__name__', fn)!r}: a low-level handler takes (ctx, params)")
    try:
        hints = inspect.get_annotations(fn, eval_str=True)
    except NameError:
        return None
    return hints.get(parameters[1].name)

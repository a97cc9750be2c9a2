"""A low-level server's handlers, as the official SDK's ``Server(on_list_tools=...,
on_call_tool=..., ...)`` takes them: each is called with a :class:`ServerRequestContext` and
the request's (or notification's) params, and returns the method's result. The core serves
the lists and what they list from the server's catalog, after what is registered with the
decorators."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

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
    on_subscribe_resource: LowLevelHandler
    on_unsubscribe_resource: LowLevelHandler
    on_set_logging_level: LowLevelHandler
    on_completion: LowLevelHandler
    on_roots_list_changed: LowLevelHandler
    on_progress: LowLevelHandler
    on_subscriptions_listen: Any
    """A :class:`~oxmcp.server.subscriptions.ListenHandler`: its bus's events reach the
    server's clients."""


@dataclass(frozen=True)
class Served:
    """What one low-level handler serves: its method, the params it gets unless its second
    parameter annotates a type of its own (the official SDK's ``mcp.types`` ones, say), and
    how the core calls it: from the catalog (a list with a cursor, or a request with its
    params), as the server's completer, for a notification, or told of a request the core
    answers (a subscription, the log level: the handler keeps its own record, and refuses
    the request by raising)."""

    method: str
    params: Any
    role: Literal["list", "catalog", "completer", "notification", "told"]


_PAGE = types.PaginatedRequestParams | None

#: The handlers a low-level server may be given, by keyword.
HANDLERS: dict[str, Served] = {
    "on_list_tools": Served("tools/list", _PAGE, "list"),
    "on_call_tool": Served("tools/call", types.CallToolRequestParams, "catalog"),
    "on_list_prompts": Served("prompts/list", _PAGE, "list"),
    "on_get_prompt": Served("prompts/get", types.GetPromptRequestParams, "catalog"),
    "on_list_resources": Served("resources/list", _PAGE, "list"),
    "on_list_resource_templates": Served("resources/templates/list", _PAGE, "list"),
    "on_read_resource": Served("resources/read", types.ReadResourceRequestParams, "catalog"),
    "on_subscribe_resource": Served("resources/subscribe", types.SubscribeRequestParams, "told"),
    "on_unsubscribe_resource": Served("resources/unsubscribe", types.UnsubscribeRequestParams, "told"),
    "on_set_logging_level": Served("logging/setLevel", types.SetLevelRequestParams, "told"),
    "on_completion": Served("completion/complete", types.CompleteRequestParams, "completer"),
    "on_roots_list_changed": Served(
        "notifications/roots/list_changed", types.NotificationParams | None, "notification"
    ),
    "on_progress": Served("notifications/progress", types.ProgressNotificationParams, "notification"),
}


def low_level_handler(fn: Callable[..., Any], served: Served, lifespan: Callable[[], Any]) -> Callable[..., Any]:
    """`fn`, a handler serving `served`, as the native layer calls it: with the cursor (a
    list) or the params as a dict, and the native context. An ``async def`` gets a coroutine
    function, run on the loop; a plain ``def`` a function run on a worker thread."""
    adapter: TypeAdapter[Any] = TypeAdapter(_params_annotation(fn) or served.params)

    def prepare(given: Any, native_ctx: Any) -> Call:
        params = ({"cursor": given} if given is not None else None) if served.role == "list" else given
        if served.role == "catalog":
            params = _with_answers(params, native_ctx)
        try:
            parsed = adapter.validate_python(params)
        except ValidationError as error:
            raise McpError(INVALID_PARAMS, f"{served.method}: invalid params: {error.errors()[0]['msg']}") from None
        return (ServerRequestContext(native_ctx, lifespan()), parsed), {}

    convert = _completion if served.role == "completer" else result_object
    return native_callable(fn, inspect.iscoroutinefunction(fn), prepare, convert)


def _with_answers(params: Any, native_ctx: Any) -> Any:
    """A retried request's params with the answers it brought and the state the handler
    gave last time, opened (the core checked it), as a guard reads them
    (``params.input_responses``, ``params.request_state``)."""
    if not isinstance(params, dict):
        return params
    carried = {"inputResponses": native_ctx.input_responses, "requestState": native_ctx.request_state}
    return {**params, **{key: value for key, value in carried.items() if value is not None}}


def _completion(value: Any) -> Any:
    """A ``completion/complete`` result's completion, as the core's completer gives it."""
    return result_object(value).get("completion")


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

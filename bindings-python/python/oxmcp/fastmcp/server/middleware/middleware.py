"""FastMCP's middleware, as FastMCP's users write it: a :class:`Middleware` subclass
overrides the hooks it needs, each given a :class:`MiddlewareContext` and the rest of the
chain (``call_next``).

``on_message`` runs around every request, ``on_request`` inside it, then the hook of the
request's method (``on_initialize``, ``on_call_tool``, ``on_read_resource``,
``on_get_prompt``, ``on_list_tools``, ``on_list_resources``, ``on_list_resource_templates``,
``on_list_prompts``); around a notification, ``on_message`` then ``on_notification``.
The first middleware given is the outermost. A hook may change the message it passes on
(``context.copy(message=...)``), change or replace what ``call_next`` gives, or answer by
itself (raising ``ToolError`` or ``McpError``, say).
What each method's message and result are: :mod:`oxmcp.fastmcp.server._middleware`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

if TYPE_CHECKING:
    from ..context import Context

T = TypeVar("T")
R = TypeVar("R", covariant=True)


class CallNext(Protocol[T, R]):
    """The rest of the chain: the next middleware, and at the end the method."""

    def __call__(self, context: MiddlewareContext[T]) -> Awaitable[R]: ...


@dataclass(kw_only=True, frozen=True)
class MiddlewareContext(Generic[T]):
    """What a hook is given: the request's ``message`` (its method's params), the handler
    context of the request (``fastmcp_context``), its ``method``, and when it came."""

    message: T
    fastmcp_context: Context | None = None
    source: Literal["client", "server"] = "client"
    type: Literal["request", "notification"] = "request"
    method: str | None = None
    timestamp: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    def copy(self, **changes: Any) -> MiddlewareContext[T]:
        """This context with ``changes`` (a new ``message``, say)."""
        return replace(self, **changes)


#: The hook of each method that has one.
_METHOD_HOOKS = {
    "initialize": "on_initialize",
    "tools/call": "on_call_tool",
    "resources/read": "on_read_resource",
    "prompts/get": "on_get_prompt",
    "tools/list": "on_list_tools",
    "resources/list": "on_list_resources",
    "resources/templates/list": "on_list_resource_templates",
    "prompts/list": "on_list_prompts",
}

Hook = Callable[[MiddlewareContext[Any], CallNext[Any, Any]], Awaitable[Any]]


def around(hook: Hook, call_next: CallNext[Any, Any]) -> CallNext[Any, Any]:
    """``call_next`` with ``hook`` run around it: one link of a chain (a hook of a
    middleware's, or a whole middleware)."""

    async def run(context: MiddlewareContext[Any]) -> Any:
        return await hook(context, call_next)

    return run


class Middleware:
    """Runs around a server's requests; every hook passes the request on unless overridden."""

    async def __call__(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        """Runs ``on_message``, then ``on_request``, then the method's hook, around
        ``call_next``."""
        chain = call_next
        hook = _METHOD_HOOKS.get(context.method or "")
        if hook is not None:
            chain = around(getattr(self, hook), chain)
        chain = around(self.on_request if context.type == "request" else self.on_notification, chain)
        return await around(self.on_message, chain)(context)

    async def on_message(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await call_next(context)

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await call_next(context)

    async def on_notification(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await call_next(context)

    async def on_initialize(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await call_next(context)

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await call_next(context)

    async def on_read_resource(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await call_next(context)

    async def on_get_prompt(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await call_next(context)

    async def on_list_tools(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Sequence[Any]]
    ) -> Sequence[Any]:
        return await call_next(context)

    async def on_list_resources(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Sequence[Any]]
    ) -> Sequence[Any]:
        return await call_next(context)

    async def on_list_resource_templates(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Sequence[Any]]
    ) -> Sequence[Any]:
        return await call_next(context)

    async def on_list_prompts(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Sequence[Any]]
    ) -> Sequence[Any]:
        return await call_next(context)

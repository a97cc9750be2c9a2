"""FastMCP's ``fastmcp.server.extensions``: a server extension (SEP-2133) bound to its
server with ``mcp.add_extension(extension)``. A :class:`ServerExtension` subclass names
its ``identifier`` and overrides what it contributes:

- ``settings()``: declared in the capabilities under ``extensions[identifier]``;
- ``methods()``: :class:`MethodBinding` s, requests of methods the protocol does not
  define, their params checked against a model, answered by the binding's handler;
- ``intercept_tool_call(params, context, call_next)``: around every tool call, inside the
  server's middleware (the first extension added outermost);
- ``lifespan()``: entered and left with the server's.

What the protocol carries stays the core's: these are the server's request handlers,
capabilities, middleware and lifespan, as :class:`oxmcp.Server` offers them."""

from __future__ import annotations

import contextlib
import copy
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ...context import ServerRequestContext
from ...server.extension import (
    ExtensionRequestHandler,
    MethodBinding,
    read_client_extension_settings,
    validate_extension_identifier,
)
from ...types import CallToolRequestParams
from .middleware.middleware import CallNext, Middleware, MiddlewareContext

if TYPE_CHECKING:
    from .context import Context
    from .server import FastMCP

#: What an interceptor awaits to run the rest: the inner interceptors, then the tool.
ToolCallContinuation = Callable[[], Awaitable[Any]]


class ServerExtension:
    """An extension of a server (SEP-2133), bound to it by ``mcp.add_extension(...)``:
    set ``identifier`` and override what it contributes (every method has a default)."""

    #: Its identifier (``vendor-prefix/name``), under which it is declared.
    identifier: str
    #: Whether providers and mounted servers may add it on their own (FastMCP's flag;
    #: oxmcp adds an extension only where it is given).
    auto_register: ClassVar[bool] = False
    _server_ref: weakref.ref[FastMCP] | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        identifier = cls.__dict__.get("identifier")
        if identifier is not None:
            validate_extension_identifier(identifier, owner=cls.__name__)

    def clone(self) -> ServerExtension:
        """An unbound copy, its settings deep-copied."""
        extension = copy.deepcopy(self)
        extension._server_ref = None
        return extension

    def _bind(self, server: FastMCP) -> None:
        validate_extension_identifier(self.identifier, owner=type(self).__name__)
        self._server_ref = weakref.ref(server)

    @property
    def server(self) -> FastMCP:
        """The server it was added to; ``RuntimeError`` before."""
        server = None if self._server_ref is None else self._server_ref()
        if server is None:
            raise RuntimeError(
                f"Extension {self.identifier!r} is not bound to a FastMCP server; "
                "register it with FastMCP.add_extension() before use."
            )
        return server

    def settings(self) -> dict[str, Any]:
        """Its settings, declared under ``capabilities.extensions[identifier]``."""
        return {}

    def methods(self) -> Sequence[MethodBinding]:
        """The request methods it serves."""
        return ()

    def lifespan(self) -> contextlib.AbstractAsyncContextManager[None]:
        """Entered when the server starts serving, left when it stops."""
        return contextlib.nullcontext()

    async def intercept_tool_call(
        self, params: CallToolRequestParams, context: Context, call_next: ToolCallContinuation
    ) -> Any:
        """Around every tool call: the result, from ``await call_next()`` or its own."""
        return await call_next()

    def client_settings(self, ctx: ServerRequestContext[Any]) -> dict[str, Any] | None:
        """The settings the client declared for this extension, or None when it did not."""
        return read_client_extension_settings(ctx, self.identifier)


def add_extension(server: FastMCP, extension: ServerExtension) -> None:
    """What ``server.add_extension(extension)`` does: binds it, declares it, serves its
    methods, runs its interceptor around tool calls and its lifespan with the server's."""
    extension._bind(server)
    server.extension(extension.identifier, extension.settings())
    for binding in extension.methods():
        server.request_handler(binding.method)(binding.answer)
    if type(extension).intercept_tool_call is not ServerExtension.intercept_tool_call:
        server.add_middleware(_Intercepting(extension))
    if type(extension).lifespan is not ServerExtension.lifespan:
        server._lifespan = _living_with(server._lifespan, extension)


class _Intercepting(Middleware):
    """Runs an extension's interceptor around each tool call."""

    def __init__(self, extension: ServerExtension) -> None:
        self.extension = extension

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        async def rest() -> Any:
            return await call_next(context)

        fastmcp_context = context.fastmcp_context
        if fastmcp_context is None:
            raise RuntimeError("a tool call runs within a request's context")
        return await self.extension.intercept_tool_call(context.message, fastmcp_context, rest)


def _living_with(lifespan: Any, extension: ServerExtension) -> Callable[[Any], Any]:
    """A lifespan that enters ``lifespan`` (if any; its state is the server's) and then the
    extension's."""

    @contextlib.asynccontextmanager
    async def living(server: Any) -> AsyncIterator[Any]:
        async with contextlib.AsyncExitStack() as stack:
            state = None if lifespan is None else await stack.enter_async_context(lifespan(server))
            await stack.enter_async_context(extension.lifespan())
            yield state

    return living


__all__ = [
    "ExtensionRequestHandler",
    "MethodBinding",
    "ServerExtension",
    "ToolCallContinuation",
    "read_client_extension_settings",
    "validate_extension_identifier",
]

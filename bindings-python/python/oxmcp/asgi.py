"""A server's Streamable HTTP endpoint as an ASGI application, to mount in Starlette,
FastAPI or any ASGI app next to its own routes::

    from fastapi import FastAPI

    mcp_app = server.http_app(path="/mcp")
    app = FastAPI(lifespan=mcp_app.lifespan)
    app.mount("/tools", mcp_app)          # the endpoint is /tools/mcp

The HTTP protocol is the core's, as under ``server.run(transport="http")``: both eras,
sessions, SSE and resumption, the Origin/Host checks, the body limit, authorization. This
module only carries each request from the ASGI server to the core and the answer back.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

from . import _native

if TYPE_CHECKING:
    from .server import Server

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class HttpApp:
    """The ASGI application of one server's endpoint, from :meth:`Server.http_app`.

    It starts on the first request, or earlier within :meth:`lifespan` (which a top-level
    app gets from its ASGI server's lifespan events, and a mounted one from the parent's
    ``lifespan=mcp_app.lifespan``); leaving the last lifespan ends its sessions and
    requests, and the server's own ``lifespan``.
    """

    def __init__(
        self, server: Server, config: _native.HttpConfig, middleware: Sequence[Any] = (), routes: Sequence[Any] = ()
    ) -> None:
        self._server = server
        self._config = config
        self._endpoint: _native.HttpEndpoint | None = None
        self._running = 0
        # Started by a request outside any lifespan: it stays up while the process runs.
        self._started_alone = contextlib.AsyncExitStack()
        #: The server's own routes (Starlette ``Route``s, ``@mcp.custom_route``), answered
        #: before the endpoint.
        self._routes = list(routes)
        app: ASGIApp = self._route if self._routes else self._serve
        # Starlette's Middleware(cls, *args, **kwargs) unpacks as (cls, args, kwargs).
        for cls, args, kwargs in reversed(middleware):
            app = cls(app, *args, **kwargs)
        self._app = app

    def add_middleware(self, middleware_class: Callable[..., ASGIApp], *args: Any, **kwargs: Any) -> None:
        """Wraps the app in ``middleware_class(app, *args, **kwargs)`` (CORS, sessions,
        logging), outside those added before, as Starlette's ``app.add_middleware`` does."""
        self._app = middleware_class(self._app, *args, **kwargs)

    @property
    def path(self) -> str:
        """The endpoint's path within this app."""
        return self._config.path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan_events(receive, send)
        elif scope["type"] == "http":
            await self._app(scope, receive, send)
        elif scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.close", "code": 1003})

    async def _route(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request to one of the server's own routes, answered by it (by the first whose
        path it matches, 405, when none takes its method); any other, by the endpoint."""
        from starlette.routing import Match

        partial = None
        for route in self._routes:
            matched, child = route.matches(scope)
            if matched is Match.FULL:
                await route.handle({**scope, **child}, receive, send)
                return
            if matched is Match.PARTIAL and partial is None:
                partial = (route, child)
        if partial is not None:
            route, child = partial
            await route.handle({**scope, **child}, receive, send)
            return
        await self._serve(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: object = None) -> AsyncIterator[None]:
        """The endpoint's lifespan, for the app that mounts this one:
        ``FastAPI(lifespan=mcp_app.lifespan)``, or entered within the app's own lifespan.
        Within it the server's ``lifespan`` is entered and the endpoint serves; leaving it
        lets requests in flight finish (up to ``shutdown_timeout``), then ends every
        session."""
        async with self._server._living():
            self._running += 1
            try:
                yield
            finally:
                self._running -= 1
                if self._running == 0:
                    await self._stop()

    async def _lifespan_events(self, receive: Receive, send: Send) -> None:
        """The ASGI lifespan protocol, when this app is the one the ASGI server runs."""
        await receive()
        try:
            async with self.lifespan():
                await send({"type": "lifespan.startup.complete"})
                await receive()
        except Exception as error:
            await send({"type": "lifespan.startup.failed", "message": str(error)})
            raise
        await send({"type": "lifespan.shutdown.complete"})

    async def _start(self) -> _native.HttpEndpoint:
        """The endpoint, started on first use."""
        if self._endpoint is None:
            if self._running == 0:
                await self._started_alone.enter_async_context(self._server._living())
            if self._endpoint is None:
                self._endpoint = self._server._native.http_endpoint(self._config)
        return self._endpoint

    async def _stop(self) -> None:
        endpoint, self._endpoint = self._endpoint, None
        if endpoint is not None:
            await endpoint.shutdown()
        await self._started_alone.aclose()

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One request: its head and body to the core, the answer back as it comes."""
        endpoint = await self._start()
        target = _route_path(scope)
        if query := scope.get("query_string"):
            target += "?" + query.decode("latin-1")
        exchange = endpoint.exchange(scope["method"], target, scope["headers"], scope.get("client"))
        first = await receive()
        if first["type"] == "http.disconnect":
            exchange.cancel()
            return
        if first.get("more_body", False):
            reading = asyncio.ensure_future(_read_body(first, receive, exchange))
        else:
            # The usual case, a body in one message: handed over without a task.
            exchange.send_whole_body(first.get("body", b""))
            reading = asyncio.ensure_future(_watch_disconnect(receive, exchange))
        try:
            head = await exchange.response()
            if head is None:
                return
            status, headers, ready, ended = head
            await send({"type": "http.response.start", "status": status, "headers": headers})
            if ended:
                # A JSON answer: whole already, sent in one message.
                await send({"type": "http.response.body", "body": b"".join(ready)})
                return
            for ready_chunk in ready:
                await send({"type": "http.response.body", "body": ready_chunk, "more_body": True})
            while (chunk := await exchange.next_chunk()) is not None:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            reading.cancel()
            exchange.cancel()


async def _read_body(first: Message, receive: Receive, exchange: _native.HttpExchange) -> None:
    """Feeds a request body that comes in several messages, `first` the first of them, to
    the core, then watches for the client leaving."""
    message = first
    while True:
        chunk = message.get("body", b"")
        # Past the core's limit it reads no more; the rest is received and dropped.
        if chunk and not await exchange.send_body(chunk):
            exchange.end_body()
        if not message.get("more_body", False):
            break
        message = await receive()
        if message["type"] == "http.disconnect":
            exchange.cancel()
            return
    exchange.end_body()
    await _watch_disconnect(receive, exchange)


async def _watch_disconnect(receive: Receive, exchange: _native.HttpExchange) -> None:
    """Waits for the client to leave, which cancels the exchange (and the request it
    answers)."""
    while (await receive())["type"] != "http.disconnect":
        pass
    exchange.cancel()


def _route_path(scope: Scope) -> str:
    """The request's path within this app: without the ``root_path`` the app is mounted
    under (Starlette's ``Mount`` keeps it in ``path``)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path or "/"

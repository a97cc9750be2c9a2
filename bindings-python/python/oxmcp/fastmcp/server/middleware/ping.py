"""FastMCP's ``fastmcp.server.middleware.ping``: a quiet session kept alive by pings."""

from __future__ import annotations

import asyncio
from typing import Any

from ...._errors import McpError
from ..context import Context
from .middleware import CallNext, Middleware, MiddlewareContext


class PingMiddleware(Middleware):
    """Pings the client of each session every ``interval_ms`` milliseconds, from its first
    request until the session is gone or its client stops answering, so that what sits
    between them (a proxy, a load balancer) does not drop a quiet connection. Sessions are
    2025-11-25's and earlier's: 2026-07-28 has none to keep."""

    def __init__(self, interval_ms: int = 30000) -> None:
        if interval_ms <= 0:
            raise ValueError("interval_ms must be positive")
        self.interval_ms = interval_ms
        #: The sessions pinged, each by its task.
        self._pinging: dict[str, asyncio.Task[None]] = {}

    async def on_message(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        ctx = context.fastmcp_context
        session = None if ctx is None or ctx.era != "legacy" else ctx.session_id
        if ctx is not None and session is not None and session not in self._pinging:
            self._pinging[session] = asyncio.create_task(self._ping(ctx, session), name=f"ping-keepalive-{session}")
        return await call_next(context)

    async def _ping(self, ctx: Context, session: str) -> None:
        try:
            while True:
                await asyncio.sleep(self.interval_ms / 1000)
                await ctx.session.send_ping()
        except McpError:
            return
        finally:
            del self._pinging[session]


__all__ = ["PingMiddleware"]

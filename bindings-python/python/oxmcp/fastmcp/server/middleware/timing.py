"""FastMCP's ``fastmcp.server.middleware.timing``: how long each request took, logged."""

from __future__ import annotations

import logging
import time
from typing import Any

from .middleware import CallNext, Middleware, MiddlewareContext


class TimingMiddleware(Middleware):
    """Logs how long each request took (``Request tools/call completed in 1.23ms``, or
    ``failed after ...: why``) to ``logger`` (``fastmcp.timing`` unless given) at
    ``log_level``."""

    def __init__(self, logger: logging.Logger | None = None, log_level: int = logging.INFO) -> None:
        self.logger = logger or logging.getLogger("fastmcp.timing")
        self.log_level = log_level

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        method = context.method or "unknown"
        started = time.perf_counter()
        try:
            result = await call_next(context)
        except Exception as error:
            took = (time.perf_counter() - started) * 1000
            self.logger.log(self.log_level, f"Request {method} failed after {took:.2f}ms: {error}")
            raise
        took = (time.perf_counter() - started) * 1000
        self.logger.log(self.log_level, f"Request {method} completed in {took:.2f}ms")
        return result

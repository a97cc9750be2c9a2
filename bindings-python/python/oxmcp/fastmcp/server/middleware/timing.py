"""FastMCP's ``fastmcp.server.middleware.timing``: how long each request took, logged."""

from __future__ import annotations

import logging
import time
from typing import Any

from .middleware import CallNext, Middleware, MiddlewareContext


async def _timed(
    logger: logging.Logger, level: int, what: str, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
) -> Any:
    """Runs the rest of the chain, logging ``<what> completed in 1.23ms`` (or ``failed
    after ...: why``)."""
    started = time.perf_counter()
    try:
        result = await call_next(context)
    except Exception as error:
        logger.log(level, f"{what} failed after {(time.perf_counter() - started) * 1000:.2f}ms: {error}")
        raise
    logger.log(level, f"{what} completed in {(time.perf_counter() - started) * 1000:.2f}ms")
    return result


class TimingMiddleware(Middleware):
    """Logs how long each request took (``Request tools/call completed in 1.23ms``, or
    ``failed after ...: why``) to ``logger`` (``fastmcp.timing`` unless given) at
    ``log_level``."""

    def __init__(self, logger: logging.Logger | None = None, log_level: int = logging.INFO) -> None:
        self.logger = logger or logging.getLogger("fastmcp.timing")
        self.log_level = log_level

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        what = f"Request {context.method or 'unknown'}"
        return await _timed(self.logger, self.log_level, what, context, call_next)


class DetailedTimingMiddleware(Middleware):
    """Logs how long each operation took, named by what it did (``Tool 'add' completed in
    1.23ms``, ``Resource 'notes://today'``, ``Prompt 'greet'``, ``List tools``...), to
    ``logger`` (``fastmcp.timing.detailed`` unless given) at ``log_level``."""

    def __init__(self, logger: logging.Logger | None = None, log_level: int = logging.INFO) -> None:
        self.logger = logger or logging.getLogger("fastmcp.timing.detailed")
        self.log_level = log_level

    async def _time(self, what: str, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await _timed(self.logger, self.log_level, what, context, call_next)

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await self._time(f"Tool '{getattr(context.message, 'name', 'unknown')}'", context, call_next)

    async def on_read_resource(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await self._time(f"Resource '{getattr(context.message, 'uri', 'unknown')}'", context, call_next)

    async def on_get_prompt(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await self._time(f"Prompt '{getattr(context.message, 'name', 'unknown')}'", context, call_next)

    async def on_list_tools(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await self._time("List tools", context, call_next)

    async def on_list_resources(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await self._time("List resources", context, call_next)

    async def on_list_resource_templates(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await self._time("List resource templates", context, call_next)

    async def on_list_prompts(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return await self._time("List prompts", context, call_next)

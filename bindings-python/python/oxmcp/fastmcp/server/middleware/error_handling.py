"""FastMCP's ``fastmcp.server.middleware.error_handling``: every failure logged, counted,
and answered as the JSON-RPC error its kind calls for; requests that fail for a passing
reason run again."""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable
from typing import Any

from ...._errors import McpError
from .middleware import CallNext, Middleware, MiddlewareContext

#: How many kinds of failure are counted apart; the rest together.
MAX_ERROR_KINDS = 1000
OTHER_ERRORS = "<other>"


class ErrorHandlingMiddleware(Middleware):
    """Logs every failure to ``logger`` (``fastmcp.errors`` unless given; with its traceback
    when ``include_traceback``), counts them by kind and method (:meth:`get_error_stats`),
    tells ``error_callback(error, context)``, and, with ``transform_errors``, answers one
    that is not an ``McpError`` as the error its kind calls for: a ``ValueError`` or
    ``TypeError`` -32602, a missing file or key -32002 for a resource (-32001 otherwise), a
    refused permission or a timeout -32000, anything else -32603."""

    def __init__(
        self,
        logger: logging.Logger | None = None,
        include_traceback: bool = False,
        error_callback: Callable[[Exception, MiddlewareContext[Any]], None] | None = None,
        transform_errors: bool = True,
    ) -> None:
        self.logger = logger or logging.getLogger("fastmcp.errors")
        self.include_traceback = include_traceback
        self.error_callback = error_callback
        self.transform_errors = transform_errors
        self.error_counts: dict[str, int] = {}

    async def on_message(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        try:
            return await call_next(context)
        except Exception as error:
            self._note(error, context)
            answered = self._answer(error, context)
            if answered is error:
                raise
            raise answered from error

    def get_error_stats(self) -> dict[str, int]:
        """How many failures of each kind and method (``ValueError:tools/call``) so far."""
        return dict(self.error_counts)

    def _note(self, error: Exception, context: MiddlewareContext[Any]) -> None:
        method = context.method or "unknown"
        kind = f"{type(error).__name__}:{method}"
        # Methods come from clients: the counts stay bounded whatever they send.
        if kind not in self.error_counts and len(self.error_counts) >= MAX_ERROR_KINDS - 1:
            kind = OTHER_ERRORS
        self.error_counts[kind] = self.error_counts.get(kind, 0) + 1
        message = f"Error in {method}: {type(error).__name__}: {error}"
        self.logger.error(f"{message}\n{traceback.format_exc()}" if self.include_traceback else message)
        if self.error_callback is not None:
            try:
                self.error_callback(error, context)
            except Exception as failed:
                self.logger.error(f"Error in error callback: {failed}")

    def _answer(self, error: Exception, context: MiddlewareContext[Any]) -> Exception:
        if isinstance(error, McpError) or not self.transform_errors:
            return error
        kind = type(error.__cause__) if error.__cause__ is not None else type(error)
        if issubclass(kind, ValueError | TypeError):
            return McpError(-32602, f"Invalid params: {error}")
        if issubclass(kind, FileNotFoundError | KeyError):
            if (context.method or "").startswith("resources/"):
                return McpError(-32002, f"Resource not found: {error}")
            return McpError(-32001, f"Not found: {error}")
        if issubclass(kind, PermissionError):
            return McpError(-32000, f"Permission denied: {error}")
        if issubclass(kind, TimeoutError):
            return McpError(-32000, f"Request timeout: {error}")
        return McpError(-32603, f"Internal error: {error}")


class RetryMiddleware(Middleware):
    """Runs a request again when it fails with one of ``retry_exceptions`` (a tool's failure
    counts by what the tool raised), up to ``max_retries`` more times, waiting
    ``base_delay`` seconds before the first retry and ``backoff_multiplier`` times longer
    before each next one (``max_delay`` at most); each retry is logged to ``logger``
    (``fastmcp.retry`` unless given). The last failure is the request's."""

    def __init__(
        self,
        max_retries: int = 3,
        base_delay: float = 1.0,
        max_delay: float = 60.0,
        backoff_multiplier: float = 2.0,
        retry_exceptions: tuple[type[Exception], ...] = (ConnectionError, TimeoutError),
        logger: logging.Logger | None = None,
    ) -> None:
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.backoff_multiplier = backoff_multiplier
        self.retry_exceptions = retry_exceptions
        self.logger = logger or logging.getLogger("fastmcp.retry")

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        for attempt in range(self.max_retries):
            try:
                return await call_next(context)
            except Exception as error:
                if not self._passing(error):
                    raise
                delay = min(self.base_delay * self.backoff_multiplier**attempt, self.max_delay)
                self.logger.warning(
                    f"Request {context.method} failed (attempt {attempt + 1}/{self.max_retries + 1}): "
                    f"{type(error).__name__}: {error}. Retrying in {delay:.1f}s..."
                )
                await asyncio.sleep(delay)
        return await call_next(context)

    def _passing(self, error: Exception) -> bool:
        """Whether ``error``, or what it was raised from, is worth another try."""
        return isinstance(error, self.retry_exceptions) or isinstance(error.__cause__, self.retry_exceptions)

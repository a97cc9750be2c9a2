"""FastMCP's ``fastmcp.server.middleware.error_handling``: every failure logged, counted,
and answered as the JSON-RPC error its kind calls for."""

from __future__ import annotations

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

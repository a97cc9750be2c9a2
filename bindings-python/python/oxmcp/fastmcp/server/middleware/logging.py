"""FastMCP's ``fastmcp.server.middleware.logging``: every request logged as it starts and
as it ends, as ``key=value`` pairs (:class:`LoggingMiddleware`) or as JSON
(:class:`StructuredLoggingMiddleware`)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

import pydantic_core
from typing_extensions import TypedDict, Unpack

from .middleware import CallNext, Middleware, MiddlewareContext

Event = dict[str, str | int | float]


class LoggingOptions(TypedDict, total=False):
    """What both logging middlewares take, each as FastMCP's: the ``logger`` (the class's
    own unless given), its ``log_level`` (INFO), whether a request's start carries its
    ``payload`` (``include_payloads``), its ``payload_length`` and its ``payload_tokens``
    (length // 4) (all off), the ``methods`` logged (all when None), and the
    ``payload_serializer`` (JSON when None)."""

    logger: logging.Logger | None
    log_level: int
    include_payloads: bool
    include_payload_length: bool
    estimate_payload_tokens: bool
    methods: list[str] | None
    payload_serializer: Callable[[Any], str] | None


def default_serializer(data: Any) -> str:
    """A message as JSON text (what JSON cannot hold, as its ``str``)."""
    return pydantic_core.to_json(data, fallback=str).decode()


class LoggingMiddleware(Middleware):
    """Logs each request (of ``methods``, all when None) to ``logger``
    (``fastmcp.middleware.logging`` unless given) at ``log_level``:
    ``event=request_start method=tools/call source=client`` as it starts (with its
    ``payload``, the message as JSON cut at ``max_payload_length``, its ``payload_length``
    and ``payload_tokens`` as asked), ``event=request_success`` with its ``duration_ms`` as
    it ends, ``event=request_error`` with the ``error`` (at ERROR) when it fails."""

    #: The logger used when none is given.
    default_logger = "fastmcp.middleware.logging"

    def __init__(self, *, max_payload_length: int | None = 1000, **options: Unpack[LoggingOptions]) -> None:
        self.logger = options.get("logger") or logging.getLogger(self.default_logger)
        self.log_level = options.get("log_level", logging.INFO)
        self.include_payloads = options.get("include_payloads", False)
        self.include_payload_length = options.get("include_payload_length", False)
        self.estimate_payload_tokens = options.get("estimate_payload_tokens", False)
        self.max_payload_length = max_payload_length
        self.methods = options.get("methods")
        self.payload_serializer = options.get("payload_serializer")

    async def on_message(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        if self.methods is not None and context.method not in self.methods:
            return await call_next(context)
        self._log(self._started(context), self.log_level)
        started = time.perf_counter()
        try:
            result = await call_next(context)
        except Exception as error:
            self._log({**self._event(context, "error", started), "error": str(error)}, logging.ERROR)
            raise
        self._log(self._event(context, "success", started), self.log_level)
        return result

    def format(self, event: Event) -> str:
        """One log line of ``event``."""
        return " ".join(f"{key}={value}" for key, value in event.items())

    def _log(self, event: Event, level: int) -> None:
        self.logger.log(level, self.format(event))

    def _event(self, context: MiddlewareContext[Any], stage: str, started: float | None = None) -> Event:
        event: Event = {
            "event": f"{context.type}_{stage}",
            "method": context.method or "unknown",
            "source": context.source,
        }
        if started is not None:
            event["duration_ms"] = round((time.perf_counter() - started) * 1000, 2)
        return event

    def _started(self, context: MiddlewareContext[Any]) -> Event:
        event = self._event(context, "start")
        if not (self.include_payloads or self.include_payload_length or self.estimate_payload_tokens):
            return event
        payload = self._payload(context.message)
        if self.estimate_payload_tokens:
            event["payload_tokens"] = len(payload) // 4
        if self.include_payload_length:
            event["payload_length"] = len(payload)
        if self.include_payloads:
            if self.max_payload_length and len(payload) > self.max_payload_length:
                payload = payload[: self.max_payload_length] + "..."
            event["payload"] = payload
            event["payload_type"] = type(context.message).__name__
        return event

    def _payload(self, message: Any) -> str:
        if self.payload_serializer is None:
            return default_serializer(message)
        try:
            return self.payload_serializer(message)
        except Exception as error:
            self.logger.warning(f"Failed to serialize payload due to {error}: falling back to JSON.")
            return default_serializer(message)


class StructuredLoggingMiddleware(LoggingMiddleware):
    """:class:`LoggingMiddleware` logging each event as one JSON object, to
    ``fastmcp.middleware.structured_logging`` unless given a logger; payloads are not cut."""

    default_logger = "fastmcp.middleware.structured_logging"

    def __init__(self, **options: Unpack[LoggingOptions]) -> None:
        super().__init__(max_payload_length=None, **options)

    def format(self, event: Event) -> str:
        return json.dumps(event)

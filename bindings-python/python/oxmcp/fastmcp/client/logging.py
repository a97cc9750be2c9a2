"""FastMCP's ``fastmcp.client.logging``: a log handler gets each log message the server
sends, as a :class:`LogMessage`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ...client import NotificationHandler
from ...types import LoggingMessageNotificationParams

#: A log message from the server: ``level``, ``logger`` and ``data``.
LogMessage = LoggingMessageNotificationParams

#: A FastMCP log handler.
LogHandler = Callable[[LogMessage], Awaitable[None]]


def create_log_callback(handler: LogHandler) -> NotificationHandler:
    """``handler`` as oxmcp's client's notification handler: called for log messages only."""

    async def heard(method: str, params: Any) -> None:
        if method == "notifications/message":
            await handler(LogMessage.model_validate(params))

    return heard


__all__ = ["LogHandler", "LogMessage", "create_log_callback"]

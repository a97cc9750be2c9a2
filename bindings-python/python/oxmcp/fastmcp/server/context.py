"""FastMCP's ``fastmcp.server.context``: the context a handler annotating it gets, oxmcp's
:class:`~oxmcp.Context` with FastMCP's logging methods."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...context import Context as OxmcpContext
from ...context import LogLevel


class Context(OxmcpContext[Any]):
    """oxmcp's :class:`~oxmcp.Context` (``elicit(message, response_type=...)``,
    ``report_progress``, ``read_resource``, ``sample``...), whose log messages are FastMCP's:
    ``info(message, logger_name=None, extra=None)`` sends ``{"msg": message, "extra":
    extra}``."""

    # FastMCP's logging methods take the message first and name their arguments its way.
    async def log(  # type: ignore[override]
        self,
        message: str,
        level: LogLevel | None = None,
        logger_name: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """Sends a log message at `level` (default info)."""
        await super().log(level or "info", {"msg": message, "extra": extra}, logger_name)

    async def debug(self, message: str, logger_name: str | None = None, extra: Mapping[str, Any] | None = None) -> None:
        """A debug message."""
        await self.log(message, "debug", logger_name, extra)

    async def info(self, message: str, logger_name: str | None = None, extra: Mapping[str, Any] | None = None) -> None:
        """An info message."""
        await self.log(message, "info", logger_name, extra)

    async def warning(
        self, message: str, logger_name: str | None = None, extra: Mapping[str, Any] | None = None
    ) -> None:
        """A warning."""
        await self.log(message, "warning", logger_name, extra)

    async def error(self, message: str, logger_name: str | None = None, extra: Mapping[str, Any] | None = None) -> None:
        """An error."""
        await self.log(message, "error", logger_name, extra)


__all__ = ["Context"]

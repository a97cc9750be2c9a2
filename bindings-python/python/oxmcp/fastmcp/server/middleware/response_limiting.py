"""FastMCP's ``fastmcp.server.middleware.response_limiting``: a tool's result kept under a
size, its text cut short past it."""

from __future__ import annotations

import logging
from typing import Any

import pydantic_core

from ....types import TextContent
from ...tools import ToolResult
from .middleware import CallNext, Middleware, MiddlewareContext

logger = logging.getLogger(__name__)

#: What the result around the text takes, about: `{"content":[{"type":"text","text":""}]}`.
_RESULT_OVERHEAD = 50


class ResponseLimitingMiddleware(Middleware):
    """Keeps each result of ``tools`` (every tool when None) under ``max_size`` bytes of
    JSON: a larger one becomes its text (its text blocks joined, or its JSON when it has
    none) cut to fit, with ``truncation_suffix`` after it, its ``meta`` and error flag kept.
    The tools it limits are listed without an output schema, since a cut result has no
    structured content."""

    def __init__(
        self,
        *,
        max_size: int = 1_000_000,
        truncation_suffix: str = "\n\n[Response truncated due to size limit]",
        tools: list[str] | None = None,
    ) -> None:
        if max_size <= 0:
            raise ValueError(f"max_size must be positive, got {max_size}")
        self.max_size = max_size
        self.truncation_suffix = truncation_suffix
        self.tools = None if tools is None else set(tools)

    async def on_list_tools(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        return [
            tool.model_copy(update={"output_schema": None})
            if self._limits(tool.name) and tool.output_schema is not None
            else tool
            for tool in await call_next(context)
        ]

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        result = await call_next(context)
        # A task's or an input request's result has no content to measure.
        if not isinstance(result, ToolResult) or not self._limits(context.message.name):
            return result
        called = result.to_result()
        serialized = pydantic_core.to_json(called.to_wire())
        if len(serialized) <= self.max_size:
            return result
        logger.warning(
            "Tool %r response exceeds size limit: %d bytes > %d bytes, truncating",
            context.message.name,
            len(serialized),
            self.max_size,
        )
        texts = [block.text for block in called.content if isinstance(block, TextContent)]
        text = "\n\n".join(texts) if texts else serialized.decode()
        return ToolResult(content=[TextContent(text=self._cut(text))], meta=result.meta, is_error=result.is_error)

    def _limits(self, name: str) -> bool:
        return self.tools is None or name in self.tools

    def _cut(self, text: str) -> str:
        """``text`` cut to fit the limit with the suffix after it (on a character's
        boundary); the suffix alone when even that does not fit."""
        room = self.max_size - len(self.truncation_suffix.encode()) - _RESULT_OVERHEAD
        if room <= 0:
            return self.truncation_suffix
        return text.encode()[:room].decode(errors="ignore") + self.truncation_suffix


__all__ = ["ResponseLimitingMiddleware"]

"""FastMCP's ``fastmcp.tools``: :class:`ToolResult`, a tool's whole result; :class:`Tool`,
a tool before it is on a server (``Tool.from_function``, ``Tool.from_tool``), and the
standalone ``@tool``; :func:`forward` and :func:`forward_raw`, which a transformed tool's
function calls the tool it was made from with."""

from __future__ import annotations

from typing import Any

import pydantic_core

from ..._official import from_official, is_official
from ...content import Audio, File, Image
from ...types import CallToolResult, TextContent, WireModel
from .._prefab import is_prefab_value, prefab_json


class ToolResult:
    """A tool's whole result, as FastMCP's: ``content`` (text, content blocks, media, or
    data written as compact JSON text; the structured content when left out), the
    ``structured_content`` (an object; anything else as it is JSON), the result's ``meta``
    and ``is_error``."""

    def __init__(
        self,
        content: Any = None,
        structured_content: Any = None,
        meta: dict[str, Any] | None = None,
        is_error: bool = False,
    ) -> None:
        if content is None and structured_content is None:
            raise ValueError("a ToolResult needs content or structured_content")
        self.content = structured_content if content is None else content
        self.structured_content = structured_content
        self.meta = meta
        self.is_error = is_error

    def to_result(self) -> CallToolResult:
        """The result as the client gets it."""
        structured = None
        if is_prefab_value(self.structured_content):
            structured = prefab_json(self.structured_content)
        elif self.structured_content is not None:
            structured = pydantic_core.to_jsonable_python(self.structured_content, fallback=str)
            if not isinstance(structured, dict):
                raise ValueError("structured_content must be an object (a dict, a model, a dataclass)")
        return CallToolResult(
            content=content_of(self.content),
            structured_content=structured,
            is_error=self.is_error,
            _meta=self.meta,
        )


def content_of(value: Any) -> list[Any]:
    """FastMCP's content of a value: text as text, content as it is, a list of content
    item by item (other items each as one block), any other data (a list of data too) as
    one compact JSON text; nothing for None or an empty list."""
    if value is None or (isinstance(value, list | tuple) and not value):
        return []
    if not isinstance(value, list | tuple):
        return [content_block(value)]
    if any(is_content_value(item) for item in value):
        return [content_block(item) for item in value]
    return [content_block(list(value))]


def content_block(value: Any) -> Any:
    """One content block of a value: media as its block, content as it is (the official
    SDK's as oxmcp's), text as text, anything else as compact JSON text."""
    if isinstance(value, Image | Audio | File):
        return value.to_content()
    if isinstance(value, WireModel):
        return value
    value = from_official(value)
    if isinstance(value, WireModel):
        return value
    if isinstance(value, str):
        return TextContent(text=value)
    return TextContent(text=pydantic_core.to_json(value, fallback=str).decode())


def is_content_value(value: Any) -> bool:
    """Whether `value` is content (a content block, media, the official SDK's content)
    rather than data."""
    return isinstance(value, Image | Audio | File | WireModel) or is_official(type(value))


from .base import FunctionTool, Tool, tool  # noqa: E402 (they use ToolResult)
from .tool_transform import forward, forward_raw  # noqa: E402

__all__ = [
    "FunctionTool",
    "Tool",
    "ToolResult",
    "content_block",
    "content_of",
    "forward",
    "forward_raw",
    "is_content_value",
    "tool",
]

"""What handlers return, as wire results: tool results, resource contents, prompt messages."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from typing import Any

from pydantic_core import to_jsonable_python

from .content import Audio, Image
from .types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    GetPromptResult,
    ImageContent,
    PromptMessage,
    ReadResourceResult,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

Wire = dict[str, Any]
_CONTENT = (TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource)


def jsonable(value: Any) -> Any:
    """Plain JSON data of any value pydantic can serialise (models, dataclasses, ...)."""
    return to_jsonable_python(value, by_alias=True, exclude_none=True)


def tool_result(value: Any, structured: bool, wrapped: bool) -> Wire:
    """A ``tools/call`` result: structured output (with its JSON text as content) when the
    tool has an output schema, content blocks otherwise."""
    if isinstance(value, CallToolResult):
        return value.to_wire()
    if structured:
        data = jsonable(value)
        if wrapped:
            data = {"result": data}
        return {"content": [_text(json.dumps(data, ensure_ascii=False))], "structuredContent": data}
    return {"content": content_blocks(value)}


def tool_error(error: BaseException) -> Wire:
    """An ``isError`` result carrying the exception's message."""
    message = str(error) or type(error).__name__
    return {"content": [_text(message)], "isError": True}


def content_blocks(value: Any) -> list[Wire]:
    """Content blocks of text, bytes, content helpers and models, or lists of them;
    anything else becomes its JSON text."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)) and all(_is_content_like(item) for item in value):
        return [block for item in value for block in content_blocks(item)]
    if isinstance(value, str):
        return [_text(value)]
    if isinstance(value, bytes):
        blob = {"uri": "data:", "mimeType": "application/octet-stream", "blob": _b64(value)}
        return [{"type": "resource", "resource": blob}]
    if isinstance(value, (Image, Audio)):
        return [value.to_content().to_wire()]
    if isinstance(value, _CONTENT):
        return [value.to_wire()]
    return [_text(json.dumps(jsonable(value), ensure_ascii=False))]


def read_result(value: Any, uri: str, mime_type: str | None) -> Wire:
    """A ``resources/read`` result: text, bytes (as a blob), resource contents, or JSON."""
    if isinstance(value, ReadResourceResult):
        return value.to_wire()
    items = value if isinstance(value, (list, tuple)) and value and all(_is_contents(v) for v in value) else [value]
    return {"contents": [_contents(item, uri, mime_type) for item in items]}


def prompt_result(value: Any, description: str | None) -> Wire:
    """A ``prompts/get`` result: text becomes a user message; messages pass as they are."""
    if isinstance(value, GetPromptResult):
        return value.to_wire()
    items: Iterable[Any] = value if isinstance(value, (list, tuple)) else [value]
    result: Wire = {"messages": [_message(item) for item in items]}
    if description:
        result["description"] = description
    return result


def _contents(item: Any, uri: str, mime_type: str | None) -> Wire:
    if isinstance(item, (TextResourceContents, BlobResourceContents)):
        return item.to_wire()
    if isinstance(item, str):
        return {"uri": uri, "mimeType": mime_type or "text/plain", "text": item}
    if isinstance(item, bytes):
        return {"uri": uri, "mimeType": mime_type or "application/octet-stream", "blob": _b64(item)}
    text = json.dumps(jsonable(item), ensure_ascii=False)
    return {"uri": uri, "mimeType": mime_type or "application/json", "text": text}


def _message(item: Any) -> Wire:
    if isinstance(item, PromptMessage):
        return item.to_wire()
    if isinstance(item, dict) and "role" in item:
        return PromptMessage.model_validate(item).to_wire()
    blocks = content_blocks(item)
    if len(blocks) != 1:
        raise TypeError(f"a prompt message holds exactly one content block, not {len(blocks)}")
    return {"role": "user", "content": blocks[0]}


def _is_content_like(value: Any) -> bool:
    return isinstance(value, (str, bytes, Image, Audio, *_CONTENT))


def _is_contents(value: Any) -> bool:
    return isinstance(value, (str, bytes, TextResourceContents, BlobResourceContents))


def _text(text: str) -> Wire:
    return {"type": "text", "text": text}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")

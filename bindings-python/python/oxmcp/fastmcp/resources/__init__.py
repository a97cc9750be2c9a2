"""FastMCP's ``fastmcp.resources``: :class:`ResourceContent` and :class:`ResourceResult`,
what a resource returns (as well as text, bytes or data), and the standalone
``@resource(uri)``."""

from __future__ import annotations

import base64
import inspect
import json
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import pydantic_core
from pydantic import BaseModel

from ...types import WireModel
from ..decorators import Marked, mark

F = TypeVar("F", bound=Callable[..., Any])


class ResourceContent(BaseModel):
    """One item of a resource's contents, as FastMCP's: ``ResourceContent(content,
    mime_type=None, meta=None)``; text (``text/plain`` unless given) and bytes
    (``application/octet-stream``) as they are, any other value as compact JSON text
    (``application/json``)."""

    content: str | bytes
    mime_type: str | None = None
    meta: dict[str, Any] | None = None

    def __init__(self, content: Any, mime_type: str | None = None, meta: dict[str, Any] | None = None) -> None:
        if isinstance(content, str):
            mime_type = mime_type or "text/plain"
        elif isinstance(content, bytes):
            mime_type = mime_type or "application/octet-stream"
        else:
            content = pydantic_core.to_json(content, fallback=str).decode()
            mime_type = mime_type or "application/json"
        super().__init__(content=content, mime_type=mime_type, meta=meta)

    def to_wire(self) -> dict[str, Any]:
        """The item as a read's contents have it, without the URI (the core gives each the
        URI read)."""
        if isinstance(self.content, str):
            item: dict[str, Any] = {"text": self.content}
        else:
            item = {"blob": base64.b64encode(self.content).decode()}
        return {**item, "mimeType": self.mime_type, **({"_meta": self.meta} if self.meta is not None else {})}


class ResourceResult(WireModel):
    """A resource's whole result, as FastMCP's: its ``contents`` (text, bytes or a list of
    :class:`ResourceContent`; JSON data as one JSON text) and the result's ``meta``."""

    __mcp_kind__: ClassVar[str] = "result"

    contents: list[ResourceContent]

    def __init__(self, contents: Any, meta: dict[str, Any] | None = None) -> None:
        fields: dict[str, Any] = {"contents": _contents(contents), "_meta": meta}
        super().__init__(**fields)

    def to_wire(self) -> dict[str, Any]:
        """The ``resources/read`` result, each item without its URI (the core gives each the
        URI read)."""
        contents = [item.to_wire() for item in self.contents]
        return {"contents": contents, **({"_meta": self.meta} if self.meta is not None else {})}


def _contents(contents: Any) -> list[ResourceContent]:
    """What ``ResourceResult(contents)`` holds, as FastMCP reads it."""
    if isinstance(contents, str | bytes):
        return [ResourceContent(contents)]
    if isinstance(contents, list) and all(isinstance(item, ResourceContent) for item in contents):
        return contents
    if isinstance(contents, list):
        index, item = next((i, item) for i, item in enumerate(contents) if not isinstance(item, ResourceContent))
        raise TypeError(
            f"contents[{index}] must be ResourceContent, got {type(item).__name__}. "
            f"Use ResourceContent({item!r}) to wrap the value."
        )
    if contents is None or isinstance(contents, dict | tuple | int | float | bool):
        return [ResourceContent(json.dumps(contents), mime_type="application/json")]
    raise TypeError(f"contents must be str, bytes, or list[ResourceContent], got {type(contents).__name__}")


def resource(uri: str, **options: Any) -> Callable[[F], F]:
    """Marks a function as the resource (or template, with ``{variables}``) at ``uri``, with
    the options ``mcp.resource`` takes, without registering it (a provider does, or
    ``mcp.resource(uri, ...)(fn)``)."""
    if inspect.isroutine(uri):
        raise TypeError("The @resource decorator requires a URI. Use @resource('uri') instead of @resource")

    def marked(fn: F) -> F:
        return mark(fn, Marked("resource", {"uri": uri, **options}))

    return marked


__all__ = ["ResourceContent", "ResourceResult", "resource"]

"""FastMCP's ``fastmcp.resources.base``: :class:`Resource`, a resource as an object, and
:class:`ResourceContent` and :class:`ResourceResult`, what a resource returns (as well as
text, bytes or data)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import pydantic_core
from pydantic import BaseModel, Field, field_validator

from ... import resources
from ...types import WireModel

if TYPE_CHECKING:
    from .function_resource import FunctionResource


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


class Resource(resources.Resource):
    """FastMCP's resource as an object, with its ``tags`` and ``version``:
    :meth:`read` gives text, bytes or a :class:`ResourceResult` (``mcp.add_resource``
    serves it)."""

    tags: set[str] = Field(default_factory=set, description="Its tags")
    version: str | None = Field(default=None, description="Its version")

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, version: Any) -> Any:
        return None if version is None else str(version)

    @field_validator("tags", mode="before")
    @classmethod
    def _no_tags(cls, tags: Any) -> Any:
        return set() if tags is None else tags

    async def contents(self) -> ResourceResult:
        """What a client reads: :meth:`read`'s result, text or bytes with the resource's
        MIME type and ``_meta``."""
        value = await self.read()
        if isinstance(value, ResourceResult):
            return value
        return ResourceResult([ResourceContent(value, mime_type=self.mime_type, meta=self.meta)])

    def listed(self) -> dict[str, Any]:
        return {**super().listed(), "tags": self.tags, "version": self.version}

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri: str, **options: Any) -> FunctionResource:
        """The resource at ``uri`` that ``fn`` reads, with ``mcp.resource``'s options."""
        from .function_resource import FunctionResource

        return FunctionResource.from_function(fn, uri, **options)


__all__ = ["Resource", "ResourceContent", "ResourceResult"]

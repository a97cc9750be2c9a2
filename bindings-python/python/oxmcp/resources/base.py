"""A resource as an object (the official SDK's ``mcp.server.mcpserver.resources.Resource``):
its URI, what a client is listed of it, and :meth:`Resource.read`, which gives its text or
bytes; ``server.add_resource(resource)`` serves it."""

from __future__ import annotations

import abc
import base64
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from .._convert import jsonable
from ..types import Annotations, BlobResourceContents, TextResourceContents


class Resource(BaseModel, abc.ABC):
    """A resource: subclasses say what :meth:`read` gives. ``name`` is the URI unless
    given."""

    # Built when first made, not at import: every server imports this, few make one.
    model_config = ConfigDict(validate_default=True, extra="forbid", arbitrary_types_allowed=True, defer_build=True)

    uri: str = Field(description="The resource's URI")
    name: str | None = Field(default=None, description="Its name (the URI unless given)")
    title: str | None = Field(default=None, description="Its human-readable title")
    description: str | None = Field(default=None, description="What it is")
    mime_type: str = Field(default="text/plain", description="The MIME type of what it reads")
    icons: list[dict[str, Any]] | None = Field(default=None, description="Its icons")
    annotations: Annotations | None = Field(default=None, description="Its audience, priority...")
    meta: dict[str, Any] | None = Field(default=None, description="Its `_meta`, listed and read")

    @field_validator("name", mode="before")
    @classmethod
    def _named_by_uri(cls, name: str | None, info: ValidationInfo) -> str:
        if name:
            return name
        if uri := info.data.get("uri"):
            return str(uri)
        raise ValueError("Either name or uri must be provided")

    @field_validator("icons", "annotations", mode="before")
    @classmethod
    def _from_models(cls, value: Any) -> Any:
        # The official SDK's `Icon` and `Annotations` too.
        return jsonable(value)

    @abc.abstractmethod
    async def read(self) -> str | bytes:
        """The resource's contents: text, or bytes (sent base64-encoded)."""

    def listed(self) -> dict[str, Any]:
        """What a server registers for it: the options of ``server.resource(uri, ...)``."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mime_type": self.mime_type,
            "annotations": self.annotations,
            "icons": self.icons,
            "meta": self.meta,
        }

    def reader(self) -> Callable[..., Any]:
        """The function a server registers for it, run at each read: its :meth:`contents`
        (a method of a resource, listed as the resource says, its description none unless
        given)."""
        return self.contents

    async def contents(self) -> Any:
        """What a client reads (here the contents of :meth:`read`'s text or bytes with the
        MIME type and ``_meta``, as the official SDK sends them)."""
        content: object = await self.read()
        fields: dict[str, Any] = {"uri": self.uri, "mime_type": self.mime_type, "_meta": self.meta}
        if isinstance(content, str):
            return TextResourceContents(text=content, **fields)
        if isinstance(content, bytes):
            return BlobResourceContents(blob=base64.b64encode(content).decode(), **fields)
        raise TypeError(f"Resource.read() must return str or bytes, not {type(content).__name__}")

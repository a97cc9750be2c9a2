"""FastMCP's ``fastmcp.resources.types``: text or bytes held, a file, a directory's
listing and an HTTP URL's body, each with FastMCP's ``tags`` and ``version``. Each is the
official SDK's resource of that name first (its fields' defaults, ``mime_type``'s among
them), then FastMCP's :class:`~.base.Resource`."""

from __future__ import annotations

import asyncio
from functools import partial

from pydantic import Field, model_validator
from typing_extensions import Self

from ... import resources
from ...resources.types import AbsolutePath
from ..exceptions import ResourceError
from .base import Resource


class TextResource(resources.TextResource, Resource):
    """A resource whose contents are the text it holds."""


class BinaryResource(resources.BinaryResource, Resource):
    """A resource whose contents are the bytes it holds."""


class HttpResource(resources.HttpResource, Resource):
    """The body of a GET of ``url``, as text."""


class DirectoryResource(resources.DirectoryResource, Resource):
    """The files in a directory as the JSON ``{"files": [relative paths]}``."""

    async def read(self) -> str:
        try:
            return await resources.DirectoryResource.read(self)
        except Exception as error:
            raise ResourceError(f"Error reading directory {self.path}") from error


class FileResource(Resource):
    """A file, as text (``encoding``, UTF-8 unless given) or as bytes (``is_binary``, which
    unless given is whether ``mime_type`` is not ``text/*``)."""

    path: AbsolutePath = Field(description="The file's absolute path")
    is_binary: bool = Field(default=False, description="Whether the file is read as bytes")
    encoding: str | None = Field(default="utf-8", description="The text encoding (None: the system's)")

    @model_validator(mode="after")
    def _binary_by_mime_type(self) -> Self:
        if "is_binary" not in self.model_fields_set:
            self.is_binary = not self.mime_type.startswith("text/")
        return self

    async def read(self) -> str | bytes:
        try:
            if self.is_binary:
                return await asyncio.to_thread(self.path.read_bytes)
            return await asyncio.to_thread(partial(self.path.read_text, encoding=self.encoding))
        except Exception as error:
            raise ResourceError(f"Error reading file {self.path}") from error


__all__ = ["BinaryResource", "DirectoryResource", "FileResource", "HttpResource", "TextResource"]

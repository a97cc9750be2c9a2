"""Helpers that build content from bytes or files: return them from tools and prompts."""

from __future__ import annotations

import base64
import mimetypes
from abc import ABC, abstractmethod
from os import PathLike
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote

from .types import AudioContent, BlobResourceContents, EmbeddedResource, ImageContent, TextResourceContents


class _Media(ABC):
    """Bytes or a file, and its MIME type: given, or from ``format`` (``"png"`` is
    ``image/png``), or guessed from the file name.

    The arguments are the official SDK's and FastMCP's (``Image(path, data, format)``), and
    bytes given first are the data (``Image(png_bytes)``)."""

    __mcp_kind__: ClassVar[str] = "content"
    #: The MIME type's top-level type (``image``), for ``format``.
    media_type: ClassVar[str]
    default_mime_type = "application/octet-stream"

    def __init__(
        self,
        path: str | PathLike[str] | bytes | None = None,
        data: bytes | None = None,
        format: str | None = None,
        *,
        mime_type: str | None = None,
    ) -> None:
        if isinstance(path, bytes):
            path, data = None, path if data is None else data
        if (data is None) == (path is None):
            raise ValueError("give exactly one of data and path")
        self.data = data
        self.path = Path(path) if path is not None else None
        self.format = format.lower() if format else None
        self.mime_type = mime_type or (self._mime_of_format(self.format) if self.format else None)

    @classmethod
    def _mime_of_format(cls, format: str) -> str:
        return f"{cls.media_type}/{format}"

    def _bytes(self) -> tuple[bytes, str]:
        """The bytes and their MIME type."""
        data = self.data if self.data is not None else self.path.read_bytes()  # type: ignore[union-attr]
        mime_type = self.mime_type
        if mime_type is None and self.path is not None:
            mime_type = mimetypes.guess_type(self.path.name)[0]
        return data, mime_type or self.default_mime_type

    def _payload(self) -> tuple[str, str]:
        """The bytes in base64, and their MIME type."""
        data, mime_type = self._bytes()
        return base64.b64encode(data).decode("ascii"), mime_type

    @abstractmethod
    def to_content(self) -> ImageContent | AudioContent | EmbeddedResource:
        """The content block."""

    def to_wire(self) -> dict[str, Any]:
        """The content block as sent on the wire."""
        return self.to_content().to_wire()


class Image(_Media):
    """An image from bytes or a file: ``return Image(path="chart.png")``."""

    media_type = "image"
    default_mime_type = "image/png"

    def to_content(self) -> ImageContent:
        """The image content block."""
        data, mime_type = self._payload()
        return ImageContent(data=data, mime_type=mime_type)

    def to_data_uri(self, mime_type: str | None = None) -> str:
        """The image as a ``data:`` URI (an icon's ``src``), as FastMCP's ``Image`` gives it."""
        data, own = self._payload()
        return f"data:{mime_type or own};base64,{data}"


class Audio(_Media):
    """A sound from bytes or a file: ``return Audio(path="hello.wav")``."""

    media_type = "audio"
    default_mime_type = "audio/wav"

    def to_content(self) -> AudioContent:
        """The audio content block."""
        data, mime_type = self._payload()
        return AudioContent(data=data, mime_type=mime_type)


class File(_Media):
    """A file from bytes or from disk, embedded as a resource: ``return File(path="report.pdf")``
    or ``File(data=csv_bytes, format="csv", name="totals")``. Text (``text/*``, such as
    ``format="txt"``, ``"csv"``, ``"md"``) is embedded as text, anything else as a blob; its URI
    is the file's, or ``file:///<name>.<format>`` for data (FastMCP's ``File``)."""

    media_type = "application"
    #: Formats whose MIME type is text, not ``application/<format>``.
    _TEXT_FORMATS: ClassVar[dict[str, str]] = {
        "txt": "text/plain",
        "text": "text/plain",
        "plain": "text/plain",
        "csv": "text/csv",
        "html": "text/html",
        "htm": "text/html",
        "md": "text/markdown",
        "markdown": "text/markdown",
    }

    def __init__(
        self,
        path: str | PathLike[str] | bytes | None = None,
        data: bytes | None = None,
        format: str | None = None,
        name: str | None = None,
        *,
        mime_type: str | None = None,
    ) -> None:
        super().__init__(path, data, format, mime_type=mime_type)
        self.name = name

    @classmethod
    def _mime_of_format(cls, format: str) -> str:
        return cls._TEXT_FORMATS.get(format, f"application/{format}")

    def _uri(self, mime_type: str) -> str:
        if self.path is not None:
            return self.path.resolve().as_uri()
        extension = f".{self.format or mime_type.split('/')[1]}"
        if self.name is None:
            return f"file:///resource{extension}"
        return f"file:///{quote(self.name if Path(self.name).suffix else self.name + extension)}"

    def to_content(self) -> EmbeddedResource:
        """The embedded resource: text contents for a text type, a blob for any other."""
        data, mime_type = self._bytes()
        uri = self._uri(mime_type)
        if mime_type.startswith("text/"):
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = data.decode("latin-1")
            return EmbeddedResource(resource=TextResourceContents(uri=uri, mime_type=mime_type, text=text))
        blob = base64.b64encode(data).decode("ascii")
        return EmbeddedResource(resource=BlobResourceContents(uri=uri, mime_type=mime_type, blob=blob))

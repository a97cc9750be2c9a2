"""Helpers that build content from bytes or files: return them from tools and prompts."""

from __future__ import annotations

import base64
import mimetypes
from abc import ABC, abstractmethod
from os import PathLike
from pathlib import Path
from typing import Any, ClassVar

from .types import AudioContent, ImageContent


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
        self.mime_type = mime_type or (f"{self.media_type}/{format.lower()}" if format else None)

    def _payload(self) -> tuple[str, str]:
        data = self.data if self.data is not None else self.path.read_bytes()  # type: ignore[union-attr]
        mime_type = self.mime_type
        if mime_type is None and self.path is not None:
            mime_type = mimetypes.guess_type(self.path.name)[0]
        return base64.b64encode(data).decode("ascii"), mime_type or self.default_mime_type

    @abstractmethod
    def to_content(self) -> ImageContent | AudioContent:
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


class Audio(_Media):
    """A sound from bytes or a file: ``return Audio(path="hello.wav")``."""

    media_type = "audio"
    default_mime_type = "audio/wav"

    def to_content(self) -> AudioContent:
        """The audio content block."""
        data, mime_type = self._payload()
        return AudioContent(data=data, mime_type=mime_type)

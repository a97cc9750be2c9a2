"""The resources the official SDK ships (``mcp.server.mcpserver.resources``): text or bytes
held, a function called at each read, a file, a directory's listing and an HTTP URL's body."""

from __future__ import annotations

import asyncio
import inspect
import json
import urllib.parse
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import pydantic_core
from pydantic import AfterValidator, Field, field_validator

from .base import Resource

#: `application/*` types read as text although they carry no `+json` or `+xml` suffix.
_TEXTUAL_APPLICATION_TYPES = frozenset({"application/json", "application/xml"})


def text_encoding(mime_type: str) -> str | None:
    """The encoding a file of `mime_type` is read with unless told: the type's ``charset``,
    else UTF-8 (a byte-order mark allowed) for text, JSON and XML, else None (bytes)."""
    essence, *parameters = (part.strip() for part in mime_type.split(";"))
    for parameter in parameters:
        key, _, value = parameter.partition("=")
        if key.strip().lower() == "charset" and value:
            return value.strip().strip('"')
    essence = essence.lower()
    textual = essence.startswith("text/") or essence.endswith(("+json", "+xml"))
    return "utf-8-sig" if textual or essence in _TEXTUAL_APPLICATION_TYPES else None


def _absolute(path: Path) -> Path:
    if not path.is_absolute():
        raise ValueError("Path must be absolute")
    return path


#: A path that must be absolute: a resource is not read relative to wherever the server
#: happens to run.
AbsolutePath = Annotated[Path, AfterValidator(_absolute)]


class TextResource(Resource):
    """A resource whose contents are the text it holds."""

    text: str = Field(description="Its contents")

    async def read(self) -> str:
        return self.text


class BinaryResource(Resource):
    """A resource whose contents are the bytes it holds."""

    data: bytes = Field(description="Its contents")

    async def read(self) -> bytes:
        return self.data


class FunctionResource(Resource):
    """A resource whose contents a function gives at each read (a plain ``def`` on a
    thread): text, bytes, or data sent as indented JSON."""

    fn: Callable[[], Any] = Field(exclude=True)

    async def read(self) -> str | bytes:
        if inspect.iscoroutinefunction(self.fn):
            result = await self.fn()
        else:
            result = await asyncio.to_thread(self.fn)
        if isinstance(result, Resource):
            return await result.read()
        if isinstance(result, str | bytes):
            return result
        return pydantic_core.to_json(result, fallback=str, indent=2).decode()

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        uri: str,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        icons: list[Any] | None = None,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
    ) -> FunctionResource:
        """The resource at `uri` that `fn` reads, named after it unless `name` is given and
        described by its docstring unless `description` is."""
        named = name or fn.__name__
        if named == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        return cls(
            uri=uri,
            name=named,
            title=title,
            description=description or fn.__doc__ or "",
            mime_type=mime_type or "text/plain",
            fn=fn,
            icons=icons,
            annotations=annotations,
            meta=meta,
        )


class FileResource(Resource):
    """A file: text decoded with ``encoding``, or its bytes when ``encoding`` is None. Unless
    given, ``encoding`` is the ``charset`` of ``mime_type``, else UTF-8 for textual types
    (``text/*``, JSON, XML) and None for any other."""

    path: AbsolutePath = Field(description="The file's absolute path")
    encoding: str | None = Field(
        default_factory=lambda fields: text_encoding(fields["mime_type"]),
        description="The text encoding the file is decoded with, or None to send its bytes",
    )

    @field_validator("encoding")
    @classmethod
    def _known_encoding(cls, encoding: str | None) -> str | None:
        # A wrong name fails here, when the server is set up, not at its first read.
        if encoding is not None:
            try:
                b"x".decode(encoding)
            except LookupError as unknown:
                raise ValueError(str(unknown)) from unknown
            except UnicodeError:
                pass
        return encoding

    async def read(self) -> str | bytes:
        if self.encoding is None:
            return await asyncio.to_thread(self.path.read_bytes)
        return await asyncio.to_thread(partial(self.path.read_text, encoding=self.encoding))


class HttpResource(Resource):
    """The body of a GET of ``url``, as text."""

    url: str = Field(description="The URL read")
    mime_type: str = Field(default="application/json", description="The MIME type of the body")

    @field_validator("url")
    @classmethod
    def _http(cls, url: str) -> str:
        # urllib would read `file:` and `ftp:` URLs too.
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            raise ValueError(f"not an http or https URL: {url}")
        return url

    async def read(self) -> str:
        return await asyncio.to_thread(_get_text, self.url)


def _get_text(url: str) -> str:
    """The body of a GET of `url`, decoded by its charset (UTF-8 unless it says); an HTTP
    error status raises."""
    import urllib.request  # here: most servers never read one, and it costs 10 ms to import

    with urllib.request.urlopen(url, timeout=30) as response:
        body: bytes = response.read()
        return body.decode(response.headers.get_content_charset() or "utf-8")


class DirectoryResource(Resource):
    """The files in a directory (``recursive``: and below it), those matching ``pattern``
    when given, as the JSON ``{"files": [relative paths]}``."""

    path: AbsolutePath = Field(description="The directory's absolute path")
    recursive: bool = Field(default=False, description="Whether files below it are listed")
    pattern: str | None = Field(default=None, description="A glob pattern the files listed match")
    mime_type: str = Field(default="application/json", description="The listing's MIME type")

    def list_files(self) -> list[Path]:
        """The files listed (directories matching the pattern left out)."""
        if not self.path.exists():
            raise FileNotFoundError(f"Directory not found: {self.path}")
        if not self.path.is_dir():
            raise NotADirectoryError(f"Not a directory: {self.path}")
        found = self.path.rglob if self.recursive else self.path.glob
        return [path for path in found(self.pattern or "*") if path.is_file()]

    async def read(self) -> str:
        files = await asyncio.to_thread(self.list_files)
        return json.dumps({"files": [str(path.relative_to(self.path)) for path in files]}, indent=2)


__all__ = [
    "AbsolutePath",
    "BinaryResource",
    "DirectoryResource",
    "FileResource",
    "FunctionResource",
    "HttpResource",
    "TextResource",
    "text_encoding",
]

"""Resources as objects, under the names the official SDK gives them
(``mcp.server.mcpserver.resources``): ``server.add_resource(TextResource(uri=..., text=...))``
serves one as ``@server.resource(uri)`` serves a function."""

from .base import Resource
from .types import BinaryResource, DirectoryResource, FileResource, FunctionResource, HttpResource, TextResource

__all__ = [
    "BinaryResource",
    "DirectoryResource",
    "FileResource",
    "FunctionResource",
    "HttpResource",
    "Resource",
    "TextResource",
]

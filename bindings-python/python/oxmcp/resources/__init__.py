"""Resources as objects, under the names the official SDK gives them
(``mcp.server.mcpserver.resources``): ``server.add_resource(TextResource(uri=..., text=...))``
serves one as ``@server.resource(uri)`` serves a function."""

from .._resource_security import DEFAULT_RESOURCE_SECURITY, ResourceSecurity
from .base import Resource
from .types import BinaryResource, DirectoryResource, FileResource, FunctionResource, HttpResource, TextResource

__all__ = [
    "DEFAULT_RESOURCE_SECURITY",
    "BinaryResource",
    "DirectoryResource",
    "FileResource",
    "FunctionResource",
    "HttpResource",
    "Resource",
    "ResourceSecurity",
    "TextResource",
]

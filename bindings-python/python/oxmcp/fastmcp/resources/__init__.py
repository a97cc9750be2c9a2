"""FastMCP's ``fastmcp.resources``: resources as objects (``TextResource``,
``FileResource``, ``DirectoryResource``..., served by ``mcp.add_resource``), templates
(``mcp.add_template``), what a resource returns (:class:`ResourceContent`,
:class:`ResourceResult`), the standalone ``@resource(uri)`` and what a template's variables
are checked against (:class:`ResourceSecurity`, ``security=``)."""

from ..._resource_security import ResourceSecurity
from .base import Resource, ResourceContent, ResourceResult
from .function_resource import FunctionResource, resource
from .template import ResourceTemplate
from .types import BinaryResource, DirectoryResource, FileResource, HttpResource, TextResource

__all__ = [
    "BinaryResource",
    "DirectoryResource",
    "FileResource",
    "FunctionResource",
    "HttpResource",
    "Resource",
    "ResourceContent",
    "ResourceResult",
    "ResourceSecurity",
    "ResourceTemplate",
    "TextResource",
    "resource",
]

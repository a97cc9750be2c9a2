"""FastMCP's API, served by oxmcp: a server written with FastMCP runs with ``fastmcp``
changed to ``oxmcp.fastmcp`` in its imports::

    from oxmcp.fastmcp import FastMCP, Context          # was: from fastmcp import ...
    from oxmcp.fastmcp.tools import ToolResult          # was: from fastmcp.tools import ...

and lists and answers as FastMCP does, where FastMCP differs from the official SDK: tools
titled after their names, schemas without pydantic's titles (definitions inlined, unknown
arguments refused), ``_meta.fastmcp`` on each definition, no empty descriptions, data
returned as one compact JSON text, a failing tool's message naming it. ``oxmcp.FastMCP``
(the official SDK 1.x's ``FastMCP``) keeps the official SDK's conventions."""

from ..content import Audio, File, Image
from .apps.app import FastMCPApp
from .client import Client, ClientGroup
from .server import Context, FastMCP
from .tools import ToolResult

__all__ = ["Audio", "Client", "ClientGroup", "Context", "FastMCP", "FastMCPApp", "File", "Image", "ToolResult"]

"""oxmcp: the Model Context Protocol for Python, over a Rust core.

Servers::

    from oxmcp import Server, Context

    server = Server("demo", version="1.0.0")

    @server.tool()
    async def add(a: int, b: int) -> int:
        '''Add two numbers.'''
        return a + b

    server.run()                                    # stdio
    server.run(transport="http", port=8000)         # Streamable HTTP at http://127.0.0.1:8000/mcp

Clients::

    from oxmcp import Client

    async with Client.stdio(["python", "server.py"]) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})

    async with Client.http("http://127.0.0.1:8000/mcp") as client:
        tools = await client.list_tools()
"""

import atexit
import os
from typing import TYPE_CHECKING

from . import _native, types
from ._errors import (
    McpError,
    MCPServerError,
    ProtocolError,
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedResourceError,
    UnexpectedToolError,
)
from ._resource_security import DEFAULT_RESOURCE_SECURITY, ResourceSecurity
from ._version import __version__
from .content import Audio, File, Image
from .context import (
    AcceptedElicitation,
    CancelledElicitation,
    Context,
    DeclinedElicitation,
    ElicitationResult,
)
from .prompts.base import AssistantMessage, Message, UserMessage
from .server import FastMCP, HttpOptions, HttpServer, MCPServer, Server
from .server.extension import Extension, MethodBinding, ResourceBinding, ToolBinding, require_client_extension
from .server.request_state import RequestStateBoundary, RequestStateSecurity
from .types import (
    CallToolResult,
    EmbeddedResource,
    GetPromptResult,
    PromptMessage,
    ReadResourceResult,
    ResourceLink,
    Task,
    TextContent,
)

if TYPE_CHECKING:
    from .client import Client, Reconnect, ToolTask

atexit.register(_native.shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_native.after_fork_in_child)

__all__ = [
    "DEFAULT_RESOURCE_SECURITY",
    "AcceptedElicitation",
    "AssistantMessage",
    "Audio",
    "CallToolResult",
    "CancelledElicitation",
    "Client",
    "Context",
    "DeclinedElicitation",
    "ElicitationResult",
    "EmbeddedResource",
    "Extension",
    "FastMCP",
    "File",
    "GetPromptResult",
    "HttpOptions",
    "HttpServer",
    "Image",
    "MCPServer",
    "MCPServerError",
    "McpError",
    "Message",
    "MethodBinding",
    "PromptMessage",
    "ProtocolError",
    "ReadResourceResult",
    "Reconnect",
    "RequestStateBoundary",
    "RequestStateSecurity",
    "ResourceBinding",
    "ResourceError",
    "ResourceLink",
    "ResourceNotFoundError",
    "ResourceSecurity",
    "Server",
    "Task",
    "TextContent",
    "ToolBinding",
    "ToolError",
    "ToolTask",
    "UnexpectedResourceError",
    "UnexpectedToolError",
    "UserMessage",
    "__version__",
    "require_client_extension",
    "types",
]


def __getattr__(name: str) -> object:
    # The client is imported when first named: a server does not pay for it at start-up.
    if name in ("Client", "Reconnect", "ToolTask"):
        from . import client

        return getattr(client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

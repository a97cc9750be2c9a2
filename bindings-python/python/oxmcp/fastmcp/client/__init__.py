"""FastMCP's ``fastmcp.client``: the client FastMCP's users write tests and programs with."""

from .auth import BearerAuth, ClientCredentialsOAuthProvider, OAuth
from .client import CallToolResult, Client
from .group import ClientGroup, ToolRoute
from .messages import MessageHandler
from .transports import (
    ClientTransport,
    FastMCPTransport,
    NodeStdioTransport,
    PythonStdioTransport,
    SSETransport,
    StdioTransport,
    StreamableHttpTransport,
)

__all__ = [
    "BearerAuth",
    "CallToolResult",
    "Client",
    "ClientCredentialsOAuthProvider",
    "ClientGroup",
    "ClientTransport",
    "FastMCPTransport",
    "MessageHandler",
    "NodeStdioTransport",
    "OAuth",
    "PythonStdioTransport",
    "SSETransport",
    "StdioTransport",
    "StreamableHttpTransport",
    "ToolRoute",
]

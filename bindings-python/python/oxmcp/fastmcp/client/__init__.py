"""FastMCP's ``fastmcp.client``: the client FastMCP's users write tests and programs with."""

from .client import CallToolResult, Client
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
    "CallToolResult",
    "Client",
    "ClientTransport",
    "FastMCPTransport",
    "MessageHandler",
    "NodeStdioTransport",
    "PythonStdioTransport",
    "SSETransport",
    "StdioTransport",
    "StreamableHttpTransport",
]

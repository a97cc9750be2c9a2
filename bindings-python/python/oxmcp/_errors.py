"""The exceptions of the oxmcp API."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError


class McpError(Exception):
    """A JSON-RPC error.

    The client raises it when the server answers a request with an error. Raise it in a
    handler to answer with exactly this error (for a tool, instead of an ``isError``
    result).
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def __repr__(self) -> str:
        return f"McpError(code={self.code}, message={self.message!r}, data={self.data!r})"

    def __str__(self) -> str:
        return f"{self.message} ({self.code})"


class MCPServerError(Exception):
    """The failures a server's tools and resources raise (the official SDK's base of them)."""

    def __init__(self, *args: object, log_level: int | None = None) -> None:
        super().__init__(*args)
        #: The logging level it asks to be logged at, as FastMCP's errors take it.
        self.log_level = log_level


class ResourceError(MCPServerError):
    """Raise in a resource to fail with this message (an internal error naming the URI).

    Any other exception but :class:`McpError` is a crash: the client reads only ``Error
    reading resource <uri>`` and the server logs the traceback.
    """


class UnexpectedResourceError(ResourceError):
    """A resource that crashed, as ``await server.read_resource(uri)`` raises it: the message
    is only ``Error reading resource <uri>`` (or ``Error creating resource from template
    <uri>``)."""


class ResourceNotFoundError(McpError, ResourceError):
    """The resource does not exist.

    Raise it in a resource handler (a template's, for an instance that is not there): the
    client is told in the words of its protocol version, -32002 before 2026-07-28 and
    -32602 from then on (SEP-2164), with ``data.uri``. The client raises it for either.
    """

    def __init__(self, uri: str, message: str | None = None, code: int = -32602) -> None:
        super().__init__(code, message or f"Resource not found: {uri}", {"uri": uri})
        self.uri = uri

    def __repr__(self) -> str:
        return f"ResourceNotFoundError(uri={self.uri!r}, code={self.code})"


class ToolError(MCPServerError):
    """Raise in a tool to fail with this message as an ``isError`` result the model reads
    (after ``Error executing tool <name>: `` from an ``MCPServer``, as the official SDK
    words it).

    Any other exception but :class:`McpError` is a crash: the model reads only ``Error
    executing tool <name>`` and the server logs the traceback (FastMCP's servers word
    both as FastMCP does).
    """


class UnexpectedToolError(ToolError):
    """A tool that crashed, as ``await server.call_tool(name, ...)`` raises it: the message
    is only ``Error executing tool <name>``."""


class ArgumentsRefused(ToolError):
    """A tool's arguments that do not convert to its parameters' types: pydantic's words
    (``refused``), as the tool's error."""

    def __init__(self, refused: ValidationError) -> None:
        super().__init__(str(refused))
        self.refused = refused


class ProtocolError(Exception):
    """A request could not be completed at the protocol level.

    The peer lacks a capability (``ctx.sample`` to a client without sampling), broke the
    protocol, or the exchange is not possible in the negotiated era.
    """

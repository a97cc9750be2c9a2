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


class ResourceNotFoundError(McpError):
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


class ToolError(Exception):
    """Raise in a tool to fail with this message as an ``isError`` result the model reads.

    Any other exception does the same with its own message; this one says it is meant.
    """


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

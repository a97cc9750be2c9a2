"""The exceptions of the oxmcp API."""

from __future__ import annotations

from typing import Any


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


class ToolError(Exception):
    """Raise in a tool to fail with this message as an ``isError`` result the model reads.

    Any other exception does the same with its own message; this one says it is meant.
    """


class ProtocolError(Exception):
    """A request could not be completed at the protocol level.

    The peer lacks a capability (``ctx.sample`` to a client without sampling), broke the
    protocol, or the exchange is not possible in the negotiated era.
    """

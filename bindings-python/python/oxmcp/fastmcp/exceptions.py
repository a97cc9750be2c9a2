"""FastMCP's ``fastmcp.exceptions``, as oxmcp's: a :class:`ToolError`'s message is the error
result a model reads."""

from __future__ import annotations

import logging

from .._errors import McpError as McpError
from .._errors import ToolError as ToolError


class FastMCPError(Exception):
    """FastMCP's base exception, for code that catches it."""

    def __init__(self, *args: object, log_level: int = logging.ERROR) -> None:
        super().__init__(*args)
        #: The logging level it asks to be logged at.
        self.log_level = log_level


class ResourceError(FastMCPError):
    """A resource could not be read: its message is the error the client gets."""


class PromptError(FastMCPError):
    """A prompt could not be made: its message is the error the client gets."""


class NotFoundError(FastMCPError):
    """No tool, resource or prompt goes by the name asked for."""


__all__ = ["FastMCPError", "McpError", "NotFoundError", "PromptError", "ResourceError", "ToolError"]

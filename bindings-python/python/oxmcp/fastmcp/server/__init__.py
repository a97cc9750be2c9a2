"""FastMCP's ``fastmcp.server``."""

from .context import Context
from .server import FastMCP

__all__ = ["Context", "FastMCP"]

"""FastMCP's ``fastmcp.server``."""

from .context import Context
from .server import FastMCP, create_proxy

__all__ = ["Context", "FastMCP", "create_proxy"]

"""FastMCP's ``fastmcp.server.middleware``: :class:`Middleware` that runs around the
requests a :class:`~oxmcp.fastmcp.FastMCP` server serves (``FastMCP(middleware=[...])``,
``mcp.add_middleware(...)``)."""

from .middleware import CallNext, Middleware, MiddlewareContext

__all__ = ["CallNext", "Middleware", "MiddlewareContext"]

"""FastMCP's ``fastmcp.server.middleware``: :class:`Middleware` that runs around the
requests a :class:`~oxmcp.fastmcp.FastMCP` server serves (``FastMCP(middleware=[...])``,
``mcp.add_middleware(...)``), and FastMCP's own that its package names."""

from .authorization import AuthMiddleware
from .middleware import CallNext, Middleware, MiddlewareContext
from .ping import PingMiddleware

__all__ = ["AuthMiddleware", "CallNext", "Middleware", "MiddlewareContext", "PingMiddleware"]

"""FastMCP's ``fastmcp.server.middleware.dereference``: schemas listed without ``$ref``."""

from __future__ import annotations

from .middleware import Middleware


class DereferenceRefsMiddleware(Middleware):
    """Lists tools' and templates' schemas with their definitions inlined, for clients that
    do not follow ``$ref``. A FastMCP server on oxmcp lists them so already (a recursive
    definition, which cannot be inlined, kept, as FastMCP keeps it): adding this changes
    nothing, and runs nothing."""


__all__ = ["DereferenceRefsMiddleware"]

"""FastMCP's ``fastmcp.server.middleware.authorization``: checks every component of a
server must pass."""

from __future__ import annotations

from typing import Any

from ..auth.auth import component_scopes
from .middleware import Middleware


class AuthMiddleware(Middleware):
    """The ``auth`` checks (:func:`~oxmcp.fastmcp.server.auth.require_scopes`,
    :func:`~oxmcp.fastmcp.server.auth.restrict_tag`, or a list of them) every tool,
    resource, template and prompt of the server must pass, as each one's own ``auth=``:
    their scopes are added to those of each component the server registers, which the core
    checks over HTTP with the server's ``auth`` (a caller without them gets ``403
    insufficient_scope``), and not over stdio, as FastMCP skips them there. Give it to the
    server before registering its components (``FastMCP(middleware=[AuthMiddleware(...)])``);
    other checks (functions) are refused."""

    def __init__(self, auth: Any) -> None:
        component_scopes(auth)
        self.auth = auth


__all__ = ["AuthMiddleware"]

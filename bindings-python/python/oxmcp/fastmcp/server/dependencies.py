"""FastMCP's ``fastmcp.server.dependencies``: what a handler reads of its request without
a ``ctx`` parameter."""

from __future__ import annotations

from ... import auth
from ...server._calling import native_context
from ...server.auth.provider import AccessToken
from .auth.auth import fastmcp_token


def get_access_token() -> AccessToken | None:
    """The verified token of the request whose handler runs (FastMCP's ``AccessToken``:
    ``token``, ``client_id``, ``scopes``, ``expires_at``, ``resource``, ``claims``), or
    None: outside a handler, over stdio, or on a server without ``auth``."""
    context = native_context.get()
    fields = None if context is None else context.access_token
    return None if fields is None else fastmcp_token(auth.AccessToken(**fields))


__all__ = ["get_access_token"]

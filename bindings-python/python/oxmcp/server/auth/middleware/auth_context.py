"""The official SDK's ``mcp.server.auth.middleware.auth_context``: the caller's verified
token, from within a handler of a server given ``token_verifier=`` and ``auth=``."""

from __future__ import annotations

from ..._calling import native_context
from ..provider import AccessToken

__all__ = ["get_access_token"]


def get_access_token() -> AccessToken | None:
    """The verified token of the request whose handler runs, or None: outside a handler,
    over stdio, or on a server that requires no token."""
    context = native_context()
    token = None if context is None else context.access_token
    if token is None:
        return None
    return AccessToken(
        token=token["token"],
        client_id=token.get("client_id") or "",
        scopes=token.get("scopes") or [],
        expires_at=token.get("expires_at"),
        resource=next(iter(token.get("audience") or []), None),
        subject=token.get("subject"),
        claims=token.get("claims") or {},
    )

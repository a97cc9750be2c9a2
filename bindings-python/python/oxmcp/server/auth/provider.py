"""The official SDK's ``mcp.server.auth.provider``, for a resource server: the verifier a
server is given (``token_verifier=``) and the token it answers."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

__all__ = ["AccessToken", "TokenVerifier"]


class AccessToken(BaseModel):
    """A token the verifier accepted: whose (``client_id``, ``subject``), what it grants
    (``scopes``), until when (``expires_at``, seconds since the epoch), for which resource
    (``resource``, RFC 8707), and its ``claims``."""

    token: str
    client_id: str
    scopes: list[str]
    expires_at: int | None = None
    resource: str | None = None
    subject: str | None = None
    claims: dict[str, Any] = Field(default_factory=dict)


@runtime_checkable
class TokenVerifier(Protocol):
    """Checks a bearer token: its :class:`AccessToken`, or None to refuse it."""

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's caller, or None."""
        ...

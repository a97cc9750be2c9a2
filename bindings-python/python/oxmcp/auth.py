"""Authorization for servers: an oxmcp server over HTTP as an OAuth 2.1 resource server.

>>> from oxmcp import Context, Server
>>> from oxmcp.auth import JWTVerifier
>>> verifier = JWTVerifier(jwks_uri="https://auth.example.com/jwks", issuer="https://auth.example.com")
>>> server = Server("notes", auth=verifier)
>>> @server.tool(scopes=["notes:write"])
... async def write_note(text: str, ctx: Context) -> str:
...     return f"saved for {ctx.access_token.subject}"

The verifiers check tokens in the Rust core; a verifier of your own is any object with
``async def verify(self, token: str) -> AccessToken | None`` (None refuses the token).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from . import _native

__all__ = ["AccessToken", "IntrospectionVerifier", "JWTVerifier", "TokenVerifier"]


@dataclass(frozen=True)
class AccessToken:
    """A verified access token: who the caller is (``subject``, ``client_id``,
    ``issuer``), what it may do (``scopes``), whom it is for (``audience``), when it
    expires (``expires_at``, seconds since the epoch), and every claim."""

    token: str
    subject: str | None = None
    client_id: str | None = None
    issuer: str | None = None
    scopes: list[str] = field(default_factory=list)
    audience: list[str] = field(default_factory=list)
    expires_at: int | None = None
    claims: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class TokenVerifier(Protocol):
    """Checks a token: the caller's :class:`AccessToken`, or None to refuse it (the client
    gets ``401 invalid_token``). An exception means the token could not be checked now
    (the client gets ``503``)."""

    def verify(self, token: str) -> Awaitable[AccessToken | None]: ...


class JWTVerifier:
    """JWT access tokens (RFC 9068) signed with a key of ``jwks_uri`` (RS256, PS256,
    ES256 or EdDSA), issued by ``issuer``, current within ``leeway`` seconds (default 30).
    Keys are cached and fetched again for a key id the cache lacks (at most every 30 s).
    The endpoint checks the audience against its resource URL; ``audience`` adds a check
    here. Verification runs in the Rust core, off the event loop."""

    def __init__(
        self, *, jwks_uri: str, issuer: str, audience: str | list[str] | None = None, leeway: float | None = None
    ) -> None:
        audiences = [audience] if isinstance(audience, str) else audience
        self._native = _native.JwtVerifier(jwks_uri, issuer, audiences, leeway)


class IntrospectionVerifier:
    """Tokens checked at the authorization server's introspection endpoint (RFC 7662), as
    the client ``client_id`` with ``client_secret`` (HTTP Basic, or in the form with
    ``client_secret_post=True``). Answers are reused, keyed by a hash of the token, until
    the token expires or ``cache_for`` seconds (default 300; 0 asks every time)."""

    def __init__(
        self,
        *,
        endpoint: str,
        client_id: str,
        client_secret: str,
        issuer: str | None = None,
        client_secret_post: bool = False,
        cache_for: float | None = None,
    ) -> None:
        self._native = _native.IntrospectionVerifier(
            endpoint, client_id, client_secret, issuer, client_secret_post, cache_for
        )


def native_verifier(verifier: TokenVerifier | JWTVerifier | IntrospectionVerifier) -> Any:
    """What the native server takes: a native verifier, or a callable answering the token's
    fields (or None) for a verifier written in Python."""
    if isinstance(verifier, (JWTVerifier, IntrospectionVerifier)):
        return verifier._native
    if not isinstance(verifier, TokenVerifier):
        raise TypeError(
            f"auth must be a JWTVerifier, an IntrospectionVerifier, or have verify(token), not {verifier!r}"
        )

    async def accepted(token: str) -> dict[str, Any] | None:
        answer = verifier.verify(token)
        token_or_none = await answer if inspect.isawaitable(answer) else answer
        return None if token_or_none is None else dataclasses.asdict(token_or_none)

    return accepted

"""FastMCP's ``fastmcp.server.auth.providers.jwt``: JWT access tokens, checked in the Rust
core with the keys of the issuer's JWKS, and static tokens for development."""

from __future__ import annotations

import time
from typing import Any

from .....auth import JWTVerifier as _JWTVerifier
from .....auth import Verifier
from .....server.auth.provider import AccessToken
from ..auth import TokenVerifier, fastmcp_token


class JWTVerifier(TokenVerifier):
    """JWTs issued by ``issuer``, signed by a key of ``jwks_uri`` (RS256, PS256, ES256 or
    EdDSA), meant for ``audience`` when given, granting ``required_scopes``. The issuer is
    the authorization server the protected resource metadata names. Not taken: a
    ``public_key`` (or shared secret) in place of a JWKS, and FastMCP's HTTP client
    options (``ssrf_safe``, ``http_client``, ``jwks_refresh_interval``: the core fetches
    the keys again for a key id it lacks, at most every 30 s)."""

    def __init__(
        self,
        public_key: str | bytes | None = None,
        jwks_uri: str | None = None,
        issuer: str | list[str] | None = None,
        audience: str | list[str] | None = None,
        algorithm: str | None = None,
        required_scopes: list[str] | None = None,
        base_url: str | None = None,
        ssrf_safe: bool = False,
        http_client: object | None = None,
        jwks_refresh_interval: float = 30.0,
    ) -> None:
        super().__init__(base_url=base_url, required_scopes=required_scopes)
        if public_key is not None or jwks_uri is None:
            raise ValueError("oxmcp checks JWTs with the keys of a JWKS: give jwks_uri (a public_key is not taken)")
        issuers = [issuer] if isinstance(issuer, str) else list(issuer or [])
        if len(issuers) != 1:
            raise ValueError("oxmcp's JWTVerifier takes one issuer: the authorization server its tokens come from")
        if algorithm is not None and algorithm.upper().startswith("HS"):
            raise ValueError(f"algorithm {algorithm}: oxmcp checks signatures with the JWKS' public keys only")
        if http_client is not None:
            raise ValueError("http_client is not taken: the core fetches the JWKS itself")
        self.jwks_uri = jwks_uri
        self.issuer = issuers[0]
        self.audience = audience
        self._jwt = _JWTVerifier(jwks_uri=jwks_uri, issuer=issuers[0], audience=audience)

    async def verify_token(self, token: str) -> AccessToken | None:
        verified = await self._jwt.verify(token)
        return None if verified is None else fastmcp_token(verified)

    def as_resource_server(self) -> tuple[Verifier, dict[str, Any]]:
        return self._jwt, self.http_options()


class StaticTokenVerifier(TokenVerifier):
    """Tokens listed up front, each with its ``client_id``, ``scopes`` and optional
    ``expires_at`` (seconds since the epoch) and ``sub``: for development and tests, never
    for production. A server with it names no authorization server: give one with
    :class:`~oxmcp.fastmcp.server.auth.RemoteAuthProvider` or the ``authorization_servers``
    HTTP option."""

    def __init__(self, tokens: dict[str, dict[str, Any]], required_scopes: list[str] | None = None) -> None:
        super().__init__(required_scopes=required_scopes)
        self.tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        data = self.tokens.get(token)
        if not data:
            return None
        expires_at = data.get("expires_at")
        if expires_at is not None and expires_at < time.time():
            return None
        scopes = list(data.get("scopes", []))
        if not set(self.required_scopes) <= set(scopes):
            return None
        return AccessToken(
            token=token,
            client_id=data["client_id"],
            scopes=scopes,
            expires_at=expires_at,
            subject=data.get("sub"),
            claims=data,
        )


__all__ = ["JWTVerifier", "StaticTokenVerifier"]

"""FastMCP's ``fastmcp.server.auth.providers.introspection``: opaque tokens checked at the
authorization server's introspection endpoint (RFC 7662), by the Rust core."""

from __future__ import annotations

from typing import Any, Literal

from .....auth import IntrospectionVerifier, OfficialVerifier, Verifier
from .....server.auth.provider import AccessToken
from ..auth import TokenVerifier, fastmcp_token


class IntrospectionTokenVerifier(TokenVerifier):
    """Tokens that ``introspection_url`` says are active, asked as the client ``client_id``
    with ``client_secret`` (HTTP Basic, or in the form with ``client_auth_method=
    "client_secret_post"``), granting ``required_scopes``, meant for ``audience`` when
    given. Answers are reused until the token expires or ``cache_ttl_seconds`` pass (FastMCP
    caches nothing unless told; the core's default is 300 s, ``0`` asks every time). Not
    taken: ``timeout_seconds`` (the core's HTTP client times out after 10 s), ``max_cache_size``
    and ``http_client`` (the core asks itself). A server with it alone names no
    authorization server: give one with
    :class:`~oxmcp.fastmcp.server.auth.RemoteAuthProvider` or the ``authorization_servers``
    HTTP option."""

    def __init__(
        self,
        *,
        introspection_url: str,
        client_id: str,
        client_secret: str | Any,
        client_auth_method: Literal["client_secret_basic", "client_secret_post"] = "client_secret_basic",
        timeout_seconds: int = 10,
        required_scopes: list[str] | None = None,
        audience: str | list[str] | None = None,
        base_url: str | None = None,
        cache_ttl_seconds: int | None = None,
        max_cache_size: int | None = None,
        http_client: object | None = None,
    ) -> None:
        super().__init__(base_url=base_url, required_scopes=required_scopes)
        if client_auth_method not in ("client_secret_basic", "client_secret_post"):
            raise ValueError(
                f"Invalid client_auth_method: {client_auth_method!r}. "
                "Must be 'client_secret_basic' or 'client_secret_post'."
            )
        if http_client is not None:
            raise ValueError("http_client is not taken: the core asks the introspection endpoint itself")
        secret = client_secret.get_secret_value() if hasattr(client_secret, "get_secret_value") else client_secret
        self.introspection_url = introspection_url
        self.client_id = client_id
        self.client_auth_method = client_auth_method
        self.audience = [audience] if isinstance(audience, str) else audience
        self._introspection = IntrospectionVerifier(
            endpoint=introspection_url,
            client_id=client_id,
            client_secret=str(secret),
            client_secret_post=client_auth_method == "client_secret_post",
            cache_for=cache_ttl_seconds,
        )

    async def verify_token(self, token: str) -> AccessToken | None:
        """The caller of an active token that grants the required scopes (and names the
        audience, when one is set), or None."""
        verified = await self._introspection.verify(token)
        if verified is None or not set(self.required_scopes) <= set(verified.scopes):
            return None
        if self.audience is not None and not set(self.audience) & set(verified.audience):
            return None
        return fastmcp_token(verified)

    def as_resource_server(self) -> tuple[Verifier, dict[str, Any]]:
        # The core checks tokens itself unless an audience is asked of them, which only
        # verify_token checks.
        verifier = self._introspection if self.audience is None else OfficialVerifier(self)
        return verifier, self.http_options()


__all__ = ["IntrospectionTokenVerifier"]

"""FastMCP's ``fastmcp.server.auth.auth``: the providers' base classes (see
:mod:`oxmcp.fastmcp.server.auth`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .... import _native
from .... import auth as oxmcp_auth
from ....auth import OfficialVerifier, Verifier
from ....server.auth.provider import AccessToken


class AuthProvider:
    """What verifies a server's tokens: ``verify_token(token)`` answers the caller's
    :class:`AccessToken`, or None to refuse it. ``base_url`` (or ``resource_base_url``) is
    the server's public URL, the endpoint's path after it; ``required_scopes`` every
    request's token must grant."""

    def __init__(
        self,
        base_url: str | None = None,
        required_scopes: list[str] | None = None,
        resource_base_url: str | None = None,
    ) -> None:
        self.base_url = None if base_url is None else str(base_url)
        self.resource_base_url = None if resource_base_url is None else str(resource_base_url)
        self.required_scopes = list(required_scopes or [])

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's caller, or None."""
        raise NotImplementedError("Subclasses must implement verify_token")

    def as_resource_server(self) -> tuple[Verifier, dict[str, Any]]:
        """oxmcp's verifier of these tokens, and the HTTP options the provider names."""
        return OfficialVerifier(self), self.http_options()

    def http_options(self) -> dict[str, Any]:
        """The endpoint's resource URL (when the provider knows the public one) and
        required scopes; the token's audience is the provider's to check."""
        options: dict[str, Any] = {"required_scopes": self.required_scopes, "check_audience": False}
        public = self.resource_base_url or self.base_url
        if public is not None:
            # The endpoint's path unless told otherwise: the core's, which is FastMCP's too.
            options["resource_url"] = public.rstrip("/") + _native.HttpConfig().path
        return options


class TokenVerifier(AuthProvider):
    """A provider that only verifies tokens (a resource server's)."""


class RemoteAuthProvider(AuthProvider):
    """``token_verifier`` with the ``authorization_servers`` that issue its tokens, which
    the protected resource metadata names (``scopes_supported``, ``resource_name``,
    ``resource_documentation`` and ``challenge_scopes`` are FastMCP's metadata details:
    oxmcp's metadata names the scopes the server's definitions declare)."""

    def __init__(
        self,
        token_verifier: AuthProvider,
        authorization_servers: list[Any],
        base_url: str,
        scopes_supported: list[str] | None = None,
        resource_base_url: str | None = None,
        resource_name: str | None = None,
        resource_documentation: str | None = None,
        challenge_scopes: list[str] | None = None,
        required_scopes: list[str] | None = None,
    ) -> None:
        super().__init__(
            base_url=base_url,
            resource_base_url=resource_base_url,
            required_scopes=token_verifier.required_scopes if required_scopes is None else required_scopes,
        )
        self.token_verifier = token_verifier
        self.authorization_servers = [str(server) for server in authorization_servers]
        self.scopes_supported = scopes_supported
        self.resource_name = resource_name
        self.resource_documentation = resource_documentation
        self.challenge_scopes = challenge_scopes

    async def verify_token(self, token: str) -> AccessToken | None:
        return await self.token_verifier.verify_token(token)

    def as_resource_server(self) -> tuple[Verifier, dict[str, Any]]:
        verifier, _ = self.token_verifier.as_resource_server()
        return verifier, {**self.http_options(), "authorization_servers": self.authorization_servers}


@dataclass(frozen=True)
class RequireScopes:
    """A component's ``auth`` that needs every scope of ``scopes`` (:func:`require_scopes`)."""

    scopes: tuple[str, ...]


def require_scopes(*scopes: str) -> RequireScopes:
    """FastMCP's check that the caller's token grants every one of ``scopes``, for a tool's,
    resource's or prompt's ``auth=``: they become the component's scopes, which the core
    checks. A caller without them gets ``403 insufficient_scope`` naming them (so that the
    client can step up) where FastMCP answers that the component does not exist; lists
    leave the component out only with the ``list_only_permitted`` HTTP option."""
    return RequireScopes(scopes)


@dataclass(frozen=True)
class RestrictTag:
    """An ``auth`` check that needs every scope of ``scopes`` for the components tagged
    ``tag`` (:func:`restrict_tag`)."""

    tag: str
    scopes: tuple[str, ...]


def restrict_tag(tag: str, *, scopes: list[str]) -> RestrictTag:
    """FastMCP's check that a component tagged ``tag`` is reached only with every one of
    ``scopes`` (mostly given to ``AuthMiddleware``): the scopes of each component so tagged,
    as :func:`require_scopes` makes them."""
    return RestrictTag(tag, tuple(scopes))


def component_scopes(auth: object, tags: Iterable[str] = ()) -> list[str]:
    """The scopes ``auth`` (a check, or a list of checks and lists) asks of a component
    tagged ``tags``: a :func:`require_scopes`'s, a :func:`restrict_tag`'s where the tag is
    among them. FastMCP's other checks (a function, ``require_roles``) are refused: the
    core checks scopes, not code."""
    needed: set[str] = set()
    for check in auth if isinstance(auth, list) else [auth]:
        if isinstance(check, list):
            needed.update(component_scopes(check, tags))
        elif isinstance(check, RequireScopes):
            needed.update(check.scopes)
        elif isinstance(check, RestrictTag):
            needed.update(check.scopes if check.tag in tags else ())
        else:
            raise TypeError("oxmcp takes require_scopes(...) and restrict_tag(...) checks as auth, no other check")
    return sorted(needed)


def fastmcp_token(token: oxmcp_auth.AccessToken) -> AccessToken:
    """oxmcp's token as FastMCP gives it: the resource is the audience's first, and a
    token that names no client names its subject."""
    return AccessToken(
        token=token.token,
        client_id=token.client_id or token.subject or "",
        scopes=token.scopes,
        expires_at=token.expires_at,
        resource=token.audience[0] if token.audience else None,
        subject=token.subject,
        claims=token.claims,
    )


__all__ = ["AccessToken", "AuthProvider", "RemoteAuthProvider", "TokenVerifier", "require_scopes", "restrict_tag"]

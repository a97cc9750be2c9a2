"""Authorization: an oxmcp server over HTTP as an OAuth 2.1 resource server, and the OAuth
client that connects to protected servers (:class:`OAuth`).

>>> from oxmcp import Context, Server
>>> from oxmcp.auth import JWTVerifier
>>> verifier = JWTVerifier(jwks_uri="https://auth.example.com/jwks", issuer="https://auth.example.com")
>>> server = Server("notes", auth=verifier)
>>> @server.tool(scopes=["notes:write"])
... async def write_note(text: str, ctx: Context) -> str:
...     return f"saved for {ctx.access_token.subject}"

The verifiers check tokens in the Rust core; a verifier of your own is any object with
``async def verify(self, token: str) -> AccessToken | None`` (None refuses the token).

A client signs in with ``Client.http(url, auth=OAuth("My agent"))``: the first ``401``
opens the system browser, and the redirect comes back to a listener on 127.0.0.1.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from . import _native

__all__ = [
    "AccessToken",
    "AssertionTarget",
    "IntrospectionVerifier",
    "JWTVerifier",
    "OAuth",
    "TokenStorage",
    "TokenVerifier",
    "request_id_jag",
]


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


class _CoreVerifier:
    """A verifier of the Rust core's, which a server hands the core as it is."""

    _native: _native.JwtVerifier | _native.IntrospectionVerifier

    async def verify(self, token: str) -> AccessToken | None:
        """Checks ``token`` as the server does (but for the endpoint's audience check): its
        :class:`AccessToken`, or None when refused; ``OSError`` when it cannot be checked
        now (the keys or the introspection endpoint did not answer)."""
        fields = await self._native.verify(token)
        return None if fields is None else AccessToken(**fields)


class JWTVerifier(_CoreVerifier):
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


class IntrospectionVerifier(_CoreVerifier):
    """Tokens checked at the authorization server's introspection endpoint (RFC 7662), as
    the client ``client_id`` with ``client_secret`` (HTTP Basic, or in the form with
    ``client_secret_post=True``). The server reuses an answer, keyed by the token, until
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


@dataclass(frozen=True)
class AssertionTarget:
    """What a JWT bearer grant's assertion is for: the authorization server ``issuer`` (the
    assertion's audience), the MCP server's ``resource``, the ``scope`` asked for."""

    issuer: str
    resource: str
    scope: str | None = None


@runtime_checkable
class TokenStorage(Protocol):
    """Where an :class:`OAuth` client keeps its tokens (a keyring, an encrypted file): one
    opaque text, loaded and saved whole. Either method may be sync or async."""

    def load(self) -> str | Awaitable[str | None] | None:
        """The text the last :meth:`save` kept, or None."""
        ...

    def save(self, tokens: str | None) -> Awaitable[None] | None:
        """Keeps ``tokens`` (None: forget them)."""
        ...


def _open_in_browser(url: str) -> bool:
    """:func:`webbrowser.open`, imported when a sign-in needs it: importing it costs a server's start-up."""
    import webbrowser

    return webbrowser.open(url)


class OAuth:
    """An OAuth 2.1 client for one MCP server, for ``Client.http(url, auth=OAuth(...))``.

    When the server refuses a request (``401``, or ``403 insufficient_scope`` for a step
    up), the client finds the server's authorization server (RFC 9728, RFC 8414),
    registers (dynamically, by a client ID metadata document at ``client_metadata_url``,
    or as the pre-registered ``client_id`` of ``issuer``), runs the authorization code
    grant with PKCE, keeps the tokens, refreshes them when they expire, and sends the
    request again. All of it runs in the Rust core.

    The user signs in through the system browser (``open_browser``, default
    :func:`webbrowser.open`) and comes back to a listener on 127.0.0.1 (``loopback_port``,
    default any free port). An app that takes the user there itself (an embedded browser,
    a device flow of its own) gives ``authorize``: called with the authorization URL, it
    returns the URL the browser came back to at ``redirect_uri``.

    Tokens live in memory, in ``token_file`` (readable by the user alone), or in the app's
    own ``storage`` (a :class:`TokenStorage`), to stay signed in across runs; the client a
    sign-in registered is kept with them, so that a later run refreshes them. ``dpop=True``
    binds them to a fresh key (RFC 9449) where the authorization server supports it. One
    object serves one MCP server: clients made with it share its tokens. A machine client
    uses :meth:`client_credentials`."""

    __slots__ = ("_native",)

    def __init__(
        self,
        client_name: str = "oxmcp",
        *,
        authorize: Callable[[str], str | Awaitable[str]] | None = None,
        redirect_uri: str | None = None,
        open_browser: Callable[[str], object] | None = None,
        loopback_port: int = 0,
        issuer: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        client_metadata_url: str | None = None,
        token_file: str | os.PathLike[str] | None = None,
        storage: TokenStorage | None = None,
        dpop: bool = False,
    ) -> None:
        self._native = _native.OAuth(
            "authorization_code",
            client_name,
            authorize=authorize,
            redirect_uri=redirect_uri,
            open_browser=None if authorize else (open_browser or _open_in_browser),
            loopback_port=loopback_port,
            issuer=issuer,
            client_id=client_id,
            client_secret=client_secret,
            client_metadata_url=client_metadata_url,
            token_file=token_file,
            storage=storage,
            dpop=dpop,
        )

    @classmethod
    def client_credentials(
        cls,
        *,
        issuer: str,
        client_id: str,
        client_secret: str | None = None,
        private_key_pem: str | None = None,
        token_file: str | os.PathLike[str] | None = None,
        storage: TokenStorage | None = None,
        dpop: bool = False,
    ) -> OAuth:
        """A machine client: the client credentials grant of ``client_id``, registered with
        the authorization server ``issuer`` (its credentials are sent to no other). It
        authenticates with ``client_secret``, or with a JWT signed by ``private_key_pem``
        (PKCS#8: ``private_key_jwt``)."""
        return cls._machine(
            "client_credentials",
            issuer=issuer,
            client_id=client_id,
            client_secret=client_secret,
            private_key_pem=private_key_pem,
            token_file=token_file,
            storage=storage,
            dpop=dpop,
        )

    @classmethod
    def jwt_bearer(
        cls,
        *,
        issuer: str,
        client_id: str,
        assertion: Callable[[AssertionTarget], str | Awaitable[str]],
        client_secret: str | None = None,
        private_key_pem: str | None = None,
        token_file: str | os.PathLike[str] | None = None,
        storage: TokenStorage | None = None,
        dpop: bool = False,
    ) -> OAuth:
        """A workload or an enterprise-managed app: the JWT bearer grant (RFC 7523) of
        ``client_id``, registered with ``issuer``, presenting what ``assertion(target)``
        gives (a workload identity token, or an ID-JAG from :func:`request_id_jag`)."""

        async def made(target: dict[str, Any]) -> str:
            answer = assertion(AssertionTarget(**target))
            return await answer if inspect.isawaitable(answer) else answer

        return cls._machine(
            "jwt_bearer",
            issuer=issuer,
            client_id=client_id,
            client_secret=client_secret,
            private_key_pem=private_key_pem,
            assertion=made,
            token_file=token_file,
            storage=storage,
            dpop=dpop,
        )

    @classmethod
    def _machine(cls, grant: str, *, client_id: str, **settings: Any) -> OAuth:
        oauth = cls.__new__(cls)
        oauth._native = _native.OAuth(grant, client_id, client_id=client_id, **settings)
        return oauth

    @property
    def redirect_uri(self) -> str | None:
        """Where the browser comes back to (the loopback listener's URI by default)."""
        return self._native.redirect_uri

    def __repr__(self) -> str:
        return f"OAuth(redirect_uri={self.redirect_uri!r})"


async def request_id_jag(
    *, token_endpoint: str, client_id: str, id_token: str, target: AssertionTarget, client_secret: str | None = None
) -> str:
    """An ID-JAG for ``target`` from the identity provider's ``token_endpoint`` (token
    exchange of the user's ``id_token``, as the IdP's client ``client_id``): the assertion
    of enterprise-managed authorization, for :meth:`OAuth.jwt_bearer`."""
    return await _native.request_id_jag(
        token_endpoint, client_id, id_token, target.issuer, target.resource, target.scope, client_secret
    )


class OfficialVerifier:
    """A verifier written for the official SDK or FastMCP: ``async verify_token(token)``
    answering the SDK's ``AccessToken`` (``token``, ``client_id``, ``scopes``,
    ``expires_at``, ``resource``, and FastMCP's ``subject`` and ``claims``) or None, as
    oxmcp's :class:`TokenVerifier`. The token is kept as the verifier gave it: its
    ``resource`` is its audience."""

    def __init__(self, token_verifier: Any) -> None:
        self._verifier = token_verifier

    async def verify(self, token: str) -> AccessToken | None:
        official = await self._verifier.verify_token(token)
        if official is None:
            return None
        resource = getattr(official, "resource", None)
        return AccessToken(
            token=official.token,
            subject=getattr(official, "subject", None),
            client_id=official.client_id,
            scopes=list(official.scopes),
            audience=[str(resource)] if resource is not None else [],
            expires_at=official.expires_at,
            claims=dict(getattr(official, "claims", None) or {}),
        )


#: What checks a server's tokens: one of oxmcp's verifiers, or one written in Python.
Verifier = TokenVerifier | JWTVerifier | IntrospectionVerifier


@runtime_checkable
class ResourceServerAuth(Protocol):
    """A server's ``auth`` that brings its verifier and the HTTP options it implies (the
    resource URL, the authorization servers, the scopes every request needs): FastMCP's
    providers (:mod:`oxmcp.fastmcp.server.auth`)."""

    def as_resource_server(self) -> tuple[Verifier, dict[str, Any]]: ...


def resource_server(auth: Any, token_verifier: Any) -> tuple[Verifier | None, dict[str, Any]]:
    """The verifier of a server's ``auth`` and the HTTP options it implies (their
    defaults): oxmcp's own verifier (no options), a :class:`ResourceServerAuth`, or the official
    SDK's ``token_verifier`` with its ``AuthSettings`` (``issuer_url``,
    ``resource_server_url``, ``required_scopes``, ``validate_token_resource``: a token must
    name the resource only when that says so, as there)."""
    if token_verifier is None:
        if auth is not None and hasattr(auth, "resource_server_url"):
            raise ValueError(
                "auth settings need a token_verifier (an authorization server of the server's own is not supported)"
            )
        if isinstance(auth, ResourceServerAuth):
            return auth.as_resource_server()
        return typing.cast("Verifier | None", auth), {}
    if auth is None:
        raise ValueError("Cannot specify auth_server_provider or token_verifier without auth settings")
    if getattr(auth, "resource_server_url", None) is None:
        raise ValueError("auth needs its resource_server_url: the URL tokens are meant for")
    return OfficialVerifier(token_verifier), {
        "resource_url": str(auth.resource_server_url),
        "authorization_servers": [str(auth.issuer_url)],
        "required_scopes": list(getattr(auth, "required_scopes", None) or []),
        "check_audience": bool(getattr(auth, "validate_token_resource", False)),
    }


def native_verifier(verifier: Verifier) -> Any:
    """What the native server takes: a native verifier, or a callable answering the token's
    fields (or None) for a verifier written in Python."""
    if isinstance(verifier, _CoreVerifier):
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

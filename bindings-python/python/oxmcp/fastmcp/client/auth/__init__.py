"""FastMCP's ``fastmcp.client.auth``: how a :class:`~oxmcp.fastmcp.Client` signs in to a
protected server, given as its ``auth`` (or its HTTP transport's). Each is oxmcp's
:class:`~oxmcp.auth.OAuth` (the core's OAuth client) or a bearer token under FastMCP's
name; the ``mcp_url`` they take is the client's URL, as there.

Where they answer otherwise: the core asks for the scopes the server's challenge or its
protected resource metadata name, and steps up when a call needs more (``scopes`` is not
sent); it picks how to authenticate at the token endpoint from the
authorization server's metadata (``token_endpoint_auth_method`` is not read); tokens
are kept in memory unless the oxmcp keywords ``token_file`` or ``storage`` are given
(FastMCP's ``token_storage``, a key-value store, is refused, as are
``additional_client_metadata`` and ``httpx_client_factory``); the browser has the core's
time to come back (``callback_timeout`` is not read); and a client's own credentials go
only to the authorization server ``issuer`` names."""

from __future__ import annotations

import os
from typing import Any, Literal

from ....auth import OAuth as _OAuth
from ....auth import TokenStorage


class BearerAuth:
    """A bearer token sent with every request."""

    def __init__(self, token: str) -> None:
        self.token = token


class OAuth(_OAuth):
    """FastMCP's ``OAuth``: the authorization code grant with PKCE, the user signing in
    through the system browser and coming back to a listener on ``callback_host`` (a
    loopback name) at ``callback_port`` (any free port when None). The client registers
    dynamically, by its ``client_metadata_url``, or as the pre-registered ``client_id``
    (and ``client_secret``) of ``issuer``."""

    def __init__(
        self,
        mcp_url: str | None = None,
        scopes: str | list[str] | None = None,
        client_name: str = "FastMCP Client",
        token_storage: object | None = None,
        additional_client_metadata: dict[str, Any] | None = None,
        callback_port: int | None = None,
        callback_host: str = "localhost",
        callback_timeout: float = 300.0,
        httpx_client_factory: object | None = None,
        client_metadata_url: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        issuer: str | None = None,
        *,
        token_file: str | os.PathLike[str] | None = None,
        storage: TokenStorage | None = None,
    ) -> None:
        _refuse(
            token_storage=token_storage,
            additional_client_metadata=additional_client_metadata,
            httpx_client_factory=httpx_client_factory,
        )
        if callback_host not in ("localhost", "127.0.0.1"):
            raise ValueError(f"callback_host {callback_host!r}: oxmcp listens for the sign-in on 127.0.0.1 only")
        super().__init__(
            client_name,
            loopback_port=callback_port or 0,
            issuer=issuer,
            client_id=client_id,
            client_secret=client_secret,
            client_metadata_url=client_metadata_url,
            token_file=token_file,
            storage=storage,
        )


class ClientCredentialsOAuthProvider(_OAuth):
    """FastMCP's machine client: the client credentials grant of the pre-registered
    ``client_id`` with its ``client_secret``. ``issuer``, the authorization server it is
    registered with, is required: oxmcp sends client credentials to no other (FastMCP
    would send them to whichever server the MCP server names)."""

    def __init__(
        self,
        mcp_url: str | None = None,
        *,
        client_id: str,
        client_secret: str,
        scopes: str | list[str] | None = None,
        token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post"] = "client_secret_basic",
        issuer: str | None = None,
        token_storage: object | None = None,
        token_file: str | os.PathLike[str] | None = None,
        storage: TokenStorage | None = None,
    ) -> None:
        _refuse(token_storage=token_storage)
        if issuer is None:
            raise ValueError(
                "ClientCredentialsOAuthProvider needs issuer=: the authorization server the client is"
                " registered with (oxmcp sends client credentials to no other)"
            )
        self._native = _OAuth.client_credentials(
            issuer=issuer, client_id=client_id, client_secret=client_secret, token_file=token_file, storage=storage
        )._native


def http_auth(auth: object) -> dict[str, Any]:
    """The keywords of :meth:`oxmcp.Client.http` a FastMCP ``auth`` gives: a token (a
    string or :class:`BearerAuth`), ``"oauth"`` (:class:`OAuth` with its defaults), or an
    OAuth client."""
    if auth is None:
        return {}
    if auth == "oauth":
        return {"auth": OAuth()}
    if isinstance(auth, str):
        return {"bearer_token": auth}
    if isinstance(auth, BearerAuth):
        return {"bearer_token": auth.token}
    if isinstance(auth, _OAuth):
        return {"auth": auth}
    raise TypeError(f"auth must be a token, 'oauth', BearerAuth, OAuth or ClientCredentialsOAuthProvider, not {auth!r}")


def _refuse(**given: object) -> None:
    """Refuses FastMCP's options oxmcp does not take, naming them."""
    for name, value in given.items():
        if value is not None:
            raise ValueError(f"{name} is not supported by oxmcp's OAuth client (see oxmcp.auth.OAuth)")


__all__ = ["BearerAuth", "ClientCredentialsOAuthProvider", "OAuth"]

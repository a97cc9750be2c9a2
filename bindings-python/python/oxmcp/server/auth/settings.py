"""The official SDK's ``mcp.server.auth.settings``: what a resource server says of itself."""

from __future__ import annotations

from pydantic import AnyHttpUrl, BaseModel, ConfigDict

__all__ = ["AuthSettings"]


class AuthSettings(BaseModel):
    """A resource server's settings: the authorization server clients get tokens from
    (``issuer_url``), the URL tokens are meant for (``resource_server_url``), the scopes
    every request's token must grant (``required_scopes``), and whether a token must name
    that URL as its ``resource`` (``validate_token_resource``; not asked unless true).
    The settings of an authorization server of the server's own are refused."""

    model_config = ConfigDict(extra="forbid")

    issuer_url: AnyHttpUrl
    resource_server_url: AnyHttpUrl | None
    service_documentation_url: AnyHttpUrl | None = None
    required_scopes: list[str] | None = None
    validate_token_resource: bool | None = None

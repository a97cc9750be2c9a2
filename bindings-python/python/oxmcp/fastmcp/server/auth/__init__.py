"""FastMCP's ``fastmcp.server.auth``: a FastMCP server as an OAuth resource server, given
as ``FastMCP(auth=...)``. A provider verifies tokens (``verify_token``) and names what the
endpoint advertises: the resource URL (``base_url`` and the endpoint's path, ``/mcp``), the
authorization servers (:class:`RemoteAuthProvider`) and the scopes every request needs.
The core checks each request's token with it (JWTs in Rust, :mod:`.providers.jwt`), serves
the protected resource metadata and refuses as the MCP spec says (``401`` with a challenge,
``403 insufficient_scope``).

Where it answers otherwise: the metadata is served for every provider, as the MCP spec asks,
so a server's provider must name an authorization server (a :class:`RemoteAuthProvider`,
or a :class:`~.providers.jwt.JWTVerifier`, whose issuer is one); a token names its resource
only when the provider checks it (the JWT's ``audience``), as there. Not there: FastMCP's
authorization servers of the server's own (``OAuthProvider``, ``OAuthProxy``); of the
component ``auth=`` checks (and ``AuthMiddleware``'s), only :func:`require_scopes` and
:func:`restrict_tag`, whose scopes the core checks (a caller without them gets ``403
insufficient_scope`` rather than "not found")."""

from ....server.auth.provider import AccessToken
from .auth import AuthProvider, RemoteAuthProvider, TokenVerifier, require_scopes, restrict_tag
from .providers.jwt import JWTVerifier, StaticTokenVerifier

__all__ = [
    "AccessToken",
    "AuthProvider",
    "JWTVerifier",
    "RemoteAuthProvider",
    "StaticTokenVerifier",
    "TokenVerifier",
    "require_scopes",
    "restrict_tag",
]

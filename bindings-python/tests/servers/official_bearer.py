"""A server written for the official SDK as an OAuth protected resource (its
`token_verifier` and `AuthSettings`, as its `oauth_server` snippet), served as an ASGI app:
`tests/test_dropin.py` serves it as published and with its import changed to oxmcp, and
compares what callers with and without tokens get."""

import time

from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from pydantic import AnyHttpUrl

#: The tokens the verifier knows, and their scopes.
TOKENS = {"alice-token": ["user", "notes"], "bob-token": ["notes"]}


class Verifier(TokenVerifier):
    async def verify_token(self, token: str) -> AccessToken | None:
        scopes = TOKENS.get(token)
        if scopes is None:
            return None
        client = token.removesuffix("-token")
        return AccessToken(token=token, client_id=client, scopes=scopes, expires_at=int(time.time()) + 3600)


mcp = MCPServer(
    "Notes",
    token_verifier=Verifier(),
    auth=AuthSettings(
        issuer_url=AnyHttpUrl("https://auth.example.com"),
        resource_server_url=AnyHttpUrl("http://127.0.0.1:8000/mcp"),
        required_scopes=["user"],
        validate_token_resource=False,
    ),
)


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@mcp.tool()
def tenant(ctx: Context) -> str:
    """The tenant the caller's request names in its headers."""
    request = ctx.request_context.request
    return f"{ctx.headers.get('x-tenant')} / {request.headers.get('X-Tenant')}"


app = mcp.streamable_http_app()

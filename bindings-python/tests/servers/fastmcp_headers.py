"""A server written the way FastMCP's users read the HTTP request a call came in:
`get_http_headers()` (credentials left out unless asked for), `get_http_request()` (its
headers, URL, client address, query and cookies) and the `CurrentHeaders()` dependency,
served as an ASGI app: `tests/test_dropin.py` serves it as published and with its imports
changed, and compares what a client sending headers gets."""

from fastmcp import FastMCP
from fastmcp.dependencies import CurrentHeaders
from fastmcp.server.dependencies import get_http_headers, get_http_request

mcp = FastMCP("Headers")


@mcp.tool
def forwarded() -> dict[str, str]:
    """The headers a tool would forward: FastMCP leaves credentials and the connection's out."""
    headers = get_http_headers()
    return {name: value for name, value in headers.items() if name.startswith("x-")}


@mcp.tool
def with_credentials() -> str:
    headers = get_http_headers(include={"authorization"})
    return f"{headers.get('authorization')} for {get_http_request().headers.get('X-Tenant')}"


@mcp.tool
def origin() -> dict[str, str | None]:
    """Where the call came from, as FastMCP's documentation reads it off the request."""
    request = get_http_request()
    return {
        "client": request.client.host if request.client else "unknown",
        "path": request.url.path,
        "host": request.url.hostname,
        "url": str(request.url).removeprefix(f"{request.url.scheme}://{request.url.netloc}"),
        "method": request.method,
        "via": request.query_params.get("via"),
        "session": request.cookies.get("session"),
    }


@mcp.tool
def injected(headers: dict[str, str] = CurrentHeaders()) -> str:
    return f"{headers.get('x-tenant')} with {headers.get('authorization')}"


app = mcp.http_app()

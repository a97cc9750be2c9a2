"""A server written with FastMCP's own middleware: failures answered by what the tool
raised, passing failures retried, and long results cut short."""

from fastmcp import FastMCP
from fastmcp.server.middleware.error_handling import ErrorHandlingMiddleware, RetryMiddleware
from fastmcp.server.middleware.response_limiting import ResponseLimitingMiddleware

attempts = {"flaky": 0}
mcp = FastMCP(
    "Middleware",
    middleware=[
        ErrorHandlingMiddleware(),
        RetryMiddleware(max_retries=2, base_delay=0.01),
        ResponseLimitingMiddleware(max_size=300, tools=["long", "rows", "short"]),
    ],
)


@mcp.tool
def bad(x: int) -> int:
    """Refuses what it is given."""
    raise ValueError(f"{x} is odd")


@mcp.tool
def missing() -> str:
    """Looks for a file that is not there."""
    raise FileNotFoundError("no such file")


@mcp.tool
def flaky() -> str:
    """Works the third time."""
    attempts["flaky"] += 1
    if attempts["flaky"] < 3:
        raise ConnectionError(f"try {attempts['flaky']}")
    return f"worked after {attempts['flaky']}"


@mcp.tool
def down() -> str:
    """Never works."""
    raise ConnectionError("always down")


@mcp.tool
def long() -> str:
    """Too much text."""
    return "é" * 400


@mcp.tool
def rows() -> dict[str, list[int]]:
    """Too much data."""
    return {"rows": list(range(200))}


@mcp.tool
def short() -> str:
    """Little text."""
    return "short"


if __name__ == "__main__":
    mcp.run()

"""A server with HTTP routes of its own beside its endpoint (`@mcp.custom_route`: a health
check, a route with a path parameter), run over HTTP as FastMCP's documentation runs it:
`mcp.run(transport="http")`, or with `--async`, `await mcp.run_async(...)` in a loop of its
own."""

import asyncio
import sys

from fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse

mcp = FastMCP("Routes")


@mcp.tool
def add(a: int, b: int) -> int:
    return a + b


@mcp.custom_route("/health", methods=["GET"])
async def health(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


@mcp.custom_route("/echo/{word}", methods=["POST"])
async def echo(request: Request) -> PlainTextResponse:
    return PlainTextResponse(request.path_params["word"] + (await request.body()).decode())


if __name__ == "__main__":
    if "--async" in sys.argv:
        asyncio.run(mcp.run_async(transport="http", port=0))
    else:
        mcp.run(transport="http", port=0)

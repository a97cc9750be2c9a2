"""A server written with the official `mcp` package, for the oxmcp client to drive: over
stdio, or with ``--http`` over Streamable HTTP on a free port of 127.0.0.1 (its URL on
stderr)."""

from __future__ import annotations

import contextlib
import socket
import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer("official-demo", instructions="Written with the official SDK.")


class Sum(BaseModel):
    total: int


@server.tool()
def add(a: int, b: int) -> Sum:
    """Add two integers."""
    return Sum(total=a + b)


@server.tool()
def echo(text: str) -> str:
    """Send the text back."""
    return text


@server.tool()
def fail() -> str:
    """Always fails."""
    raise ValueError("it failed")


@server.tool()
async def slow(steps: int, ctx: Context) -> str:
    """Reports progress."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"done after {steps} steps"


@server.resource("greeting://{name}")
def greeting(name: str) -> str:
    """A greeting."""
    return f"Hello, {name}!"


@server.resource("file:///notes.txt", mime_type="text/plain")
def notes() -> str:
    """Some notes."""
    return "remember the milk"


@server.prompt()
def review(code: str) -> str:
    """Review code."""
    return f"Please review:\n{code}"


def serve_http() -> None:
    """Serves the official SDK's Streamable HTTP app with uvicorn on a socket listening
    before the URL is told, so that clients can connect at once."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    print(f"official server at http://127.0.0.1:{listener.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    # uvicorn stops on Ctrl-C, then raises it again.
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[listener])


if __name__ == "__main__":
    if "--http" in sys.argv[1:]:
        serve_http()
    else:
        server.run()

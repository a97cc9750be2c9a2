"""A server written with the official `mcp` package, for the oxmcp client to drive."""

from __future__ import annotations

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


if __name__ == "__main__":
    server.run()

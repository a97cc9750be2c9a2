"""One replica of a server that runs behind a load balancer: its state is shared through the
Redis that ``OXMCP_STORE`` names, or its ``requestState`` sealed with the secret that
``REPLICA_SECRET`` holds. ``python replica.py`` serves Streamable HTTP on a free port
of 127.0.0.1 and tells its URL on stderr; each answer says which replica (process) gave it."""

from __future__ import annotations

import asyncio
import os

from oxmcp import Context, Server
from oxmcp.server.request_state import RequestStateSecurity

SECRET = os.environ.get("REPLICA_SECRET")
server = Server(
    "replica",
    task_poll_interval=0.05,
    request_state_security=RequestStateSecurity(keys=[SECRET], ttl=60) if SECRET else None,
)
REPLICA = str(os.getpid())


@server.tool()
def whoami() -> str:
    """Which replica answers."""
    return REPLICA


@server.tool()
async def confirm(ctx: Context) -> str:
    """Asks the user; says which replica heard the answer."""
    answer = await ctx.elicit("Sure?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
    return f"{'confirmed' if (answer.data or {}).get('ok') else 'declined'} by {REPLICA}"


@server.tool(task="optional")
async def sleep(seconds: float) -> str:
    """Sleeps as a task."""
    await asyncio.sleep(seconds)
    return f"slept {seconds} s on {REPLICA}"


@server.tool()
async def nap(seconds: float) -> str:
    """Sleeps in place (never as a task)."""
    await asyncio.sleep(seconds)
    return REPLICA


@server.tool()
async def count(ctx: Context) -> str:
    """Reports progress ten times, slowly, then says which replica counted."""
    for step in range(1, 11):
        await ctx.progress(step, 10)
        await asyncio.sleep(0.05)
    return f"counted by {REPLICA}"


@server.resource("memo://board")
def board() -> str:
    """A board that any replica may change."""
    return "the board"


@server.tool()
def touch() -> str:
    """Says the board changed: subscribers on every replica are told."""
    server.notify_resource_updated("memo://board")
    return REPLICA


if __name__ == "__main__":
    server.run(transport="http", port=0)

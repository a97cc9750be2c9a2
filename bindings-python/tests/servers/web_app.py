"""A FastAPI app with routes of its own and an oxmcp server mounted at ``/tools`` (its
endpoint at ``/tools/mcp``), as a user adds MCP to an existing web app. Run it with
``uvicorn web_app:app --app-dir bindings-python/tests/servers``.

The server's lifespan writes ``up`` and ``down`` to the file ``OXMCP_LIFESPAN_LOG`` names,
so that a test sees it entered and left with the app's.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator

from fastapi import FastAPI

from oxmcp import Context, Server

cancelled: list[str] = []


def note(event: str) -> None:
    with open(os.environ["OXMCP_LIFESPAN_LOG"], "a") as log:
        log.write(event + "\n")


@contextlib.asynccontextmanager
async def lifespan(server: Server) -> AsyncIterator[dict[str, str]]:
    note("up")
    try:
        yield {"greeting": "hello"}
    finally:
        note("down")


server = Server("web-app", lifespan=lifespan)


@server.tool()
async def greet(name: str, ctx: Context) -> str:
    """Greets someone, telling of its progress."""
    await ctx.info(f"greeting {name}")
    await ctx.report_progress(1, 2, "halfway")
    return f"{ctx.request_context.lifespan_context['greeting']}, {name}"


@server.tool()
async def wait(name: str) -> str:
    """Waits until cancelled; records the cancellation under `name`."""
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        cancelled.append(name)
        raise
    return "never"


@server.tool()
def cancellations() -> list[str]:
    """The waits cancelled so far."""
    return cancelled


mcp_app = server.http_app(path="/mcp", body_limit=64 * 1024)
app = FastAPI(lifespan=mcp_app.lifespan)


@app.get("/health")
def health() -> dict[str, bool]:
    return {"ok": True}


app.mount("/tools", mcp_app)

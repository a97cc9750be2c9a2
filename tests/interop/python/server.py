"""The MCP server written with the official Python SDK (`mcp`, pinned in the Makefile; `make peers`
installs it into .venv) that oxmcp's clients are tested against: the Rust client
(core/tests/http_client.rs) and the Python binding's (bindings-python/tests/test_interop.py).

    python server.py                       # stdio
    python server.py --http [--json-response] [--stateless] [--event-store] [--port N]
    python server.py --sse [--port N]      # the 2024-11-05 HTTP+SSE transport

Over HTTP it binds 127.0.0.1 (a free port unless --port says) and, once it accepts
connections, prints one line `LISTENING <url>` on stdout, the URL of its endpoint (/mcp, or /sse
with --sse); nothing else goes to stdout. Ctrl-C (SIGINT) stops it with status 0.
tests/interop/typescript/server.mjs takes the same options and announces itself the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import socket
import sys
from typing import Annotated

import uvicorn
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.server.streamable_http import EventStore
from pydantic import BaseModel, Field


class MemoryEventStore(EventStore):
    """Every event of every stream, in order, so a client can resume after any of them."""

    def __init__(self) -> None:
        self._events: list[tuple[str, str, object]] = []  # (event id, stream id, message)
        self._ids = itertools.count(1)

    async def store_event(self, stream_id, message):  # type: ignore[no-untyped-def]
        event_id = str(next(self._ids))
        self._events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):  # type: ignore[no-untyped-def]
        from mcp.server.streamable_http import EventMessage

        stream = next((s for e, s, _ in self._events if e == last_event_id), None)
        if stream is None:
            return None
        after = False
        for event_id, stream_id, message in self._events:
            if after and stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))  # type: ignore[arg-type]
            after = after or event_id == last_event_id
        return stream


class Name(BaseModel):
    name: str


class Sum(BaseModel):
    total: int


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


def build() -> MCPServer:
    server = MCPServer("official-python", version="1.0.0", instructions="Written with the official SDK.")

    @server.tool()
    def echo(text: str) -> str:
        """Returns its input."""
        return text

    @server.tool()
    def add(a: int, b: int) -> Sum:
        """Adds two integers (structured output)."""
        return Sum(total=a + b)

    @server.tool()
    def fail() -> str:
        """Always fails, as a tool execution error."""
        raise ValueError("failed on purpose")

    @server.tool()
    async def slow(steps: int, ctx: Context, delay: float = 0.05) -> str:
        """Reports progress `steps` times, `delay` seconds apart."""
        for step in range(steps):
            await ctx.report_progress(step + 1, steps, f"step {step + 1}")
            await asyncio.sleep(delay)
        return f"done after {steps} steps"

    @server.tool()
    async def interrupted(ctx: Context) -> str:
        """Closes its own response stream halfway (the client must resume it)."""
        await ctx.report_progress(1, 4, "before the break")
        await ctx.report_progress(2, 4, "just before the break")
        await ctx.close_sse_stream()
        await asyncio.sleep(0.3)
        await ctx.report_progress(3, 4, "while the client is away")
        await asyncio.sleep(0.3)
        await ctx.report_progress(4, 4, "after the break")
        return "survived the break"

    @server.tool()
    def greet(person: Annotated[Name, Resolve(ask_name)]) -> str:
        """Asks the user for a name: an elicitation/create request (legacy era) or an
        input_required result (2026-07-28)."""
        return f"Hello, {person.name}!"

    @server.tool()
    def regional(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], query: str) -> str:
        """Mirrors `region` into the Mcp-Param-Region header (2026-07-28)."""
        return f"{query} in {region}"

    def tenant_plain(tenant: str, ctx: Context) -> str:
        return f"tenant {tenant}, header {(ctx.headers or {}).get('mcp-param-tenant')}"

    def tenant_mirrored(
        tenant: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Tenant"})], ctx: Context
    ) -> str:
        return f"tenant {tenant}, header {(ctx.headers or {}).get('mcp-param-tenant')}"

    server.add_tool(tenant_plain, name="tenant", description="Echoes the tenant and its header.")

    @server.tool()
    def mirror_tenant() -> str:
        """Redefines `tenant` so that its argument is mirrored into a header."""
        server.remove_tool("tenant")
        server.add_tool(tenant_mirrored, name="tenant", description="Echoes the tenant and its header.")
        return "tenant now mirrors its argument"

    @server.tool()
    async def break_listener(ctx: Context) -> str:
        """Sends a notification on the standalone GET stream, closes that stream, and sends
        another one while the client is away (it gets it on resuming)."""
        await ctx.session.send_tool_list_changed()
        await asyncio.sleep(0.3)
        await ctx.close_standalone_sse_stream()
        await asyncio.sleep(0.05)
        await ctx.session.send_resource_list_changed()
        return "sent"

    @server.tool()
    def headers_seen(ctx: Context) -> str:
        """The client's Authorization and X-Tenant headers, as the server received them."""
        headers = ctx.headers or {}
        return f"authorization={headers.get('authorization')} x-tenant={headers.get('x-tenant')}"

    @server.resource("greeting://world", mime_type="text/plain")
    def greeting() -> str:
        """A fixed greeting."""
        return "Hello, world"

    @server.resource("greeting://people/{name}", mime_type="text/plain")
    def greeting_for(name: str) -> str:
        """A greeting for someone."""
        return f"Hello, {name}"

    @server.resource("file:///notes.txt", mime_type="text/plain")
    def notes() -> str:
        """Some notes."""
        return "remember the milk"

    @server.prompt()
    def review(code: str) -> str:
        """Review code."""
        return f"Please review:\n{code}"

    return server


async def serve_http(server: MCPServer, args: argparse.Namespace) -> None:
    if args.sse:
        app, path = server.sse_app(), "/sse"
    else:
        app = server.streamable_http_app(
            json_response=args.json_response,
            stateless_http=args.stateless,
            event_store=MemoryEventStore() if args.event_store else None,
            retry_interval=200 if args.event_store else None,
        )
        path = "/mcp"
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    # Listening before the announcement: a client may connect at once (uvicorn takes the
    # queued connections once it has started).
    sock.listen()
    print(f"LISTENING http://127.0.0.1:{sock.getsockname()[1]}{path}", flush=True)
    await uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).serve(sockets=[sock])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="serve stdio (the default)")
    transport.add_argument("--http", action="store_true", help="serve Streamable HTTP at /mcp")
    transport.add_argument("--sse", action="store_true", help="serve the 2024-11-05 HTTP+SSE transport at /sse")
    parser.add_argument("--json-response", action="store_true", help="answer POSTs with JSON, not SSE")
    parser.add_argument("--stateless", action="store_true", help="no sessions")
    parser.add_argument("--event-store", action="store_true", help="keep events so that clients can resume")
    parser.add_argument("--port", type=int, default=0, help="the port to bind (default: a free one)")
    args = parser.parse_args()
    server = build()
    if not (args.http or args.sse):
        server.run()
        return
    # uvicorn stops on Ctrl-C, then raises it again.
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_http(server, args))


if __name__ == "__main__":
    sys.exit(main())

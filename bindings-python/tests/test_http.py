"""Streamable HTTP in one process: a server started on the running loop (port 0), its
options, and what the HTTP client sends."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.parse
from collections.abc import AsyncIterator
from typing import Any

import pytest

from conftest import ERAS, EndlessTool
from oxmcp import Client, Context, HttpOptions, HttpServer, McpError, Reconnect, Server

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
NAP = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nap", "arguments": {}}}


def counting_server() -> Server:
    server = Server("http-test", version="2.0.0")

    @server.tool()
    async def add(a: int, b: int) -> int:
        return a + b

    @server.tool()
    async def steps(count: int, ctx: Context) -> str:
        for step in range(1, count + 1):
            await ctx.progress(step, count)
        return f"{count} steps"

    @server.tool()
    async def polled(ctx: Context) -> str:
        await ctx.progress(1)
        await ctx.close_sse_stream()
        await ctx.progress(2)
        return "polled"

    @server.tool()
    async def pad(size: int) -> str:
        return "x" * size

    return server


@contextlib.asynccontextmanager
async def serving(**options: Any) -> AsyncIterator[HttpServer]:
    async with await counting_server().start_http(port=0, **options) as http:
        yield http


@pytest.mark.parametrize("era", ERAS)
async def test_a_server_on_port_0_tells_its_url(era: str) -> None:
    async with serving() as http:
        assert http.host == "127.0.0.1" and http.port > 0
        assert http.url == f"http://127.0.0.1:{http.port}/mcp"
        async with Client.http(http.url, era=era) as client:
            assert client.server_info is not None and client.server_info.version == "2.0.0"
            assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content == {"result": 3}


async def test_a_closed_server_refuses_connections() -> None:
    async with serving() as http:
        url = http.url
    await http.close()  # closing again does nothing
    with pytest.raises((McpError, ConnectionError)):
        async with Client.http(url, era="legacy", legacy_sse_fallback=False):
            pass


class Exchange:
    """One raw HTTP/1.1 exchange, its answer read as the test needs: the head (status and
    headers), then the body (an SSE stream, say) until the server closes it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.status = 0
        self.headers: dict[str, str] = {}

    @classmethod
    async def send(cls, url: str, method: str, headers: dict[str, str], body: Any = None) -> Exchange:
        parts = urllib.parse.urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        data = b"" if body is None else json.dumps(body).encode()
        head = {"Host": parts.netloc, "Content-Type": "application/json", "Content-Length": str(len(data)), **headers}
        writer.write(f"{method} {parts.path} HTTP/1.1\r\n".encode())
        writer.write("".join(f"{name}: {value}\r\n" for name, value in head.items()).encode() + b"\r\n" + data)
        await writer.drain()
        return cls(reader, writer)

    @classmethod
    async def answered(cls, url: str, method: str, headers: dict[str, str], body: Any = None) -> Exchange:
        """An exchange whose head has arrived (within 5 s)."""
        exchange = await cls.send(url, method, headers, body)
        async with asyncio.timeout(5):
            status, *lines = (await exchange.reader.readuntil(b"\r\n\r\n")).decode().strip().split("\r\n")
        exchange.status = int(status.split()[1])
        exchange.headers = {name.lower(): value.strip() for name, value in (line.split(":", 1) for line in lines)}
        return exchange

    async def body(self, timeout: float) -> bytes | None:
        """The body, once the server closes it within `timeout` seconds (else None)."""
        chunks = []
        try:
            async with asyncio.timeout(timeout):
                while chunk := await self.reader.read(65536):
                    chunks.append(chunk)
        except TimeoutError:
            return None
        self.writer.close()
        return b"".join(chunks)

    async def ended(self, timeout: float) -> bool:
        """Whether the server closes the body within `timeout` seconds."""
        return await self.body(timeout) is not None


async def test_close_ends_streams_and_requests_in_flight_by_the_shutdown_timeout() -> None:
    """A legacy GET stream and a tool call that would sleep for an hour: `close()` ends the
    stream, lets the call run until `shutdown_timeout` (longer than the grace after which
    `close()` used to give up), cancels it, closes every connection, and returns only then;
    nothing listens any more."""
    server = counting_server()
    nap = EndlessTool(server, "nap")

    http = await server.start_http(port=0, shutdown_timeout=3.0)
    accept = {"Accept": "application/json, text/event-stream"}
    initialized = await Exchange.answered(http.url, "POST", {**accept, "Connection": "close"}, INITIALIZE)
    assert initialized.status == 200 and await initialized.ended(5)
    session = {**accept, "Mcp-Session-Id": initialized.headers["mcp-session-id"], "Mcp-Protocol-Version": "2025-11-25"}
    notified = await Exchange.answered(http.url, "POST", {**session, "Connection": "close"}, INITIALIZED)
    assert notified.status == 202 and await notified.ended(5)
    stream = await Exchange.answered(http.url, "GET", {**session, "Accept": "text/event-stream"})
    assert stream.status == 200
    # Its answer begins with the tool's result: it never comes.
    call = await Exchange.send(http.url, "POST", session, NAP)
    await asyncio.wait_for(nap.started.wait(), 5)

    async with asyncio.timeout(10):
        await http.close()
    # The core cancelled the call at the deadline; its task hears of it on the loop's next
    # turns (well before the second a close() that gave up after 2 s would leave it running).
    await asyncio.wait_for(nap.cancelled.wait(), 0.5)
    assert await stream.ended(2), "the GET stream ended"
    assert await call.ended(2), "the call's connection closed"
    with pytest.raises(ConnectionRefusedError):
        await asyncio.open_connection(http.host, http.port)


async def listening(port: int) -> None:
    """Returns once something accepts connections on 127.0.0.1:`port` (a task that starts
    a listener has not always bound it when it is created)."""
    for _ in range(200):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.01)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise AssertionError(f"nothing listens on port {port}")


async def test_serve_http_serves_until_cancelled() -> None:
    server = counting_server()
    probe = await server.start_http(port=0)
    port = probe.port
    await probe.close()
    serving = asyncio.create_task(server.serve_http(port=port))
    await listening(port)
    async with Client.http(f"http://127.0.0.1:{port}/mcp", era="legacy") as client:
        assert (await client.call_tool("add", {"a": 2, "b": 2})).structured_content == {"result": 4}
    serving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await serving
    with pytest.raises((McpError, ConnectionError)):
        async with Client.http(f"http://127.0.0.1:{port}/mcp", era="legacy", legacy_sse_fallback=False):
            pass


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"path": "/custom"}, id="path"),
        pytest.param({"stateless": True}, id="stateless"),
        pytest.param({"json_response": True}, id="json_response"),
        pytest.param({"allowed_hosts": [], "allowed_origins": [], "cors_origins": ["http://app"]}, id="guards"),
        pytest.param({"session_idle_timeout": 60.0, "max_sessions": 2, "body_limit": 65536}, id="limits"),
        pytest.param(
            {
                "new_session_timeout": 5.0,
                "header_read_timeout": 5.0,
                "body_read_timeout": 5.0,
                "shutdown_timeout": 1.0,
                "max_connections": 4,
                "max_in_flight": 4,
                "event_bytes_kept": (65536, 1 << 20),
            },
            id="bounds",
        ),
        pytest.param({"legacy_sse": True}, id="legacy_sse"),
    ],
)
@pytest.mark.parametrize("era", ERAS)
async def test_options_keep_the_endpoint_working(options: HttpOptions, era: str) -> None:
    async with serving(**options) as http:
        assert http.url.endswith(options.get("path", "/mcp"))
        async with Client.http(http.url, era=era) as client:
            assert (await client.call_tool("add", {"a": 1, "b": 1})).structured_content == {"result": 2}


async def test_a_handler_ends_its_stream_and_the_client_resumes_the_rest() -> None:
    # The call's own stream ends before its answer, which the client gets on resuming.
    async with serving() as http:
        accept = {"Accept": "application/json, text/event-stream", "Connection": "close"}
        initialized = await Exchange.answered(http.url, "POST", accept, INITIALIZE)
        assert await initialized.ended(5)
        session = {
            **accept,
            "Mcp-Session-Id": initialized.headers["mcp-session-id"],
            "Mcp-Protocol-Version": "2025-11-25",
        }
        polled = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "polled", "arguments": {}}}
        call = await Exchange.answered(http.url, "POST", session, polled)
        body = await call.body(5)
        assert body is not None and b"id:" in body and b'"result"' not in body, body

    async with serving() as http, Client.http(http.url, era="legacy") as client:
        seen: list[float] = []
        result = await client.call_tool("polled", {}, progress_handler=lambda p, t, m: seen.append(p))
        assert result.content[0].text == "polled"
        assert seen == [1.0, 2.0], "the progress sent after the stream ended came on the resumed one"

    # The same with the official client, which resumes with GET and `Last-Event-ID`.
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with serving() as http, streamable_http_client(http.url) as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            official_seen: list[float] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                official_seen.append(progress)

            official = await session.call_tool("polled", {}, progress_callback=on_progress)
            assert official.content[0].text == "polled"
            assert official_seen == [1.0, 2.0]


async def test_json_responses_drop_progress() -> None:
    async def progress_seen(json_response: bool) -> list[float]:
        seen: list[float] = []
        async with serving(json_response=json_response) as http, Client.http(http.url, era="legacy") as client:
            result = await client.call_tool("steps", {"count": 2}, progress_handler=lambda p, t, m: seen.append(p))
            assert result.content[0].text == "2 steps"
        return seen

    assert await progress_seen(json_response=False) == [1.0, 2.0]
    assert await progress_seen(json_response=True) == [], "JSON answers carry no notifications"


async def test_an_answer_over_max_message_size_fails_its_call_alone() -> None:
    async with (
        serving(json_response=True) as http,
        Client.http(
            http.url, max_message_size=1024, request_timeout=5.0, reconnect=Reconnect(0.1, 1.0, 2), era="legacy"
        ) as client,
    ):
        with pytest.raises(McpError, match="larger than the 1024-byte limit"):
            await client.call_tool("pad", {"size": 4096})
        assert (await client.call_tool("pad", {"size": 200})).content[0].text == "x" * 200


async def test_hosts_outside_the_allowed_list_are_refused() -> None:
    async with serving(allowed_hosts=["mcp.example.com"]) as http:
        with pytest.raises(McpError):
            async with Client.http(http.url, era="legacy", legacy_sse_fallback=False):
                pass


def test_bad_settings_are_refused() -> None:
    def start(**options: Any) -> None:
        asyncio.run(counting_server().start_http(port=0, **options))

    with pytest.raises(ValueError, match="path"):
        start(path="mcp")
    durations = ["session_idle_timeout", "new_session_timeout", "header_read_timeout", "body_read_timeout"]
    for duration in durations:
        with pytest.raises(ValueError, match=f"{duration} must be a finite, non-negative number of seconds"):
            start(**{duration: -1.0})
    with pytest.raises(ValueError, match="shutdown_timeout"):
        start(shutdown_timeout=float("inf"))
    for count in ("max_sessions", "max_connections", "max_in_flight", "body_limit"):
        with pytest.raises(OverflowError):
            start(**{count: -1})
    with pytest.raises(OverflowError):
        start(event_bytes_kept=(1024, -1))
    with pytest.raises(ValueError, match="header"):
        asyncio.run(Client.http("http://127.0.0.1:1/mcp", headers={"bad header": "x"}).connect())
    for timeouts in ({"request_timeout": -1.0}, {"reconnect": Reconnect(initial=float("nan"))}):
        with pytest.raises(ValueError, match="finite, non-negative number of seconds"):
            asyncio.run(Client.http("http://127.0.0.1:1/mcp", **timeouts).connect())


async def test_headers_and_bearer_tokens_are_sent() -> None:
    """A bare HTTP listener records the request heads the client sends (and answers 404)."""
    heads: list[str] = []

    async def record(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        heads.append((await reader.readuntil(b"\r\n\r\n")).decode().lower())
        writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    tokens: list[str] = []

    async def token() -> str:
        tokens.append(f"token-{len(tokens)}")
        return tokens[-1]

    listener = await asyncio.start_server(record, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}/mcp"
    async with listener:
        for bearer in ("fixed", token):
            with pytest.raises(McpError):
                client = Client.http(
                    url, era="legacy", headers={"X-Tenant": "acme"}, bearer_token=bearer, legacy_sse_fallback=False
                )
                await client.connect()
    assert len(heads) == 2
    assert all("x-tenant: acme" in head for head in heads)
    assert "authorization: bearer fixed" in heads[0]
    assert tokens == ["token-0"] and "authorization: bearer token-0" in heads[1]


async def test_a_handler_knows_its_session_and_the_client_id_its_request_gives() -> None:
    """``ctx.session_id`` is the legacy session's (the same over a client's calls, another for
    another client) and None for a 2026-07-28 request, which stands alone; ``ctx.client_id``
    is the one the request's ``_meta`` gives."""
    server = Server("sessions")

    @server.tool()
    async def session(ctx: Context) -> dict[str, str | None]:
        return {"session": ctx.session_id, "client": ctx.client_id}

    async def seen(client: Client, **meta: str) -> Any:
        return (await client.call_tool("session", meta=meta or None)).structured_content

    async with await server.start_http("127.0.0.1", 0) as http:
        async with Client.http(http.url, era="legacy") as one, Client.http(http.url, era="legacy") as two:
            first, again, other = await seen(one), await seen(one, client_id="app-1"), await seen(two)
        async with Client.http(http.url, era="modern") as modern:
            alone = await seen(modern)
    assert len(first["session"]) == 32 and int(first["session"], 16) >= 0
    assert again == {"session": first["session"], "client": "app-1"}
    assert other["session"] not in (None, first["session"])
    assert alone == {"session": None, "client": None}

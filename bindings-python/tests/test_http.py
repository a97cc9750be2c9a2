"""Streamable HTTP in one process: a server started on the running loop (port 0), its
options, and what the HTTP client sends."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from conftest import ERAS
from oxmcp import Client, Context, HttpOptions, HttpServer, McpError, Server


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


async def test_serve_http_serves_until_cancelled() -> None:
    server = counting_server()
    probe = await server.start_http(port=0)
    port = probe.port
    await probe.close()
    serving = asyncio.create_task(server.serve_http(port=port))
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
        pytest.param({"legacy_sse": True}, id="legacy_sse"),
    ],
)
@pytest.mark.parametrize("era", ERAS)
async def test_options_keep_the_endpoint_working(options: HttpOptions, era: str) -> None:
    async with serving(**options) as http:
        assert http.url.endswith(options.get("path", "/mcp"))
        async with Client.http(http.url, era=era) as client:
            assert (await client.call_tool("add", {"a": 1, "b": 1})).structured_content == {"result": 2}


async def test_json_responses_drop_progress() -> None:
    async def progress_seen(json_response: bool) -> list[float]:
        seen: list[float] = []
        async with serving(json_response=json_response) as http, Client.http(http.url, era="legacy") as client:
            result = await client.call_tool("steps", {"count": 2}, progress_handler=lambda p, t, m: seen.append(p))
            assert result.content[0].text == "2 steps"
        return seen

    assert await progress_seen(json_response=False) == [1.0, 2.0]
    assert await progress_seen(json_response=True) == [], "JSON answers carry no notifications"


async def test_hosts_outside_the_allowed_list_are_refused() -> None:
    async with serving(allowed_hosts=["mcp.example.com"]) as http:
        with pytest.raises(McpError):
            async with Client.http(http.url, era="legacy", legacy_sse_fallback=False):
                pass


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="path"):
        asyncio.run(counting_server().start_http(port=0, path="mcp"))
    with pytest.raises(ValueError, match="header"):
        asyncio.run(Client.http("http://127.0.0.1:1/mcp", headers={"bad header": "x"}).connect())


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

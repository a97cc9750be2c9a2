"""A server mounted in a web app: ``server.http_app()`` inside a FastAPI app with routes of
its own (tests/servers/web_app.py), served by uvicorn, driven by the official client in both
eras and by raw HTTP. The protocol is the core's; what is tested here is that the ASGI app
carries it whole: streamed answers, the core's checks, a client leaving, the lifespan."""

from __future__ import annotations

import asyncio
import http.client
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from mcp import Client as OfficialClient
from mcp import types

from conftest import ERAS, TESTS, http_server
from oxmcp import Client

ENDPOINT = "/tools/mcp"


@pytest.fixture
def lifespan_log(tmp_path: Path) -> Path:
    return tmp_path / "lifespan.log"


@pytest.fixture
def app_url(lifespan_log: Path) -> Iterator[str]:
    """The web app's base URL, served by uvicorn until the test ends."""
    command = [sys.executable, "-m", "uvicorn", "--app-dir", str(TESTS / "servers"), "web_app:app", "--port", "0"]
    with http_server(command, env={"OXMCP_LIFESPAN_LOG": str(lifespan_log)}) as url:
        yield url


def request(url: str, method: str, path: str, body: bytes | None = None, **headers: str) -> tuple[int, bytes]:
    """One plain HTTP request; gives the status and body."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers={k.replace("_", "-"): v for k, v in headers.items()})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize("era", ERAS)
async def test_the_official_client_calls_a_mounted_server(app_url: str, era: str) -> None:
    logs: list[types.LoggingMessageNotificationParams] = []
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    mode = "legacy" if era == "legacy" else "auto"
    async with OfficialClient(app_url + ENDPOINT, mode=mode, logging_callback=on_log, log_level="debug") as client:
        assert {tool.name for tool in (await client.list_tools()).tools} == {"greet", "wait", "cancellations"}
        result = await client.call_tool("greet", {"name": "Ada"}, progress_callback=on_progress)
    assert result.content == [types.TextContent(type="text", text="hello, Ada")]
    assert result.structured_content == {"result": "hello, Ada"}
    # Sent on the request's SSE stream before its answer.
    assert updates == [(1, 2, "halfway")]
    assert [log.data for log in logs] == ["greeting Ada"]


def test_the_app_keeps_its_own_routes(app_url: str) -> None:
    assert request(app_url, "GET", "/health") == (200, b'{"ok":true}')
    assert request(app_url, "GET", "/elsewhere")[0] == 404


def test_the_cores_checks_guard_the_mounted_endpoint(app_url: str) -> None:
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}).encode()
    json_headers = {"Content_Type": "application/json", "Accept": "application/json, text/event-stream"}
    status, _ = request(app_url, "POST", ENDPOINT, initialize, **json_headers)
    assert status == 200
    # DNS rebinding: a Host the server does not answer to.
    status, body = request(app_url, "POST", ENDPOINT, initialize, Host="evil.example", **json_headers)
    assert status == 403
    assert "evil.example" in json.loads(body)["error"]["message"]
    # Past the app's body limit of 64 KiB, streamed to the core chunk by chunk.
    status, body = request(app_url, "POST", ENDPOINT, b" " * (1024 * 1024) + initialize, **json_headers)
    assert status == 413
    assert json.loads(body)["error"]["code"] == -32600
    status, _ = request(app_url, "POST", ENDPOINT, initialize, Content_Type="text/plain")
    assert status == 415


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_leaving_cancels_its_request(app_url: str, era: str) -> None:
    async with Client.http(app_url + ENDPOINT, era=era) as client:
        with pytest.raises(TimeoutError):
            # Leaving closes the request's stream (modern) or sends notifications/cancelled
            # (legacy): either way the handler is cancelled.
            await asyncio.wait_for(client.call_tool("wait", {"name": era}), 0.5)

        async def cancellations() -> list[str]:
            result = await client.call_tool("cancellations")
            assert result.structured_content is not None
            names: list[str] = result.structured_content["result"]
            return names

        # The handler sees its cancellation a moment after the client left.
        for _ in range(100):
            if era in await cancellations():
                break
            await asyncio.sleep(0.05)
        assert era in await cancellations()


def test_the_servers_lifespan_runs_with_the_apps(lifespan_log: Path) -> None:
    command = [sys.executable, "-m", "uvicorn", "--app-dir", str(TESTS / "servers"), "web_app:app", "--port", "0"]
    with http_server(command, env={"OXMCP_LIFESPAN_LOG": str(lifespan_log)}):
        assert lifespan_log.read_text().split() == ["up"]
    assert lifespan_log.read_text().split() == ["up", "down"]

"""A server mounted in a web app: ``server.http_app()`` inside a FastAPI app with routes of
its own (tests/servers/web_app.py), served by uvicorn, driven by the official client in both
eras and by raw HTTP, and over https by clients told whose certificates to trust. The
protocol is the core's; what is tested here is that the ASGI app carries it whole: streamed
answers, the core's checks, a client leaving, the lifespan."""

from __future__ import annotations

import asyncio
import datetime
import http.client
import ipaddress
import json
import shutil
import ssl
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from mcp import Client as OfficialClient
from mcp import types

from conftest import ERAS, TESTS, http_server
from oxmcp import Client, McpError
from oxmcp.fastmcp import Client as FastMCPClient

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


def issue_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A CA of the test's own and a certificate it issued for 127.0.0.1: the CA's PEM, the
    server's certificate and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)

    def issued(subject: str, issuer: str, public: Any, extensions: list[Any]) -> x509.Certificate:
        made = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
        )
        for extension, critical in extensions:
            made = made.add_extension(extension, critical=critical)
        return made.sign(key, hashes.SHA256())

    authority = [(x509.BasicConstraints(ca=True, path_length=None), True)]
    ca = issued("oxmcp test CA", "oxmcp test CA", key.public_key(), authority)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = issued(
        "127.0.0.1",
        "oxmcp test CA",
        server_key.public_key(),
        [
            (x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False),
            (x509.BasicConstraints(ca=False, path_length=None), True),
        ],
    )
    paths = directory / "ca.pem", directory / "server.pem", directory / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(server.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        server_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return paths


async def test_a_client_trusts_an_https_server_as_verify_says(tmp_path: Path, lifespan_log: Path) -> None:
    """``Client.http(url, verify=...)`` (and FastMCP's ``Client(url, verify=...)``), as
    httpx's ``verify``: the platform's roots by default, which do not know the test's CA;
    its bundle (a file or a directory), an ``SSLContext`` that loaded it, or ``False``."""
    authority = tmp_path / "authority"
    authority.mkdir()
    ca, certificate, key = issue_certificates(authority)
    command = [
        *[sys.executable, "-m", "uvicorn", "--app-dir", str(TESTS / "servers"), "web_app:app", "--port", "0"],
        *["--ssl-certfile", str(certificate), "--ssl-keyfile", str(key)],
    ]
    with http_server(command, env={"OXMCP_LIFESPAN_LOG": str(lifespan_log)}, noise_free=False) as base:
        url = base + ENDPOINT
        assert url.startswith("https://")
        with pytest.raises(McpError, match="invalid peer certificate: UnknownIssuer"):
            async with Client.http(url, era="legacy", timeout=10):
                pass
        trusted = ssl.create_default_context(cafile=ca)
        for verify in (str(ca), authority / "ca.pem", trusted, False):
            async with Client.http(url, era="legacy", verify=verify) as client:
                assert (await client.call_tool("greet", {"name": "tls"})).content[0].text == "hello, tls"
        only_certs = tmp_path / "bundle"
        only_certs.mkdir()
        shutil.copy(ca, only_certs / "ca.pem")
        async with FastMCPClient(url, verify=str(only_certs)) as fastmcp_client:
            assert (await fastmcp_client.call_tool("greet", {"name": "dir"})).content[0].text == "hello, dir"

"""Shared pieces of the Python tests: the server commands, HTTP server processes, and a
notification recorder."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import os
import re
import signal
import subprocess
import sys
import tarfile
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import pytest

from oxmcp import Client, Server

TESTS = Path(__file__).parent
REPO = TESTS.parent.parent
DEMO_SERVER = [sys.executable, str(TESTS / "servers" / "demo.py")]
#: A real OAuth authorization server, oidc-provider from npm: it tells its issuer on stdout.
AUTHORIZATION_SERVER = ["node", str(REPO / "tests" / "auth" / "provider.mjs")]
#: The server written with the official SDK (tests/interop): it tells its URL on stdout.
OFFICIAL_SERVER = [sys.executable, str(REPO / "tests" / "interop" / "python" / "server.py")]
ERAS = ["legacy", "modern"]
TRANSPORTS = ["stdio", "http"]
#: Every (transport, era) pair, for fixture params; test ids like "http-modern".
CONNECTIONS = [pytest.param((transport, era), id=f"{transport}-{era}") for transport in TRANSPORTS for era in ERAS]
NOISE = ("Traceback", "Event loop is closed", "Exception ignored", "panicked")
_URL = re.compile(r"https?://127\.0\.0\.1:\d+(/\S*)?")
MRTR_PENDING = "multi round-trip"
#: Where a server process tells its URL.
Stream = Literal["stderr", "stdout"]

# A shell starting pytest in the background leaves SIGINT ignored, and children inherit an
# ignored signal: the Ctrl-C tests would then test nothing. A handler here is reset to the
# default in every child at exec.
signal.signal(signal.SIGINT, signal.default_int_handler)


def unpacked_sdist(package: str, directory: Path) -> Path:
    """The source distribution of the installed version of `package`, unpacked in
    `directory`."""
    version = importlib.metadata.version(package)
    # The source of `package` only: with `:all:`, pip builds the tools that read its
    # metadata from their sources too, which takes minutes without a cache.
    command = [sys.executable, "-m", "pip", "download", "-q", "--no-binary", package, "--no-deps"]
    subprocess.run([*command, f"{package}=={version}", "-d", str(directory)], check=True, timeout=300)
    with tarfile.open(directory / f"{package}-{version}.tar.gz") as sdist:
        sdist.extractall(directory, filter="data")
    return directory / f"{package}-{version}"


#: An import of the official SDK's server (``mcp.server``, ``mcp.server.lowlevel``, ...).
_OFFICIAL_SERVER_MODULE = re.compile(r"(?<![\w.])mcp\.server\b")


def ported_from_official(text: str) -> str:
    """A module written with the official SDK's server, its imports of it turned to
    oxmcp's: ``from mcp.server.mcpserver import`` to ``from oxmcp import``, ``mcp.server``
    to ``oxmcp.server``."""
    text = re.sub(r"^from mcp\.server\.mcpserver\.(prompts|resources)\b", r"from oxmcp.\1", text, flags=re.MULTILINE)
    text = text.replace("from mcp.server.mcpserver.exceptions import", "from oxmcp import")
    text = text.replace("from mcp.server.mcpserver.context import", "from oxmcp.context import")
    text = text.replace("from mcp.server.mcpserver import", "from oxmcp import")
    text = _OFFICIAL_SERVER_MODULE.sub("oxmcp.server", text)
    assert not _OFFICIAL_SERVER_MODULE.search(text), "every import of the official server is replaced"
    return text


def rust_server(binary: str = "fixture-server") -> Path:
    """A binary of the Rust fixtures (`cargo build -p oxmcp-fixtures`): the fixture server,
    or `fixture-hostile`, the server that misbehaves on purpose."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "debug" / binary


def stop(process: subprocess.Popen[str], timeout: float = 5.0) -> tuple[int, str]:
    """Waits for the process (killing it if it hangs) and returns its code and stderr."""
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        stderr = process.stderr.read() if process.stderr else ""
        raise AssertionError(f"the server did not exit within {timeout} s; stderr:\n{stderr}") from None
    return process.returncode, process.stderr.read() if process.stderr else ""


def start_announcing(
    command: Sequence[str], *, url_on: Stream = "stderr", env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], str]:
    """Starts a server process that tells its URL in a line on stderr (or stdout), with
    `env` added to the environment; gives the process and the URL. A process that ends
    without telling it is an error."""
    on_stdout = url_on == "stdout"
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE if on_stdout else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env} if env else None,
    )
    announcing = process.stdout if on_stdout else process.stderr
    assert announcing is not None
    lines = []
    for line in announcing:
        lines.append(line)
        if found := _URL.search(line):
            return process, found.group(0)
    process.kill()
    process.wait()
    raise AssertionError(f"{command} did not tell its URL; {url_on}:\n{''.join(lines)}")


@contextlib.contextmanager
def http_server(
    command: Sequence[str], *, noise_free: bool = True, url_on: Stream = "stderr", env: dict[str, str] | None = None
) -> Iterator[str]:
    """Starts an HTTP server process (with `env` added to its environment) that tells its
    URL in a line on stderr (or, with `url_on="stdout"`, on stdout, as the servers of
    tests/interop do), yields the URL, then stops it with Ctrl-C and checks that it exited
    with 0 and (when `noise_free`) wrote no traceback or panic."""
    process, url = start_announcing(command, url_on=url_on, env=env)
    try:
        yield url
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        code, stderr = stop(process)
    assert code == 0, stderr
    assert not (noise_free and any(noise in stderr for noise in NOISE)), stderr


@contextlib.asynccontextmanager
async def connect(
    command: Sequence[str], transport: str, *, noise_free: bool = True, url_on: Stream = "stderr", **options: Any
) -> AsyncIterator[Client]:
    """A client of the server `command` starts, over stdio or (with `--http`) HTTP; see
    `http_server` for `noise_free` and `url_on`."""
    if transport == "stdio":
        async with Client.stdio(command, **options) as client:
            yield client
        return
    with http_server([*command, "--http"], noise_free=noise_free, url_on=url_on) as url:
        async with Client.http(url, **options) as client:
            yield client


class Notifications:
    """Records the notifications a client receives; waits for the ones a test expects."""

    def __init__(self) -> None:
        self.received: list[tuple[str, Any]] = []
        self._arrived = asyncio.Event()

    def __call__(self, method: str, params: Any) -> None:
        self.received.append((method, params))
        self._arrived.set()

    def of(self, method: str) -> list[Any]:
        """The params of every notification of `method` so far."""
        return [params for m, params in self.received if m == method]

    async def wait_for(self, method: str, count: int = 1, timeout: float = 5.0) -> list[Any]:
        """Waits until `count` notifications of `method` arrived; returns their params."""

        async def arrived() -> None:
            while len(self.of(method)) < count:
                self._arrived.clear()
                await self._arrived.wait()

        await asyncio.wait_for(arrived(), timeout)
        return self.of(method)


@pytest.fixture
def notifications() -> Notifications:
    return Notifications()


class EndlessTool:
    """Registers tool `name` on `server`: its calls never return. `started` is set when a
    call begins, `cancelled` when the server cancels it."""

    def __init__(self, server: Server, name: str) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

        async def endless() -> str:
            self.started.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
            return "never"

        server.tool(name=name)(endless)

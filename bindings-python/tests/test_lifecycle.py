"""A Python oxmcp server process from start to end: it exits when stdin closes, Ctrl-C
stops it cleanly (over stdio, and over HTTP with a request in flight: a second Ctrl-C
cancels it), and closing the
client stops it — with nothing alarming on stderr."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import DEMO_SERVER, NOISE, http_server, start_announcing, stop
from oxmcp import Client, McpError

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


#: A script whose plain-function handler still runs when the interpreter exits.
EXIT_DURING_A_CALL = textwrap.dedent(
    """
    import asyncio, threading, time
    from oxmcp import Client, Server

    server = Server("exit")
    started = threading.Event()

    @server.tool()
    def block() -> str:
        started.set()
        time.sleep(0.5)
        return "late"

    async def main() -> None:
        client = Client(server)
        await client.connect()
        asyncio.create_task(client.call_tool("block"))
        await asyncio.to_thread(started.wait)

    # Freeing these makes the interpreter's finalisation slow enough for the handler to
    # return while it runs.
    junk = [[object()] for _ in range(1_000_000)]
    asyncio.run(main())
    """
)


def start_demo() -> subprocess.Popen[str]:
    return subprocess.Popen(
        DEMO_SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def initialize(process: subprocess.Popen[str]) -> dict[str, object]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE) + "\n")
    process.stdin.flush()
    answer: dict[str, object] = json.loads(process.stdout.readline())
    return answer


def test_the_server_exits_when_stdin_closes() -> None:
    process = start_demo()
    assert initialize(process)["id"] == 1
    assert process.stdin is not None
    process.stdin.close()
    code, stderr = stop(process)
    assert code == 0, stderr
    assert not any(noise in stderr for noise in NOISE), stderr


def test_a_server_starts_without_importing_what_only_clients_use() -> None:
    """``import oxmcp`` and a server's registrations leave the client, its sign-in's
    browser launcher and their imports unloaded (a server's start-up does not pay for
    them), and ``oxmcp.Client`` still imports them when named."""
    script = textwrap.dedent(
        """
        import sys
        from oxmcp import Server
        server = Server("lean")
        server.add_tool(lambda text: text, name="echo")
        print(sorted(m for m in ("oxmcp.client", "webbrowser") if m in sys.modules))
        from oxmcp import Client
        print(Client.__module__, "oxmcp.client" in sys.modules)
        """
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == ["[]", "oxmcp.client True"]


def test_ctrl_c_stops_the_server_cleanly() -> None:
    process = start_demo()
    assert initialize(process)["id"] == 1
    process.send_signal(signal.SIGINT)
    code, stderr = stop(process)
    assert code == 0, stderr
    assert not any(noise in stderr for noise in NOISE), stderr


def test_print_in_a_handler_does_not_corrupt_stdout() -> None:
    process = start_demo()
    assert initialize(process)["id"] == 1
    assert process.stdin is not None and process.stdout is not None
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "shout", "arguments": {"text": "a"}}}
    process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    process.stdin.write(json.dumps(call) + "\n")
    process.stdin.flush()
    answer = json.loads(process.stdout.readline())
    assert answer["result"]["content"][0]["text"] == "A"
    process.stdin.close()
    assert stop(process)[0] == 0


def test_the_interpreter_exits_cleanly_while_a_handler_thread_runs() -> None:
    """Exit waits for a plain-function handler still running (a thread torn down in the
    middle of a call to Python crashed the process)."""
    process = subprocess.run([sys.executable, "-c", EXIT_DURING_A_CALL], capture_output=True, text=True, timeout=60)
    assert process.returncode == 0, process.stderr
    assert not any(noise in process.stderr for noise in NOISE), process.stderr


async def test_closing_the_client_stops_the_server_process() -> None:
    async with Client.stdio(DEMO_SERVER) as client:
        pid = (await client.call_tool("pid")).structured_content["result"]
        os.kill(pid, 0)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"server process {pid} still runs after the client closed")


async def test_ctrl_c_stops_the_http_server_after_its_client_left_mid_call() -> None:
    """The client ends its session with a call running, which cancels the call; then
    `http_server` sends Ctrl-C and checks the exit (0 at once, no noise)."""
    started = asyncio.Event()
    with http_server([*DEMO_SERVER, "--http"]) as url:
        async with Client.http(url, era="legacy") as client:
            call = asyncio.create_task(
                client.call_tool("slow", {"steps": 1000}, progress_handler=lambda *_: started.set())
            )
            await started.wait()
    with pytest.raises((McpError, ConnectionError)):
        await call


async def test_a_second_ctrl_c_stops_the_http_server_with_a_request_in_flight() -> None:
    """The first Ctrl-C lets a call in flight go on (up to `shutdown_timeout`, 10 s by
    default); a second one stops the server at once, with 0 and no noise. The call ends
    with an answer saying it was cancelled, or, when the server left before the answer went
    out, with the connection."""
    progress: asyncio.Queue[float] = asyncio.Queue()
    process, url = start_announcing([*DEMO_SERVER, "--http"])
    try:
        async with Client.http(url, era="legacy") as client:
            call = asyncio.create_task(
                client.call_tool("slow", {"steps": 1000}, progress_handler=lambda p, *_: progress.put_nowait(p))
            )
            await progress.get()
            process.send_signal(signal.SIGINT)
            await asyncio.sleep(0.3)
            while not progress.empty():
                progress.get_nowait()
            await asyncio.wait_for(progress.get(), 5)
            assert not call.done(), "the call goes on after the first Ctrl-C"
            process.send_signal(signal.SIGINT)
            code, stderr = stop(process)
        assert code == 0, stderr
        assert not any(noise in stderr for noise in NOISE), stderr
        try:
            result = await call
        except (McpError, ConnectionError):
            pass
        else:
            assert result.is_error and "cancelled" in str(result.content[0].text)
    finally:
        process.kill()
        process.wait()

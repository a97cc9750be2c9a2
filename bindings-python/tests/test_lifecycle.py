"""A Python oxmcp server process from start to end: it exits when stdin closes, Ctrl-C
stops it cleanly, and closing the client stops it — with nothing alarming on stderr."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time

from conftest import DEMO_SERVER
from oxmcp import Client

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
NOISE = ("Traceback", "Event loop is closed", "Exception ignored", "panicked")


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


def finish(process: subprocess.Popen[str], timeout: float = 5.0) -> tuple[int, str]:
    """Waits for the process (killing it if it hangs) and returns its code and stderr."""
    assert process.stderr is not None
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"the server did not exit within {timeout} s; stderr:\n{process.stderr.read()}") from None
    stderr = process.stderr.read()
    return process.returncode, stderr


def test_the_server_exits_when_stdin_closes() -> None:
    process = start_demo()
    assert initialize(process)["id"] == 1
    assert process.stdin is not None
    process.stdin.close()
    code, stderr = finish(process)
    assert code == 0, stderr
    assert not any(noise in stderr for noise in NOISE), stderr


def test_ctrl_c_stops_the_server_cleanly() -> None:
    process = start_demo()
    assert initialize(process)["id"] == 1
    process.send_signal(signal.SIGINT)
    code, stderr = finish(process)
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
    assert finish(process)[0] == 0


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

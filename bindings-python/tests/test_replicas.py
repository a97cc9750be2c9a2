"""Three replicas of a Python server behind a real nginx doing plain round robin (no
stickiness), their state shared through a real redis-server named by ``OXMCP_STORE``:
calls land on every replica, the rounds of a multi round-trip call on different ones, a
task started on one is polled, read and cancelled through the others, a resource update
on one replica reaches a subscriber on another, a legacy session opened on one replica is
served by all (our client and the official one, elicitation included) and its SSE stream,
cut, resumes on another; one replica killed under load costs only its requests in flight,
and Redis crashing and coming back costs no replica a restart. Without Redis, replicas
given the same ``OXMCP_REQUEST_STATE_KEYS``, or the same ``RequestStateSecurity`` keys,
open each other's sealed state."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import http.client
import json
import secrets
import signal
import subprocess
import sys
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from balancer import nginx, redis_server

from conftest import TESTS, start_announcing, stop
from oxmcp import Client, McpError
from oxmcp.types import ElicitRequest

REPLICA = [sys.executable, str(TESTS / "servers" / "replica.py")]


@contextlib.contextmanager
def replicas(env: dict[str, str], count: int) -> Iterator[list[tuple[subprocess.Popen[str], str]]]:
    """`count` replica processes with `env` (what they share); yields each with its URL."""
    processes: list[subprocess.Popen[str]] = []
    urls = []
    try:
        for _ in range(count):
            process, url = start_announcing(REPLICA, env=env)
            processes.append(process)
            urls.append(url)
        yield list(zip(processes, urls, strict=True))
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
            stop(process)


@pytest.fixture(scope="module")
def balanced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL nginx serves the three replicas on."""
    with (
        redis_server() as redis,
        replicas({"OXMCP_STORE": redis.url}, 3) as running,
        nginx([url for _, url in running], tmp_path_factory.mktemp("nginx")) as url,
    ):
        yield url


async def accept(request: ElicitRequest) -> dict[str, object]:
    return {"action": "accept", "content": {"ok": True}}


async def test_calls_land_on_every_replica_and_rounds_on_different_ones(balanced: str) -> None:
    async with Client.http(balanced, era="modern", elicitation_handler=accept) as client:
        answered = {(await client.call_tool("whoami")).content[0].text for _ in range(6)}
        assert len(answered) == 3, answered
        # Round robin: the first round and the retry reach different replicas; the one that
        # opens the sealed state is not the one that sealed it.
        for _ in range(3):
            result = await client.call_tool("confirm")
            assert result.content[0].text.startswith("confirmed by "), result


async def test_a_task_is_followed_and_cancelled_through_other_replicas(balanced: str) -> None:
    async with Client.http(balanced, era="modern") as client:
        task = await client.call_tool_as_task("sleep", {"seconds": 0.3})
        assert task.id is not None
        assert (await task.result()).content[0].text.startswith("slept 0.3 s on ")
        long = await client.call_tool_as_task("sleep", {"seconds": 60})
        now = await long.status()
        assert now is not None and now.status == "working"
        await long.cancel()
        for _ in range(3):
            ended = await long.status()
            assert ended is not None and ended.status == "cancelled"


async def test_a_change_on_one_replica_reaches_a_subscriber_on_another(balanced: str) -> None:
    updated = asyncio.Event()

    def heard(method: str, params: object) -> None:
        if method == "notifications/resources/updated":
            updated.set()

    async with Client.http(balanced, era="modern", notification_handler=heard) as subscriber:
        await subscriber.subscribe_resource("memo://board")
        async with Client.http(balanced, era="modern") as other:
            # Round robin: of three calls, at least two land elsewhere than the subscriber's
            # stream.
            touched = {(await other.call_tool("touch")).content[0].text for _ in range(3)}
            assert len(touched) == 3
        await asyncio.wait_for(updated.wait(), 10)


async def test_a_legacy_session_is_served_by_every_replica(balanced: str) -> None:
    updated = asyncio.Event()

    def heard(method: str, params: object) -> None:
        if method == "notifications/resources/updated":
            updated.set()

    async with Client.http(balanced, era="legacy", elicitation_handler=accept, notification_handler=heard) as client:
        answered = {(await client.call_tool("whoami")).content[0].text for _ in range(6)}
        assert len(answered) == 3, answered
        # The answer to each elicitation is the next request, taken by another replica
        # than the one that asked.
        for _ in range(3):
            result = await client.call_tool("confirm")
            assert result.content[0].text.startswith("confirmed by "), result
        await client.subscribe_resource("memo://board")
        touched = {(await client.call_tool("touch")).content[0].text for _ in range(3)}
        assert len(touched) == 3
        await asyncio.wait_for(updated.wait(), 10)


async def test_the_official_client_keeps_a_legacy_session_across_replicas(balanced: str) -> None:
    from mcp import Client as OfficialClient
    from mcp import types
    from mcp.client.streamable_http import streamable_http_client

    async def agree(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"ok": True})

    official = OfficialClient(streamable_http_client(balanced), mode="legacy", elicitation_callback=agree)
    async with official:
        answered = {(await official.call_tool("whoami", {})).content[0].text for _ in range(6)}  # type: ignore[union-attr]
        assert len(answered) == 3, answered
        for _ in range(3):
            result = await official.call_tool("confirm", {})
            assert result.content[0].text.startswith("confirmed by "), result  # type: ignore[union-attr]


async def test_replicas_without_a_store_share_sealing_keys_given_in_the_environment(tmp_path: Path) -> None:
    keys = ",".join(base64.urlsafe_b64encode(secrets.token_bytes(32)).decode() for _ in range(2))
    with (
        replicas({"OXMCP_REQUEST_STATE_KEYS": keys}, 2) as running,
        nginx([url for _, url in running], tmp_path) as url,
    ):
        async with Client.http(url, era="modern", elicitation_handler=accept) as client:
            # Round robin: each call's retry lands on the replica that did not seal its
            # state.
            for _ in range(2):
                result = await client.call_tool("confirm")
                assert result.content[0].text.startswith("confirmed by "), result


async def test_replicas_given_the_same_request_state_security_open_each_others_state(tmp_path: Path) -> None:
    """``Server(request_state_security=RequestStateSecurity(keys=[...]))``, as the official
    SDK's servers give it: replicas given one secret serve each other's rounds, replicas
    given different ones refuse them."""
    shared = secrets.token_hex(32)
    for secrets_given, served in (((shared, shared), True), ((shared, secrets.token_hex(32)), False)):
        with contextlib.ExitStack() as stack:
            running = [stack.enter_context(replicas({"REPLICA_SECRET": secret}, 1))[0] for secret in secrets_given]
            url = stack.enter_context(nginx([url for _, url in running], tmp_path))
            async with Client.http(url, era="modern", elicitation_handler=accept) as client:
                for _ in range(2):
                    if served:
                        assert (await client.call_tool("confirm")).content[0].text.startswith("confirmed by ")
                    else:
                        with pytest.raises(McpError, match="requestState"):
                            await client.call_tool("confirm")


async def test_a_replica_killed_under_load_costs_only_its_requests_in_flight_and_redis_may_restart(
    tmp_path: Path,
) -> None:
    with (
        redis_server() as redis,
        replicas({"OXMCP_STORE": redis.url}, 3) as running,
        nginx([url for _, url in running], tmp_path) as url,
    ):
        async with (
            Client.http(url, era="modern", elicitation_handler=accept) as client,
            Client.http(url, era="legacy", elicitation_handler=accept) as legacy,
        ):
            workers = 8
            answered = 0
            failed: list[BaseException] = []
            stopping = asyncio.Event()

            async def load() -> None:
                nonlocal answered
                while not stopping.is_set():
                    try:
                        await client.call_tool("nap", {"seconds": 0.05})
                        answered += 1
                    except McpError as error:
                        failed.append(error)

            running_load = [asyncio.create_task(load()) for _ in range(workers)]
            await asyncio.sleep(0.5)
            running[1][0].kill()
            before = answered
            await asyncio.sleep(1.0)
            stopping.set()
            await asyncio.gather(*running_load)
            assert len(failed) <= workers, f"more failed than were in flight: {failed}"
            assert answered > before + 2 * workers, "the load went on"
            survivors = {running[0][0].pid, running[2][0].pid}
            for talking in (client, legacy):
                answers = {(await talking.call_tool("whoami")).content[0].text for _ in range(4)}
                assert answers == {str(pid) for pid in survivors}, answers
            result = await legacy.call_tool("confirm")
            assert result.content[0].text.startswith("confirmed by "), result

            # Redis crashes and comes back empty: the replicas, not restarted, go on. Plain
            # and multi round-trip modern calls never stop; tasks work again.
            redis.restart()
            for _ in range(4):
                assert (await client.call_tool("confirm")).content[0].text.startswith("confirmed by ")
            for _ in range(100):
                try:
                    task = await client.call_tool_as_task("sleep", {"seconds": 0})
                    break
                except McpError:
                    await asyncio.sleep(0.1)
            else:
                raise AssertionError("tasks did not work again once Redis was back")
            assert (await task.result()).content[0].text.startswith("slept ")


def sse(response: http.client.HTTPResponse, done: Callable[[list[dict[str, Any]]], bool]) -> list[tuple[str, Any]]:
    """The events of an SSE response, as (id, message), until `done` says so of the messages."""
    events: list[tuple[str, Any]] = []
    event_id, data = "", ""
    for raw in response:
        line = raw.decode().rstrip("\r\n")
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data += line[5:].strip()
        elif not line:
            if data:
                events.append((event_id, json.loads(data)))
                if done([message for _, message in events]):
                    break
            event_id, data = "", ""
    return events


def resume_elsewhere(url: str) -> tuple[list[float], str]:
    """A raw legacy client behind round robin: opens a session, calls `count`, goes after
    three progress notifications, and resumes the stream with `Last-Event-ID` (another
    replica answers each request); gives every progress value seen and the result."""
    target = urllib.parse.urlsplit(url)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}

    def post(body: dict[str, Any], extra: dict[str, str]) -> http.client.HTTPResponse:
        connection = http.client.HTTPConnection(target.hostname or "", target.port, timeout=10)
        connection.request("POST", target.path, json.dumps(body), {**headers, **extra})
        return connection.getresponse()

    opened = post(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        },
        {},
    )
    opened.read()
    session = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session).read()
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "count", "arguments": {}, "_meta": {"progressToken": "t"}},
    }
    answer = post(call, session)
    before = sse(answer, lambda messages: len(messages) == 3)
    answer.close()
    connection = http.client.HTTPConnection(target.hostname or "", target.port, timeout=10)
    connection.request(
        "GET", target.path, headers={**session, "accept": "text/event-stream", "last-event-id": before[-1][0]}
    )
    after = sse(connection.getresponse(), lambda messages: "result" in messages[-1])
    messages = [message for _, message in before + after]
    progress = [message["params"]["progress"] for message in messages if "params" in message]
    return progress, messages[-1]["result"]["content"][0]["text"]


async def test_a_legacy_stream_cut_on_one_replica_resumes_on_another(balanced: str) -> None:
    progress, result = await asyncio.to_thread(resume_elsewhere, balanced)
    assert progress == list(range(1, 11)), "every event once"
    assert result.startswith("counted by ")

"""Tools as tasks between Python peers: a ``task="optional"`` tool runs as a task for a
client that declares the 2026-07-28 extension (which follows it to its result, answering
what it asks) and in place for one that does not; a ``task="required"`` one refuses the
latter with -32021. A ``ToolTask`` handle polls, waits for, reads and cancels a task in both
eras; a server with a ``task_store`` killed mid-task still answers for its tasks after a
restart."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from conftest import ERAS, TESTS, http_server, start_announcing
from oxmcp import Client, Context, McpError, Server
from oxmcp.client import Era
from oxmcp.fastmcp import FastMCP
from oxmcp.fastmcp.utilities.tasks import TaskConfig
from oxmcp.types import ElicitRequest


def task_server() -> Server:
    server = Server("tasks", task_poll_interval=0.05)

    @server.tool(task="optional")
    async def confirm(ctx: Context) -> str:
        answer = await ctx.elicit("Sure?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
        return "confirmed" if (answer.data or {}).get("ok") else "declined"

    @server.tool(task="required")
    def quick() -> str:
        return "quick"

    return server


async def accept(request: ElicitRequest) -> dict[str, object]:
    return {"action": "accept", "content": {"ok": True}}


async def test_a_tool_runs_as_a_task_for_clients_that_support_tasks() -> None:
    async with await task_server().start_http(port=0) as http:
        async with Client.http(http.url, era="modern", elicitation_handler=accept) as client:
            result = await client.call_tool("confirm")
            assert result.content[0].text == "confirmed"
            assert (await client.call_tool("quick")).content[0].text == "quick"
        async with Client.http(http.url, era="modern", elicitation_handler=accept, tasks=False) as plain:
            assert (await plain.call_tool("confirm")).content[0].text == "confirmed"
            with pytest.raises(McpError) as refused:
                await plain.call_tool("quick")
            assert refused.value.code == -32021


async def test_a_fastmcp_tool_runs_as_a_task_with_its_task_setting() -> None:
    mcp = FastMCP("fastmcp tasks", task_poll_interval=0.05)

    @mcp.tool(task=True)
    async def double(n: int) -> int:
        return n * 2

    @mcp.tool(task=TaskConfig(mode="required"))
    def always() -> str:
        return "done"

    async with Client(mcp, era="modern") as client:
        tools = {tool.name: (tool.execution or {}).get("taskSupport") for tool in await client.list_tools()}
        assert tools == {"double": "optional", "always": "required"}
        assert (await client.call_tool("double", {"n": 2})).structured_content == {"result": 4}
        assert (await client.call_tool("always")).content[0].text == "done"
    async with Client(mcp, era="modern", tasks=False) as plain:
        assert (await plain.call_tool("double", {"n": 3})).structured_content == {"result": 6}
        with pytest.raises(McpError) as refused:
            await plain.call_tool("always")
        assert refused.value.code == -32021


async def test_a_fastmcp_server_with_tasks_on_runs_each_tool_as_a_task_unless_it_says_otherwise() -> None:
    mcp = FastMCP("fastmcp tasks", tasks=True, task_poll_interval=0.05)

    @mcp.tool
    async def triple(n: int) -> int:
        return n * 3

    @mcp.tool(task=False)
    def quick() -> str:
        return "now"

    async with Client(mcp, era="modern") as client:
        listed = {tool.name: tool.to_wire().get("execution") for tool in await client.list_tools()}
        assert listed == {"triple": {"taskSupport": "optional"}, "quick": None}
        assert (await client.call_tool("triple", {"n": 2})).structured_content == {"result": 6}


def handle_server() -> Server:
    server = task_server()

    @server.tool(task="optional")
    async def sleep(seconds: float, ctx: Context) -> str:
        assert ctx.is_task
        await ctx.progress(1, 2)
        await ctx.task_status(f"sleeping {seconds} s")
        await asyncio.sleep(seconds)
        return f"slept {seconds} s"

    @server.tool()
    def plain() -> str:
        return "plain"

    @server.tool(task="required", asks_before_task=True)
    async def greet_later(ctx: Context) -> str:
        answer = await ctx.elicit("Sure?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
        await ctx.begin_task()
        assert ctx.is_task
        return "greeted" if (answer.data or {}).get("ok") else "not greeted"

    @server.tool(task="required")
    async def report(ctx: Context) -> str:
        for step in (1, 2):
            await asyncio.sleep(0.02)
            await ctx.progress(step, 2)
        return "reported"

    return server


@pytest.mark.parametrize("era", ERAS)
async def test_a_task_handle_polls_waits_reads_and_cancels(era: Era) -> None:
    async with Client(handle_server(), era=era, elicitation_handler=accept) as client:
        task = await client.call_tool_as_task("sleep", {"seconds": 0.2})
        assert task.id is not None and len(task.id) == 32
        now = await task.status()
        assert now is not None and now.status == "working"
        assert now.ttl_ms == 3_600_000
        assert (await task.result()).content[0].text == "slept 0.2 s"
        ended = await task.wait()
        assert ended is not None and ended.status == "completed"

        long = await client.call_tool_as_task("sleep", {"seconds": 30})
        for _ in range(100):
            said = await long.status()
            assert said is not None
            if said.status_message is not None:
                break
            await asyncio.sleep(0.02)
        assert said is not None and said.status_message == "sleeping 30.0 s"
        await long.cancel()
        cancelled = await long.wait()
        assert cancelled is not None and cancelled.status == "cancelled"
        with pytest.raises(asyncio.CancelledError):
            await long.result()

        # A required tool is run as a task by call_tool on its own, what it asks answered.
        assert (await client.call_tool("quick")).content[0].text == "quick"
        asking = await client.call_tool_as_task("confirm")
        assert (await asking.result()).content[0].text == "confirmed"

        # Asked in place (2026-07-28 rounds) or as the task's question (2025-11-25).
        assert (await client.call_tool("greet_later")).content[0].text == "greeted"

        if era == "legacy":
            # 2025-11-25: the call's progress token stays valid while its task runs.
            seen: list[float] = []
            reported = await client.call_tool("report", progress_handler=lambda p, t, m: seen.append(p))
            assert reported.content[0].text == "reported"
            await asyncio.sleep(0)
            assert seen == [1, 2]

        plain = await client.call_tool_as_task("plain")
        assert plain.id is None and await plain.status() is None
        assert (await plain.result()).content[0].text == "plain"


async def test_a_restarted_server_keeps_finished_tasks_and_fails_interrupted_ones(tmp_path: Path) -> None:
    command = [sys.executable, str(TESTS / "servers" / "tasks.py"), str(tmp_path / "tasks.db")]
    first, url = start_announcing(command)
    try:
        async with Client.http(url, era="modern") as client:
            finished = await client.call_tool_as_task("sleep", {"seconds": 0})
            assert (await finished.result()).content[0].text == "slept 0.0 s"
            running = await client.call_tool_as_task("sleep", {"seconds": 60})
            now = await running.status()
            assert now is not None and now.status == "working"
            first.kill()
            first.wait()
    finally:
        first.kill()
        first.wait()
    with http_server(command) as url:
        async with Client.http(url, era="modern") as client:
            assert finished.id is not None and running.id is not None
            done = await client.tool_task(finished.id).status()
            assert done is not None and done.status == "completed"
            assert (await client.tool_task(finished.id).result()).content[0].text == "slept 0.0 s"
            interrupted = await client.tool_task(running.id).wait()
            assert interrupted is not None and interrupted.status == "failed"
            assert interrupted.status_message == "the server stopped while the task was running"
            with pytest.raises(McpError):
                await client.tool_task(running.id).result()


async def test_a_session_sees_only_its_own_tasks_and_tasks_expire() -> None:
    server = Server("tasks", task_ttl=0.5, task_poll_interval=0.05)

    @server.tool(task="optional")
    def quick() -> str:
        return "quick"

    async with Client(server, era="legacy") as one, Client(server, era="legacy") as other:
        task = await one.call_tool_as_task("quick")
        assert (await task.result()).content[0].text == "quick"
        assert task.id is not None
        with pytest.raises(McpError) as refused:
            await other.tool_task(task.id).status()
        assert refused.value.code == -32602
        await asyncio.sleep(0.7)
        with pytest.raises(McpError) as expired:
            await task.status()
        assert expired.value.code == -32602

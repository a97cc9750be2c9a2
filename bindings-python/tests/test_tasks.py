"""Tools as tasks (the 2026-07-28 tasks extension) between Python peers over HTTP: a
``task="optional"`` tool runs as a task for a client that declares the extension (which
follows it to its result, answering what it asks) and in place for one that does not; a
``task="required"`` one refuses the latter with -32021."""

from __future__ import annotations

import pytest

from oxmcp import Client, Context, McpError, Server
from oxmcp.types import ElicitRequest


def task_server() -> Server:
    server = Server("tasks")

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

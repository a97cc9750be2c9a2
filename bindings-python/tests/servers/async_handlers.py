"""Async handlers of every kind, run in process; prints what it checked as JSON. The wheel
test runs it under each newer Python, where handlers' tasks start eagerly (3.12 and later):
a handler that does not wait ends in the step that starts it."""

import asyncio
import contextvars
import json

from oxmcp import Client, Context, Server, ToolError

server = Server("async-handlers")
request = contextvars.ContextVar("request", default="unset")


@server.tool()
async def echo(text: str) -> str:
    return text


@server.tool()
async def waits(text: str) -> str:
    await asyncio.sleep(0.01)
    return text


@server.tool()
async def inside() -> dict[str, object]:
    """What a handler sees of asyncio: its own task, and contextvars of its own."""
    before = request.get()
    request.set("set inside")
    return {"task": asyncio.current_task() is not None, "before": before, "after": request.get()}


@server.tool()
async def fails() -> str:
    raise ToolError("refused")


@server.tool()
async def endless(ctx: Context) -> str:
    await asyncio.sleep(60)
    return "late"


async def main() -> None:
    async with Client(server) as client:
        echoed = await asyncio.gather(*(client.call_tool("echo", {"text": str(i)}) for i in range(100)))
        waited = await asyncio.gather(*(client.call_tool("waits", {"text": str(i)}) for i in range(20)))
        seen = [(await client.call_tool("inside")).structured_content for _ in range(2)]
        failed = await client.call_tool("fails")
        try:
            await client.call_tool("endless", timeout=0.2)
            timed_out = False
        except Exception:
            timed_out = True
        after = await client.call_tool("echo", {"text": "still here"})
    print(
        json.dumps(
            {
                "echoed": [result.content[0].text for result in echoed] == [str(i) for i in range(100)],
                "waited": [result.content[0].text for result in waited] == [str(i) for i in range(20)],
                "inside": seen,
                "outside": request.get(),
                "failed": [failed.is_error, failed.content[0].text],
                "timed_out": timed_out,
                "after": after.content[0].text,
            }
        )
    )


asyncio.run(main())

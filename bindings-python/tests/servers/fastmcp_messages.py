"""A program written with FastMCP's `Client` that follows a server's notifications with a
`message_handler`, as FastMCP's users write one: `tests/test_dropin.py` runs it with FastMCP
and, with its imports changed, with oxmcp, and compares what it prints."""

import asyncio

from fastmcp import Client, Context, FastMCP
from fastmcp.client.messages import MessageHandler

mcp = FastMCP("messages")


def extra() -> str:
    """Added while a call runs."""
    return "extra"


@mcp.tool
async def grow(ctx: Context) -> str:
    await ctx.info("growing")
    mcp.tool(extra)
    return "grown"


@mcp.tool
async def say(text: str, ctx: Context) -> str:
    await ctx.warning(text)
    return text


class Recorder(MessageHandler):
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def on_tool_list_changed(self, message) -> None:
        self.seen.append(f"{type(message).__name__}")

    async def on_logging_message(self, message) -> None:
        self.seen.append(f"{type(message).__name__}: {message.params.level} {message.params.data}")


async def main() -> None:
    recorder = Recorder()
    async with Client(mcp, message_handler=recorder) as client:
        await client.call_tool("grow", {})
        await asyncio.sleep(0.2)
        print("hooks:", sorted(recorder.seen))
        print("tools:", sorted(tool.name for tool in await client.list_tools()))

    kinds: list[str] = []

    async def every(message) -> None:
        kinds.append(f"{type(message).__name__} {message.method}")

    async with Client(mcp, message_handler=every) as client:
        await client.call_tool("say", {"text": "careful"})
        await asyncio.sleep(0.2)
    print("function:", sorted(set(kinds)))


if __name__ == "__main__":
    asyncio.run(main())

"""A server written the way FastMCP's users watch the notifications their clients send:
middleware with `on_notification` (and `on_message`, which sees them too).
`tests/test_dropin.py` runs it with FastMCP and, with its imports changed, with oxmcp, and
compares what the middleware saw."""

import asyncio

from fastmcp import Client, FastMCP
from fastmcp.server.middleware import Middleware

mcp = FastMCP("Notified")
seen: list[str] = []


class Watching(Middleware):
    async def on_message(self, context, call_next):
        if context.type == "notification":
            seen.append(f"message {context.method}")
        return await call_next(context)

    async def on_notification(self, context, call_next):
        seen.append(f"notification {context.method} from {context.source}")
        return await call_next(context)


mcp.add_middleware(Watching())


@mcp.tool
def ping() -> str:
    return "pong"


async def main() -> None:
    async with Client(mcp, mode="legacy", roots=["file:///work"]) as client:
        await client.call_tool("ping", {})
        await client.send_roots_list_changed()
        for _ in range(100):
            if len(seen) >= 4:
                break
            await asyncio.sleep(0.01)
    for line in sorted(seen):
        print(line)


asyncio.run(main())

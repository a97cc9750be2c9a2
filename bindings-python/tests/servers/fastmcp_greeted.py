"""A server written the way FastMCP's users watch and gate the clients that connect:
middleware with `on_initialize`, which logs who connects and what the server answered, and
refuses a client by name. `tests/test_dropin.py` runs it with FastMCP and, with its imports
changed, with oxmcp, and compares what it prints."""

import asyncio

from fastmcp import Client, FastMCP
from fastmcp.exceptions import McpError
from fastmcp.server.middleware import Middleware

mcp = FastMCP("Greeted", instructions="Be brief.")
seen: list[str] = []


class Gatekeeper(Middleware):
    async def on_initialize(self, context, call_next):
        client = context.message.params.client_info.name
        if client == "blocked":
            raise McpError(-32001, f"{client} may not connect")
        result = await call_next(context)
        seen.append(f"{context.method}: {client} got {result.server_info.name} ({result.instructions})")
        return result


mcp.add_middleware(Gatekeeper())


@mcp.tool
def ping() -> str:
    return "pong"


async def main() -> None:
    async with Client(mcp, mode="legacy", client_info={"name": "welcome", "version": "1"}) as client:
        print((await client.call_tool("ping", {})).data)
    try:
        async with Client(mcp, mode="legacy", client_info={"name": "blocked", "version": "1"}):
            print("blocked got in")
    except Exception as error:
        print("refused:", "blocked may not connect" in str(error))
    print(seen)


asyncio.run(main())

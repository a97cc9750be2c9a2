"""A program written with FastMCP's `Client` that reaches its server through MCP
configuration dicts, as Claude Desktop and Cursor write them (one server, and two at once,
each under its name): `tests/test_dropin.py` runs it
with FastMCP and, with its imports changed, with oxmcp, and compares what it prints. Run
with `--serve`, it is the server the configs name (over stdio)."""

import asyncio
import os
import sys

from fastmcp import Client, FastMCP

mcp = FastMCP("configured")


@mcp.tool
def greet(name: str) -> str:
    """Greets with the greeting the config's env gives."""
    return f"{os.environ.get('GREETING', 'hello')}, {name}"


@mcp.resource("greetings://motto")
def motto() -> str:
    """The config's greeting."""
    return os.environ.get("GREETING", "hello")


SERVER = {"command": sys.executable, "args": [__file__, "--serve"], "env": {"GREETING": "ahoy"}}


async def main() -> None:
    for config in ({"mcpServers": {"configured": SERVER}}, {"configured": {**SERVER, "timeout": 30000}}):
        async with Client(config) as client:
            tools = await client.list_tools()
            print("tools:", [tool.name for tool in tools])
            result = await client.call_tool("greet", {"name": "Ada"})
            print("greet:", result.data)
    both = {"mcpServers": {"sailor": SERVER, "clerk": {**SERVER, "env": {"GREETING": "good day"}}}}
    async with Client(both) as client:
        print("tools:", sorted(tool.name for tool in await client.list_tools()))
        print("resources:", sorted(str(resource.uri) for resource in await client.list_resources()))
        for tool in ("sailor_greet", "clerk_greet"):
            print(f"{tool}:", (await client.call_tool(tool, {"name": "Ada"})).data)
        motto = await client.read_resource("greetings://clerk/motto")
        print("motto:", motto[0].text, motto[0].uri)


if __name__ == "__main__":
    if "--serve" in sys.argv:
        mcp.run()
    else:
        asyncio.run(main())

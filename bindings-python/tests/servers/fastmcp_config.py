"""A program written with FastMCP's `Client` that reaches its server through MCP
configuration dicts, as Claude Desktop and Cursor write them: `tests/test_dropin.py` runs it
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


SERVER = {"command": sys.executable, "args": [__file__, "--serve"], "env": {"GREETING": "ahoy"}}


async def main() -> None:
    for config in ({"mcpServers": {"configured": SERVER}}, {"configured": {**SERVER, "timeout": 30000}}):
        async with Client(config) as client:
            tools = await client.list_tools()
            print("tools:", [tool.name for tool in tools])
            result = await client.call_tool("greet", {"name": "Ada"})
            print("greet:", result.data)


if __name__ == "__main__":
    if "--serve" in sys.argv:
        mcp.run()
    else:
        asyncio.run(main())

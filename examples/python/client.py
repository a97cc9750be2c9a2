"""The example client written with oxmcp's Python package: starts the Python example server
over stdio and shows what they exchange, once in each protocol era.

    python examples/python/client.py [python]     (the server's interpreter; default: this one)
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from oxmcp import Client
from oxmcp.types import ElicitRequest, ElicitResult

SERVER = Path(__file__).with_name("server.py")


async def confirm_for_two(request: ElicitRequest) -> ElicitResult:
    """The user: confirms every booking, for two."""
    print(f"   (asked: {request.message})")
    return ElicitResult(action="accept", content={"confirm": True, "seats": 2})


def show(request: str, response: Any) -> None:
    print(f"-> {request}\n<- {response.model_dump_json(exclude_none=True, by_alias=True)}")


async def main(python: str) -> None:
    for era in ("legacy", "modern"):
        async with Client.stdio([python, str(SERVER)], era=era, elicitation_handler=confirm_for_two) as client:
            print(f"== {era} era over stdio")
            tools = await client.list_tools()
            print(f"-> tools/list\n<- {len(tools)} tools: {', '.join(tool.name for tool in tools)}")
            show('tools/call echo {"text":"hello"}', await client.call_tool("echo", {"text": "hello"}))
            show('tools/call add {"a":2,"b":3}', await client.call_tool("add", {"a": 2, "b": 3}))
            show('tools/call book {"date":"Friday"}', await client.call_tool("book", {"date": "Friday"}))
            show("resources/read greeting://ada", await client.read_resource("greeting://ada"))
            show("prompts/get review", await client.get_prompt("review", {"code": "print(1)"}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else sys.executable))

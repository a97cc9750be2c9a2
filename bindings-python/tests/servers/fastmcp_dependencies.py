"""A server written the way FastMCP's users inject what a handler needs rather than take it
as an argument: `CurrentContext()`, `CurrentFastMCP()` and `Depends(...)` (sync, async, a
generator that cleans up, one depending on another) as parameters' defaults, and
`get_context()` inside a handler. `tests/test_dropin.py` runs it with FastMCP and, with its
imports changed, with oxmcp, and compares what a client gets."""

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastmcp import Client, Context, FastMCP
from fastmcp.dependencies import CurrentContext, CurrentFastMCP, Depends
from fastmcp.server.dependencies import get_context

mcp = FastMCP("Dependencies")
closed: list[str] = []


def settings() -> dict[str, str]:
    return {"unit": "celsius"}


@asynccontextmanager
async def connection() -> AsyncIterator[str]:
    yield "connection-1"
    closed.append("connection-1")


async def repository(conn: str = Depends(connection), config: dict[str, str] = Depends(settings)) -> str:
    return f"repository on {conn} in {config['unit']}"


@mcp.tool
async def forecast(city: str, days: int = 1, ctx: Context = CurrentContext()) -> str:
    """Forecasts the weather."""
    await ctx.info(f"forecasting {city}")
    return f"{city}: sunny for {days} day(s), asked by request {ctx.request_id is not None}"


@mcp.tool
def inventory(repo: str = Depends(repository), server: FastMCP = CurrentFastMCP()) -> str:
    """Reads the inventory."""
    return f"{repo} on {server.name}"


@mcp.tool
async def who() -> str:
    return f"served by {get_context().fastmcp.name}"


@mcp.resource("config://{section}")
def config(section: str, values: dict[str, str] = Depends(settings)) -> str:
    return f"{section}: {values['unit']}"


@mcp.prompt
def report(topic: str, values: dict[str, str] = Depends(settings)) -> str:
    return f"Report on {topic} in {values['unit']}"


async def main() -> None:
    async with Client(mcp) as client:
        for tool in await client.list_tools():
            print(tool.name, json.dumps([tool.input_schema, tool.output_schema], sort_keys=True))
        print((await client.call_tool("forecast", {"city": "Oslo", "days": 2})).data)
        print((await client.call_tool("inventory", {})).data)
        print((await client.call_tool("who", {})).data)
        (template,) = await client.list_resource_templates()
        print(template.uri_template, (await client.read_resource("config://display"))[0].text)
        (prompt,) = await client.list_prompts()
        print([argument.name for argument in prompt.arguments])
        print((await client.get_prompt("report", {"topic": "rain"})).messages[0].content.text)
    print("closed:", closed)


asyncio.run(main())

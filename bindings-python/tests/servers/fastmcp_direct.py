"""A program that asks a FastMCP server what it offers and calls it directly, without a
client, as FastMCP's users do in their tests: `await mcp.list_tools()`, `get_tool`,
`call_tool`, `render_prompt`... `tests/test_dropin.py` runs it with FastMCP and, with its
imports changed, with oxmcp, and compares what it prints."""

import asyncio
import json

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import Middleware

mcp = FastMCP("Direct")


@mcp.tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@mcp.tool(tags={"internal"})
def purge() -> str:
    """Purges the caches."""
    return "purged"


@mcp.tool
def secret() -> str:
    """Left out of every list by the middleware."""
    return "hush"


@mcp.tool
def fail(reason: str) -> str:
    """Fails with the reason it is given."""
    raise ToolError(f"failed: {reason}")


@mcp.resource("notes://public")
def public_notes() -> str:
    return "public"


@mcp.resource("notes://internal", tags={"internal"})
def internal_notes() -> str:
    return "internal"


@mcp.prompt
def review(code: str) -> str:
    """Asks for a review."""
    return f"Please review: {code}"


class HideSecret(Middleware):
    async def on_list_tools(self, context, call_next):
        return [tool for tool in await call_next(context) if tool.name != "secret"]


async def main() -> None:
    mcp.add_middleware(HideSecret())
    mcp.disable(tags={"internal"})
    for tool in await mcp.list_tools():
        schemas = json.dumps([tool.parameters, tool.output_schema], sort_keys=True)
        print(tool.name, tool.description, sorted(tool.tags), schemas)
    print("get_tool:", (await mcp.get_tool("add")).description, await mcp.get_tool("purge"))

    result = await mcp.call_tool("add", {"a": 1, "b": 2})
    print(type(result).__name__, result.structured_content, [block.text for block in result.content])
    try:
        await mcp.call_tool("fail", {"reason": "on purpose"})
    except ToolError as error:
        print("ToolError:", error)

    print("resources:", sorted(str(resource.uri) for resource in await mcp.list_resources()))
    print("prompts:", [prompt.name for prompt in await mcp.list_prompts()])
    rendered = await mcp.render_prompt("review", {"code": "x = 1"})
    print("rendered:", [(message.role, message.content.text) for message in rendered.messages])


asyncio.run(main())

"""A program that asks a server written with the official SDK what it offers and calls it
directly, without a client, as the official SDK's users do in their tests:
`await mcp.list_tools()`, `call_tool`, `read_resource`, `get_prompt`. `tests/test_dropin.py`
runs it with the official SDK and, with its import changed, with oxmcp, and compares what it
prints."""

import asyncio
import json

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedResourceError, UnexpectedToolError

mcp = MCPServer("Direct")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@mcp.tool()
def get_weather(city: str) -> str:
    """Tells the weather of a city."""
    return f"Sunny in {city}"


@mcp.tool()
def fail(reason: str) -> str:
    """Fails with the reason it is given."""
    raise ToolError(f"failed: {reason}")


@mcp.tool()
def crash() -> str:
    """Crashes, its text for the server's log alone."""
    raise OSError("/var/secret/key.pem unreadable")


@mcp.resource("notes://{day}")
def notes(day: str) -> str:
    """The notes of a day."""
    if day == "sunday":
        raise ResourceError("no notes on sundays")
    if day == "never":
        raise LookupError("the notes table at 10.0.0.7 is gone")
    return f"notes of {day}"


@mcp.prompt()
def review(code: str) -> str:
    """Asks for a review."""
    return f"Please review: {code}"


async def main() -> None:
    for tool in await mcp.list_tools():
        print(tool.name, tool.description, json.dumps([tool.input_schema, tool.output_schema], sort_keys=True))
    for name, arguments in [("add", {"a": 1, "b": 2}), ("get_weather", {"city": "Lyon"})]:
        result = await mcp.call_tool(name, arguments)
        print(name, result.structured_content, [block.text for block in result.content], result.is_error)
    try:
        await mcp.call_tool("fail", {"reason": "on purpose"})
    except ToolError as error:
        print("fail raised:", error)
    try:
        await mcp.call_tool("crash", {})
    except UnexpectedToolError as error:
        print("crash raised UnexpectedToolError:", error)
    try:
        await mcp.call_tool("missing", {})
    except ToolError:
        print("missing raised ToolError")
    for day in ("sunday", "never"):
        try:
            await mcp.read_resource(f"notes://{day}")
        except UnexpectedResourceError as error:
            print(day, "raised UnexpectedResourceError:", error)
        except ResourceError as error:
            print(day, "raised ResourceError:", error)

    print("templates:", [template.uri_template for template in await mcp.list_resource_templates()])
    print("prompts:", [prompt.name for prompt in await mcp.list_prompts()])
    rendered = await mcp.get_prompt("review", {"code": "x = 1"})
    print("rendered:", [(message.role, message.content.text) for message in rendered.messages])


asyncio.run(main())

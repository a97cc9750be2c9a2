"""What FastMCP's documentation shows a server doing with its requests, written as it is
written there: a completion function (`@mcp.completion`, no parentheses) that checks what
it is given against `mcp.types`, the request's `_meta` read through
`ctx.request_context.meta`, state that middleware sets for the request alone read by the
tool, middleware that refuses calls of the tools it hides, changes arguments in place and
inspects results by the official types, a `ToolError` given a `log_level`, a dependency that
cannot be resolved, and a tool reading a resource that does not exist. It prints what
FastMCP's client gets."""

import asyncio
import logging

from fastmcp import Client, Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.dependencies import TokenClaim
from fastmcp.server.middleware import Middleware, MiddlewareContext
from mcp.types import PromptReference, ResourceTemplateReference, TextContent

mcp = FastMCP("Requests")


@mcp.prompt
def write_poem(theme: str) -> str:
    return f"Write a poem about {theme}"


@mcp.resource("files://{name}")
def file(name: str) -> str:
    return name


@mcp.completion
def complete(ref, argument, context):
    if isinstance(ref, PromptReference) and ref.name == "write_poem" and argument.name == "theme":
        return [theme for theme in ["nature", "love", "night"] if theme.startswith(argument.value)]
    if isinstance(ref, ResourceTemplateReference):
        return [f"{argument.value}{suffix}" for suffix in (".md", ".txt")]
    return None


class Caller(Middleware):
    async def on_call_tool(self, context: MiddlewareContext, call_next):
        await context.fastmcp_context.set_state("caller", object(), serializable=False)
        await context.fastmcp_context.set_state("team", "ops")
        return await call_next(context)


class PrivateTools(Middleware):
    """The documentation's filter: private tools left out of lists, and their calls refused
    after looking the tool up (which does not run the middleware)."""

    async def on_list_tools(self, context: MiddlewareContext, call_next):
        return [tool for tool in await call_next(context) if "private" not in tool.tags]

    async def on_call_tool(self, context: MiddlewareContext, call_next):
        tool = await context.fastmcp_context.fastmcp.get_tool(context.message.name)
        if tool is not None and "private" in tool.tags:
            raise ToolError("Tool not found")
        return await call_next(context)


class Sanitizer(Middleware):
    """The documentation's input sanitizer: arguments changed in place."""

    async def on_call_tool(self, context: MiddlewareContext, call_next):
        if context.message.name == "search":
            context.message.arguments["query"] = context.message.arguments["query"].strip().lower()
        return await call_next(context)


class TextInspection(Middleware):
    """The documentation's inspection of a result's text blocks, by the official type."""

    async def on_call_tool(self, context: MiddlewareContext, call_next):
        result = await call_next(context)
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        if context.message.name == "search":
            result.content = [TextContent(type="text", text=f"{texts} inspected")]
        return result


for middleware in (Caller(), PrivateTools(), Sanitizer(), TextInspection()):
    mcp.add_middleware(middleware)


@mcp.tool(tags={"private"})
def secret() -> str:
    return "s3cret"


@mcp.tool
def search(query: str) -> str:
    return f"query={query!r}"


@mcp.tool
async def whoami(ctx: Context) -> str:
    caller = await ctx.get_state("caller")
    return f"{type(caller).__name__} of {await ctx.get_state('team')}"


@mcp.tool
async def traced(ctx: Context) -> str:
    return str(ctx.request_context.meta["trace"])


@mcp.tool
async def process_data(uri: str, ctx: Context) -> str:
    contents = await ctx.read_resource(uri)
    return contents[0].content


@mcp.tool
def count_days(a: int, b: int) -> int:
    if a >= b:
        raise ToolError("a must be below b", log_level=logging.WARNING)
    return b - a


@mcp.tool
async def add_expense(amount: float, user_id: str = TokenClaim("oid")) -> dict:
    return {"user_id": user_id, "amount": amount}


async def main() -> None:
    async with Client(mcp) as client:
        prompt = PromptReference(type="ref/prompt", name="write_poem")
        print("poem", (await client.complete(prompt, {"name": "theme", "value": "n"})).values)
        template = {"type": "ref/resource", "uri": "files://{name}"}
        print("file", (await client.complete(template, {"name": "name", "value": "notes"})).values)
        print("whoami", (await client.call_tool("whoami", {})).data)
        print("traced", (await client.call_tool("traced", {}, meta={"trace": "t-1"})).data)
        print("listed", sorted(tool.name for tool in await client.list_tools()))
        print("search", (await client.call_tool("search", {"query": "  HeLLo "})).content[0].text)
        calls = (
            ("count_days", {"a": 2, "b": 1}),
            ("add_expense", {"amount": 1.5}),
            ("secret", {}),
            ("process_data", {"uri": "data://missing"}),
        )
        for name, arguments in calls:
            result = await client.call_tool(name, arguments, raise_on_error=False)
            print(name, result.is_error, result.content[0].text)


if __name__ == "__main__":
    asyncio.run(main())

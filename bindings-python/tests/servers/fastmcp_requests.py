"""What FastMCP's documentation shows a server doing with its requests, written as it is
written there: a completion function (`@mcp.completion`, no parentheses) that checks what
it is given against `mcp.types`, the request's `_meta` read through
`ctx.request_context.meta`, state that middleware sets for the request alone read by the
tool, a `ToolError` given a `log_level`, and a dependency that cannot be resolved. It
prints what FastMCP's client gets."""

import asyncio
import logging

from fastmcp import Client, Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.dependencies import TokenClaim
from fastmcp.server.middleware import Middleware, MiddlewareContext
from mcp.types import PromptReference, ResourceTemplateReference

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


mcp.add_middleware(Caller())


@mcp.tool
async def whoami(ctx: Context) -> str:
    caller = await ctx.get_state("caller")
    return f"{type(caller).__name__} of {await ctx.get_state('team')}"


@mcp.tool
async def traced(ctx: Context) -> str:
    return str(ctx.request_context.meta["trace"])


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
        for name, arguments in (("count_days", {"a": 2, "b": 1}), ("add_expense", {"amount": 1.5})):
            result = await client.call_tool(name, arguments, raise_on_error=False)
            print(name, result.is_error, result.content[0].text)


if __name__ == "__main__":
    asyncio.run(main())

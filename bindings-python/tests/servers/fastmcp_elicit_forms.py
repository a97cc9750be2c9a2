"""FastMCP's shorthand forms of `ctx.elicit(message, response_type)`, the way its users
write them: titled choices as a dict, several choices as a nested list, titled ones as a
list of one dict, `list[...]` annotations, a value with the title and description of its
field; and two it refuses. `tests/test_dropin.py` runs it with FastMCP and, with its imports changed, with
oxmcp, and compares the forms the client was asked to fill in and what each tool got."""

import asyncio
import json
from typing import Any, Literal

from fastmcp import Client, Context, FastMCP

mcp = FastMCP("Forms")

#: What the client's user answers, by the message asked.
ANSWERS: dict[str, Any] = {
    "Priority?": {"value": "high"},
    "Positional?": {"value": "low"},
    "Colours?": {"value": ["red", "blue"]},
    "Sizes?": {"value": ["l"]},
    "Letters?": {"value": ["y"]},
    "How many?": {"value": 3},
    "One of?": {"value": "b"},
}


@mcp.tool
async def ask(ctx: Context, which: str) -> str:
    """Asks the form named `which`, and says what came back."""
    if which == "titled":
        got = await ctx.elicit("Priority?", {"low": {"title": "Low priority"}, "high": {"title": "High priority"}})
    elif which == "titled_keyword":
        got = await ctx.elicit("Positional?", response_type={"low": {"title": "Low"}, "high": {}})
    elif which == "multi":
        got = await ctx.elicit("Colours?", [["red", "green", "blue"]])
    elif which == "multi_titled":
        got = await ctx.elicit("Sizes?", [{"s": {"title": "Small"}, "l": {"title": "Large"}}])
    elif which == "annotated_list":
        got = await ctx.elicit("Letters?", list[Literal["x", "y"]])
    elif which == "missing":
        got = await ctx.elicit("Nothing?")
    elif which == "numbers":
        got = await ctx.elicit("Numbers?", list[int])
    elif which == "described":
        got = await ctx.elicit("How many?", int, response_title="Count", response_description="How many to make")
    else:
        got = await ctx.elicit("One of?", ["a", "b"])
    return f"{got.action} {json.dumps(getattr(got, 'data', None))}"


async def main() -> None:
    async def answer(message: str, response_type: Any, params: Any, context: Any) -> Any:
        print("asked", message, json.dumps(params.requestedSchema, sort_keys=True))
        return ANSWERS[message]

    async with Client(mcp, elicitation_handler=answer, mode="legacy") as client:
        forms = ("titled", "titled_keyword", "multi", "multi_titled", "annotated_list", "described", "plain")
        for which in (*forms, "missing", "numbers"):
            result = await client.call_tool_mcp("ask", {"which": which})
            print("got", which, result.isError, [block.text for block in result.content])


if __name__ == "__main__":
    asyncio.run(main())

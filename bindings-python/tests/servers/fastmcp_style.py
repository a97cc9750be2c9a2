"""A server written the way FastMCP's users write one: `tests/test_dropin.py` runs it with
FastMCP and, with its imports changed, with oxmcp, and compares what the client sees."""

import asyncio
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Literal

from fastmcp import Context, FastMCP
from fastmcp.apps import AppConfig, ResourceCSP, ResourcePermissions
from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult
from fastmcp.utilities.types import Image
from pydantic import BaseModel, Field

mcp = FastMCP("FastMCP style")


class Point(BaseModel):
    x: int
    y: int = 0


@dataclass
class Reading:
    sensor: str
    value: float


class Node(BaseModel):
    """A tree: its schema refers to itself."""

    value: int
    children: list["Node"] = []


class Mood(Enum):
    HAPPY = "happy"
    SAD = "sad"


@mcp.tool(tags={"math", "basic"})
def add(a: int, b: Annotated[int, Field(description="The second number", ge=0)] = 1) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool
def total(tree: Node) -> int:
    """Adds up a tree's values."""
    return tree.value + sum(total(child) for child in tree.children)


@mcp.tool
def nothing() -> None:
    """Does nothing."""


@mcp.tool
def settings() -> dict:
    return {"theme": "dark", "size": 3}


@mcp.tool
def counts() -> dict[str, int]:
    return {"a": 1}


@mcp.tool
def points(n: int) -> list[Point]:
    """Points on a line."""
    return [Point(x=i) for i in range(n)]


@mcp.tool
def read(sensor: str) -> Reading:
    return Reading(sensor=sensor, value=1.5)


@mcp.tool(title="Unannotated", annotations={"readOnlyHint": True})
def untyped(items: list):
    return items


@mcp.tool
def pixel() -> Image:
    return Image(data=b"\x89PNG\r\n\x1a\n", format="png")


@mcp.tool
def refuse(reason: str) -> str:
    raise ToolError(f"refused: {reason}")


@mcp.tool
def crash() -> str:
    raise ValueError("something broke")


@mcp.tool
def summary(words: list[str]) -> ToolResult:
    return ToolResult(content=[f"{len(words)} words", *words], structured_content={"count": len(words)})


@mcp.tool
async def pick(ctx: Context) -> str:
    mood = await ctx.elicit("Your mood?", response_type=Mood)
    size = await ctx.elicit("A size?", response_type=Literal["small", "large"])
    color = await ctx.elicit("A color?", response_type=["red", "green"])
    count = await ctx.elicit("How many?", response_type=int)
    if mood.action == "accept" and size.action == "accept" and color.action == "accept" and count.action == "accept":
        return f"{mood.data.value} {size.data} {color.data} {count.data}"
    return "declined"


@mcp.tool
async def steps(n: int, ctx: Context) -> str:
    for step in range(n):
        await ctx.report_progress(step + 1, n)
        await ctx.info(f"step {step + 1}")
    return "done"


@mcp.tool(output_schema={"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]})
def invoice(amounts: list[float]) -> dict[str, float]:
    """Its output schema given, not generated."""
    return {"total": sum(amounts)}


@mcp.tool(output_schema=None)
def plain_sum(a: int, b: int) -> int:
    """No output schema, so no structured content."""
    return a + b


@mcp.tool(timeout=0.2)
async def slow() -> str:
    """Takes longer than it may."""
    await asyncio.sleep(10)
    return "late"


@mcp.tool
def transport(ctx: Context) -> str | None:
    """How the server is served."""
    return ctx.transport


@mcp.tool
async def remember(note: str, ctx: Context) -> str:
    """Keeps a note for the session, and a lock for this request only."""
    notes = await ctx.get_state("notes") or []
    await ctx.set_state("notes", [*notes, note])
    lock = object()
    await ctx.set_state("lock", lock, serializable=False)
    held = await ctx.get_state("lock") is lock
    try:
        await ctx.set_state("lock", lock)
    except TypeError:
        pass
    else:
        raise AssertionError("an object is not JSON")
    return f"{note} kept; this request's lock is {'held' if held else 'lost'}"


@mcp.tool
async def recall(ctx: Context) -> dict:
    """The session's notes, and whether a lock outlived its request."""
    notes = await ctx.get_state("notes")
    await ctx.delete_state("notes")
    return {"notes": notes, "lock": await ctx.get_state("lock"), "after delete": await ctx.get_state("notes")}


@mcp.resource("data://settings", tags={"config"})
def settings_resource() -> dict:
    """The settings."""
    return {"theme": "dark"}


@mcp.resource("data://points/{n}")
def points_resource(n: int) -> str:
    return ",".join(str(i) for i in range(n))


@mcp.prompt
def ask(topic: str, detail: str = "short") -> str:
    """Ask about a topic."""
    return f"Tell me about {topic} ({detail})"


@mcp.prompt(tags={"chat"})
def plain(topic: str) -> str:
    return f"{topic}?"


@mcp.tool
def convert(amount: float, currency: str = "EUR") -> str:
    """Converts an amount of money.

    Looks the rate up in a table.

    Args:
        amount: How much to convert.
        currency: The currency to convert to.

    Returns:
        The converted amount, as text.
    """
    return f"{amount} {currency}"


@mcp.prompt
def review(code: str) -> str:
    """Review some code.

    Args:
        code: The code to review.
    """
    return f"Review: {code}"


@mcp.tool(app=AppConfig(resource_uri="ui://charts/view.html", visibility=["app", "model"]))
def chart(points: list[int]) -> str:
    """Charts points, rendered by the app at ui://charts/view.html."""
    return f"{len(points)} points"


@mcp.resource(
    "ui://charts/view.html",
    app=AppConfig(
        csp=ResourceCSP(resource_domains=["https://unpkg.com"]),
        permissions=ResourcePermissions(clipboard_write={}),
        prefers_border=True,
    ),
)
def chart_view() -> str:
    """The chart's view."""
    return "<!DOCTYPE html><html><body><div id=chart></div></body></html>"


@mcp.tool(version="1.0")
def quote(amount: int) -> int:
    """Quotes a price (v1)."""
    return amount


@mcp.tool(version="2.0")
def quote(amount: int, discount: int = 0) -> int:  # noqa: F811
    """Quotes a price with a discount (v2)."""
    return amount - discount

"""A server written with the official SDK whose tool asks its user to fill in a form the
way its users write one: a model of optional fields (`str | None = None`), a choice, several
choices, described fields. `tests/test_dropin.py` has the official client call it on the
official SDK and, with its import changed, on oxmcp, and compares the form it was asked to
fill in and the answer."""

from typing import Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

mcp = MCPServer("Forms")


class Booking(BaseModel):
    guests: int = Field(description="How many of you")
    name: str | None = None
    nickname: str | None = Field(default=None, description="What to call you")
    floor: int | None = 2
    seat: Literal["window", "aisle"] = "window"
    extras: list[Literal["wifi", "meal"]] = []


@mcp.tool()
async def book(ctx: Context) -> str:
    """Books a table, asking the user how."""
    answer = await ctx.elicit("Your booking?", schema=Booking)
    return f"{answer.action} {answer.data.model_dump_json() if answer.action == 'accept' else ''}"


if __name__ == "__main__":
    mcp.run()

"""A server whose tools are found by a search that answers in markdown
(`serialize_tools_for_output_markdown`), as FastMCP's users shorten what a model reads:
tools with choices (a `Literal`, an `Enum`, an optional one), defaults, a list of models, a
model and a union of models as parameters, no parameter at all, and typed results; and a
search that answers with a serializer of its own (given FastMCP's tools).
`tests/test_dropin.py` runs it with FastMCP and, with its imports changed, with oxmcp, and
compares what the searches answered."""

import asyncio
from enum import Enum
from typing import Literal

from fastmcp import Client, FastMCP
from fastmcp.server.transforms.search import RegexSearchTransform, serialize_tools_for_output_markdown
from pydantic import BaseModel, Field

mcp = FastMCP("Shop")


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


class Item(BaseModel):
    name: str
    price: float = Field(description="In euros")
    tags: list[str] = []


class Gift(BaseModel):
    to: str
    wrapped: bool = True


class Page(BaseModel):
    items: list[Item]
    next: str | None = None


@mcp.tool
def find_items(
    query: str,
    sort: Literal["price", "name"] = "name",
    colour: Colour | None = None,
    limit: int = Field(10, description="At most this many"),
) -> Page:
    """Finds items in the catalog."""
    return Page(items=[])


@mcp.tool
def order_items(items: list[Item], gift: Gift | None = None, express: bool = False) -> dict[str, int]:
    """Orders items."""
    return {"order": 1}


@mcp.tool
def ship(parcel: Item | Gift, speed: Literal["slow", "fast"] | None = None) -> str:
    """Ships a parcel."""
    return "shipped"


@mcp.tool
def ping() -> None:
    """Checks the shop is up."""


mcp.add_transform(RegexSearchTransform(max_results=10, search_result_serializer=serialize_tools_for_output_markdown))


async def names_only(tools: list) -> str:
    """A serializer of one's own, given FastMCP's tools."""
    return "; ".join(
        f"{tool.name}({', '.join(tool.parameters['properties'])}) {tool.output_schema is not None}" for tool in tools
    )


brief = FastMCP("Brief", tools=[find_items, ship])
brief.add_transform(RegexSearchTransform(search_result_serializer=names_only))


async def main() -> None:
    async with Client(mcp) as client:
        for pattern in ("items", "ship|ping", "nothing-matches"):
            result = await client.call_tool("search_tools", {"pattern": pattern})
            print(f"--- {pattern}\n{result.content[0].text}")
    async with Client(brief) as client:
        print((await client.call_tool("search_tools", {"pattern": "."})).content[0].text)


if __name__ == "__main__":
    asyncio.run(main())

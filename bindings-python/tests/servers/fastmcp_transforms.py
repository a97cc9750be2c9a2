"""A server that reshapes its tools as FastMCP's users do: tools made from others with
`Tool.from_tool` (arguments renamed, redescribed, given defaults, hidden, retyped; a
function of its own that forwards), `ToolTransform` over its own tools and a mounted
server's, and `Namespace` over everything. Written against FastMCP; the drop-in tests run
it under FastMCP and, with its imports changed, under oxmcp."""

from typing import Annotated

from fastmcp import FastMCP
from fastmcp.server.transforms import Namespace, ToolTransform
from fastmcp.tools import Tool, tool
from fastmcp.tools.tool_transform import ArgTransform, ArgTransformConfig, ToolTransformConfig, forward, forward_raw
from pydantic import Field

mcp = FastMCP("Transforms")


@tool
def search(q: str, limit: int = 10, api_key: str = "none") -> list[str]:
    """Search for items.

    Args:
        q: What to look for.
        limit: How many results.
    """
    return [f"{q} #{i} ({api_key})" for i in range(limit)]


mcp.add_tool(
    Tool.from_tool(
        search,
        name="find_items",
        description="Find items matching your search query.",
        transform_args={
            "q": ArgTransform(name="query", description="The search terms to look for."),
            "limit": ArgTransform(default=2, examples=[1, 2]),
            "api_key": ArgTransform(hide=True, default="secret"),
        },
        tags={"search"},
    )
)


def get_user_data(user_id: str, query: str) -> str:
    """Fetch data for a specific user."""
    return f"Data for user {user_id}: {query}"


mcp.add_tool(
    Tool.from_tool(
        get_user_data,
        name="get_my_data",
        description="Fetch your data. No need to specify a user ID.",
        transform_args={"user_id": ArgTransform(hide=True, default_factory=lambda: "user-123")},
    )
)


@tool
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


async def safe_divide(numerator: float, denominator: float) -> float:
    if denominator == 0:
        raise ValueError("Cannot divide by zero")
    return await forward(numerator=numerator, denominator=denominator)


mcp.add_tool(
    Tool.from_tool(
        divide,
        name="safe_divide",
        transform_fn=safe_divide,
        transform_args={"a": ArgTransform(name="numerator"), "b": ArgTransform(name="denominator")},
    )
)


async def halved(a: float, b: float) -> str:
    result = await forward_raw(a=a, b=b * 2)
    return f"half of {a}/{b}: {result.structured_content['result']}"


mcp.add_tool(Tool.from_tool(divide, name="halved", transform_fn=halved))


async def shouted(**kwargs: str) -> str:
    result = await forward(**kwargs)
    return f"{result.content[0].text.upper()} {sorted(kwargs)}"


mcp.add_tool(
    Tool.from_tool(search, name="shout", transform_fn=shouted, transform_args={"q": ArgTransform(name="query")})
)


@mcp.tool
def count(
    text: Annotated[str, Field(description="The text")], word: str = "the", ignore_case: bool = True
) -> dict[str, int]:
    """Counts a word in a text."""
    words = text.lower().split() if ignore_case else text.split()
    return {"count": words.count(word.lower() if ignore_case else word)}


@mcp.tool
def verbose_internal_data_fetcher(query: str) -> str:
    """Fetches data from the internal database."""
    return f"Results for: {query}"


@mcp.tool
def internal_only() -> str:
    return "hidden"


@mcp.prompt
def hello(name: str) -> str:
    return f"Hello, {name}!"


@mcp.resource("data://info")
def info() -> str:
    return "info"


@mcp.resource("data://users/{user_id}")
def user(user_id: str) -> str:
    return f"user {user_id}"


mcp.add_tool(Tool.from_tool(count, name="count_strictly", transform_args={"ignore_case": ArgTransform(type=str)}))

weather = FastMCP("Weather")


@weather.tool
def forecast(city: str, days: int = 1) -> str:
    """The forecast for a city."""
    return f"{city}: sunny for {days} day(s)"


mcp.mount(weather, namespace="weather")

mcp.add_transform(
    ToolTransform(
        {
            "verbose_internal_data_fetcher": ToolTransformConfig(
                name="lookup", description="Search the database.", tags={"db"}, meta={"owner": "data"}
            ),
            "weather_forecast": ToolTransformConfig(
                title="Forecast",
                arguments={
                    "city": ArgTransformConfig(name="place", description="Where"),
                    "days": ArgTransformConfig(default=3),
                },
            ),
            "count": ToolTransformConfig(arguments={"word": ArgTransformConfig(required=True)}),
            "internal_only": ToolTransformConfig(enabled=False),
        }
    )
)
mcp.add_transform(Namespace("api"))

if __name__ == "__main__":
    mcp.run()

"""A server whose `ToolTransform` gives tools versions of its own: an unversioned tool made
version 3.0, and the two versions of another renamed and made 5.0 (the highest of them
runs). `tests/test_dropin.py` runs it with FastMCP and, with its imports changed, with
oxmcp, and compares what was listed and what calls asking for each version got."""

import asyncio
import json

from fastmcp import Client, FastMCP
from fastmcp.server.transforms import ToolTransform
from fastmcp.tools.tool_transform import ToolTransformConfig

mcp = FastMCP("Versions")


@mcp.tool
def plain(x: int) -> int:
    return x


@mcp.tool(version="1.0")
def calc(x: int) -> int:
    return x + 1


@mcp.tool(version="2.0")  # type: ignore[no-redef]
def calc(x: int) -> int:  # noqa: F811
    return x + 2


mcp.add_transform(
    ToolTransform(
        {
            "plain": ToolTransformConfig(version="3.0"),
            "calc": ToolTransformConfig(version="5.0", name="calc5"),
        }
    )
)


async def main() -> None:
    async with Client(mcp) as client:
        for tool in await client.list_tools():
            print("listed", tool.name, json.dumps(tool.meta))
        asked = [("plain", None), ("plain", "3.0"), ("plain", "1.0"), ("calc5", None), ("calc5", "5.0")]
        asked += [("calc5", "2.0"), ("calc", None)]
        for name, version in asked:
            try:
                result = await client.call_tool(name, {"x": 1}, version=version)
                print("called", name, version, result.data)
            except Exception as error:
                print("called", name, version, type(error).__name__, error)


if __name__ == "__main__":
    asyncio.run(main())

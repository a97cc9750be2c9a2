"""Two replicas of a FastMCP server whose answers are cached in one store they share
(`ResponseCachingMiddleware(cache_storage=...)`, a py-key-value store: here in memory,
Redis or a disk in production), as FastMCP's users cache a slow API: a counting tool
answered from the store by the other replica, a tool left out of the cache, a failing one,
an answer too large to keep, a resource and a prompt; then what `statistics()` counted.
`tests/test_dropin.py` runs it with FastMCP and, with its imports changed, with oxmcp, and
compares what was printed."""

import asyncio
import itertools

from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware.caching import ResponseCachingMiddleware
from key_value.aio.stores.memory import MemoryStore

store = MemoryStore()
calls = itertools.count(1)


def replica() -> tuple[FastMCP, ResponseCachingMiddleware]:
    caching = ResponseCachingMiddleware(
        cache_storage=store, call_tool_settings={"excluded_tools": ["fresh"]}, max_item_size=2000
    )
    mcp = FastMCP("Cached", middleware=[caching])

    @mcp.tool
    def count(step: int = 1) -> int:
        """Counts the calls that reached the tool."""
        return next(calls) * step

    @mcp.tool
    def fresh() -> int:
        """Never cached."""
        return next(calls)

    @mcp.tool
    def broken() -> int:
        """Always fails."""
        raise ToolError("the API is down")

    @mcp.tool
    def big() -> str:
        """Too large to keep."""
        return f"{next(calls)} " + "x" * 5000

    @mcp.resource("data://rates")
    def rates() -> str:
        return f"rates {next(calls)}"

    @mcp.prompt
    def ask(topic: str) -> str:
        return f"Tell me about {topic} ({next(calls)})"

    return mcp, caching


async def main() -> None:
    replicas = [replica(), replica()]
    for index, (mcp, _) in enumerate(replicas):
        async with Client(mcp) as client:
            for name, arguments in [("count", {}), ("count", {"step": 2}), ("fresh", {}), ("big", {})]:
                result = await client.call_tool(name, arguments)
                print(index, name, result.content[0].text[:12])
            failed = await client.call_tool("broken", {}, raise_on_error=False)
            print(index, "broken", failed.is_error)
            print(index, "read", (await client.read_resource("data://rates"))[0].text)
            print(index, "prompt", (await client.get_prompt("ask", {"topic": "tea"})).messages[0].content.text)
            print(index, "tools", [tool.name for tool in await client.list_tools()])
    for index, (_, caching) in enumerate(replicas):
        counted = caching.statistics()
        for method in ("call_tool", "read_resource", "get_prompt", "list_tools", "list_prompts"):
            collection = getattr(counted, method)
            shown = None if collection is None else (collection.get.hit, collection.get.miss, collection.put.count)
            print(index, "statistics", method, shown)


if __name__ == "__main__":
    asyncio.run(main())

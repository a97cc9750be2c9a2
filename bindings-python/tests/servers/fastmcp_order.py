"""Servers mounted before their parent registers its own components, and given more after
they were mounted: FastMCP lists a server's own first, then each mounted server's in the
order they were mounted, whenever each was registered. `tests/test_dropin.py` runs it with
FastMCP and, with its imports changed, with oxmcp, and compares the lists."""

import asyncio

from fastmcp import Client, FastMCP

first = FastMCP("First")
second = FastMCP("Second")
nested = FastMCP("Nested")
parent = FastMCP("Parent")


@first.tool
def early() -> str:
    return "early"


parent.mount(first, namespace="first")
parent.mount(second, namespace="second")


@second.tool
def other() -> str:
    return "other"


@second.resource("data://other")
def other_data() -> str:
    return "other"


@first.tool
def late() -> str:
    return "late"


@parent.tool
def own() -> str:
    return "own"


@parent.resource("data://own")
def own_data() -> str:
    return "own"


@parent.prompt
def own_prompt() -> str:
    return "own"


@second.prompt
def other_prompt() -> str:
    return "other"


@nested.tool
def deep() -> str:
    return "deep"


first.mount(nested, namespace="nested")


@first.tool
def last() -> str:
    return "last"


async def main() -> None:
    for server in (parent, first):
        async with Client(server) as client:
            print(server.name, "tools", [tool.name for tool in await client.list_tools()])
            print(server.name, "resources", [str(resource.uri) for resource in await client.list_resources()])
            print(server.name, "prompts", [prompt.name for prompt in await client.list_prompts()])


if __name__ == "__main__":
    asyncio.run(main())

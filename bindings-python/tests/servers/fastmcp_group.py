"""A program that drives two servers through FastMCP's `ClientGroup`, each on a client of
its own in its own era: tools listed under each server's name, calls routed to the client
that listed them, a nested `async with`, a route resolved, an unknown name refused, and a
group made from an MCP configuration. `tests/test_dropin.py` runs it with FastMCP and, with
its imports changed, with oxmcp, and compares what it prints."""

import asyncio

from fastmcp import Client, ClientGroup, FastMCP

weather = FastMCP("Weather")


@weather.tool
def forecast(city: str) -> str:
    return f"Sunny in {city}"


notes = FastMCP("Notes")


@notes.tool
def forecast_note(day: str) -> str:
    return f"no note for {day}"


@notes.tool
def count() -> int:
    return 3


async def main() -> None:
    legacy = Client(weather, mode="legacy")
    modern = Client(notes, mode="auto")
    group = ClientGroup({"weather": legacy, "notes": modern})
    async with group:
        print(sorted(tool.name for tool in await group.list_tools()))
        print(sorted(group.protocol_versions.items()))
        print((await group.call_tool("weather_forecast", {"city": "Oslo"})).data)
        async with group:
            print((await group.call_tool("notes_count")).data)
        print("still connected", legacy.is_connected(), modern.is_connected())
        route = await group.resolve_tool("notes_forecast_note")
        print(route.server_name, route.upstream_name, route.client is modern)
        try:
            await group.call_tool("weather_missing")
        except KeyError as error:
            print("refused", type(error).__name__)
    print("closed", legacy.is_connected(), modern.is_connected())
    async with legacy:
        async with ClientGroup({"weather": legacy}) as alone:
            print((await alone.call_tool("weather_forecast", {"city": "Rome"})).data)
        print("kept by its own block", legacy.is_connected())
    configured = ClientGroup.from_config(
        {
            "mcpServers": {
                "one": {"url": "http://127.0.0.1:9/mcp", "mode": "legacy"},
                "two": {"url": "http://127.0.0.1:9/mcp"},
            }
        }
    )
    print(sorted(configured.clients), sorted(configured.protocol_versions.items()))


if __name__ == "__main__":
    asyncio.run(main())

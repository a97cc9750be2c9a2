"""Session state as FastMCP's documentation shows it: a ``SessionProvider``'s
``create_session`` and ``end_session`` tools, ``session_id: SessionId`` arguments resolved
with ``get_session``, and ``session: UserSession`` on a connection without a token (refused,
or None when optional). `tests/test_dropin.py` runs it with FastMCP and, with its imports
changed, with oxmcp, and compares what it prints."""

import asyncio
import json
import re

from fastmcp import Client, FastMCP
from fastmcp.server.dependencies import get_session
from fastmcp.server.sessions import SessionId, SessionProvider, UserSession

mcp = FastMCP("shop")
mcp.add_provider(SessionProvider())


@mcp.tool
async def add_to_cart(item: str, session_id: SessionId) -> str:
    """Adds an item to the cart."""
    session = await get_session(session_id)
    cart = await session.get("cart", default=[])
    cart.append(item)
    await session.set("cart", cart)
    return f"{len(cart)} items in cart: {cart}"


@mcp.tool
async def empty(session_id: SessionId) -> str:
    session = await get_session(session_id)
    await session.set("nothing", None)
    await session.delete("nothing")
    deleted = await session.get("nothing", default="gone")
    await session.clear()
    return repr((await session.get("cart"), deleted))


@mcp.tool
async def remember(fact: str, session: UserSession) -> str:
    await session.set("fact", fact)
    return "noted"


@mcp.tool
async def maybe(session: UserSession | None = None) -> str:
    return "no session" if session is None else "a session"


def masked(text: object) -> str:
    """``text`` without the session ids, which are random."""
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", str(text))


async def main() -> None:
    async with Client(mcp) as client:
        for tool in await client.list_tools():
            print(tool.name, json.dumps(tool.input_schema, sort_keys=True))
        made = (await client.call_tool("create_session", {})).data
        other = (await client.call_tool("create_session", {})).data
        print(masked(made), made != other)
        for item in ("apple", "pear"):
            print((await client.call_tool("add_to_cart", {"item": item, "session_id": made})).data)
        print((await client.call_tool("add_to_cart", {"item": "fig", "session_id": other})).data)
        print((await client.call_tool("empty", {"session_id": made})).data)
        print((await client.call_tool("add_to_cart", {"item": "kiwi", "session_id": made})).data)
        for name, arguments in (
            ("add_to_cart", {"item": "x", "session_id": "not-made"}),
            ("end_session", {"session_id": made}),
            ("add_to_cart", {"item": "x", "session_id": made}),
            ("remember", {"fact": "f"}),
            ("maybe", {}),
        ):
            result = await client.call_tool(name, arguments, raise_on_error=False)
            print(name, result.is_error, masked([block.text for block in result.content]))


if __name__ == "__main__":
    asyncio.run(main())

"""The example server written with oxmcp's Python package: the same tools, resource and
prompt as the Rust example server, plus a tool that asks the user (elicitation).

    python examples/python/server.py          # stdio
    python examples/python/server.py --http   # Streamable HTTP on a free port; the URL on stderr
"""

from __future__ import annotations

import sys

from pydantic import BaseModel

from oxmcp import Context, Server

server = Server("oxmcp-python-example", version="0.1.0", instructions="Echo, add, greet, review.")


class Booking(BaseModel):
    """The form the user fills in to confirm a booking."""

    confirm: bool
    seats: int = 1


@server.tool()
def echo(text: str) -> str:
    """Send the text back."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@server.tool()
async def book(date: str, ctx: Context) -> str:
    """Book a table, once the user confirms (works in both protocol eras)."""
    answer = await ctx.elicit(f"Book a table on {date}?", Booking)
    if answer.accepted and answer.data is not None and answer.data.confirm:
        return f"booked {answer.data.seats} seats on {date}"
    return f"not booked ({answer.action})"


@server.resource("greeting://{name}")
def greeting(name: str) -> str:
    """A greeting for someone."""
    return f"Hello, {name}!"


@server.prompt()
def review(code: str) -> str:
    """Ask for a code review."""
    return f"Please review this code:\n{code}"


if __name__ == "__main__":
    if "--http" in sys.argv[1:]:
        server.run(transport="http", host="127.0.0.1", port=0)
    else:
        server.run()

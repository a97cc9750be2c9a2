"""The echo tool written with oxmcp's Python package, as its users would.

python oxmcp_python.py stdio
python oxmcp_python.py http      # prints LISTENING <url> on stderr once bound
"""

from __future__ import annotations

import asyncio
import sys

from oxmcp import Server

server = Server("oxmcp-python-echo")


@server.tool()
def echo(text: str) -> str:
    """Send the text back."""
    return text


async def serve_http() -> None:
    async with await server.start_http(host="127.0.0.1", port=0) as http:
        print(f"LISTENING {http.url}", file=sys.stderr, flush=True)
        await http.wait()


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        asyncio.run(serve_http())
    else:
        server.run()

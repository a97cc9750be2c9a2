"""The echo tool written with oxmcp's Python package, as its users would.

python oxmcp_python.py stdio
python oxmcp_python.py stdio async   # the tool as an ``async def``
python oxmcp_python.py http          # prints LISTENING <url> on stderr once bound
python oxmcp_python.py asgi          # the same endpoint as an ASGI app under uvicorn
"""

from __future__ import annotations

import asyncio
import socket
import sys

from oxmcp import Server

server = Server("oxmcp-python-echo")


def echo(text: str) -> str:
    """Send the text back."""
    return text


async def echo_async(text: str) -> str:
    """Send the text back."""
    return text


server.add_tool(echo_async if sys.argv[2:] == ["async"] else echo, name="echo")


async def serve_http() -> None:
    async with await server.start_http(host="127.0.0.1", port=0) as http:
        print(f"LISTENING {http.url}", file=sys.stderr, flush=True)
        await http.wait()


def serve_asgi() -> None:
    # Imported here: a stdio server would not import a web server, nor pay its start-up.
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    print(f"LISTENING http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    uvicorn.run(server.http_app(), host="127.0.0.1", port=port, log_level="error")


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        asyncio.run(serve_http())
    elif sys.argv[1:] == ["asgi"]:
        serve_asgi()
    else:
        server.run()

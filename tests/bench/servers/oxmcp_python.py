"""The echo tool written with oxmcp's Python package, as its users would.

python oxmcp_python.py stdio
python oxmcp_python.py http      # prints LISTENING <url> on stderr
"""

from __future__ import annotations

import socket
import sys

from oxmcp import Server

server = Server("oxmcp-python-echo")


@server.tool()
def echo(text: str) -> str:
    """Send the text back."""
    return text


def serve_http() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    print(f"LISTENING http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    server.run(transport="http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        serve_http()
    else:
        server.run()

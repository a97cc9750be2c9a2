"""The echo tool written with the official Python SDK (`mcp`), as its users would.

python official_python.py stdio
python official_python.py http      # prints LISTENING <url> on stderr
"""

from __future__ import annotations

import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("official-python-echo")


@server.tool()
def echo(text: str) -> str:
    """Send the text back."""
    return text


def serve_http() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    print(f"LISTENING http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="error")


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        serve_http()
    else:
        server.run()

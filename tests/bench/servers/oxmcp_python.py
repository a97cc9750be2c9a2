"""The echo tool written with oxmcp's Python package, as its users would.

    python oxmcp_python.py stdio
"""

from __future__ import annotations

from oxmcp import Server

server = Server("oxmcp-python-echo")


@server.tool()
def echo(text: str) -> str:
    """Send the text back."""
    return text


if __name__ == "__main__":
    server.run()

"""A server whose tools run as tasks, kept in the SQLite file named on the command line:
``python tasks.py TASKS.db`` serves Streamable HTTP on a free port of 127.0.0.1 and tells
its URL on stderr. The durability test kills it and starts it again on the same file."""

from __future__ import annotations

import asyncio
import sys

from oxmcp import Server

server = Server("tasks", task_store=sys.argv[1], task_poll_interval=0.05)


@server.tool(task="optional")
async def sleep(seconds: float) -> str:
    """Sleep, then say so."""
    await asyncio.sleep(seconds)
    return f"slept {seconds} s"


if __name__ == "__main__":
    server.run(transport="http", port=0)

"""The official SDK's ``mcp.server.stdio``, for low-level servers written for it::

    async with oxmcp.server.stdio.stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())

serves stdin and stdout until stdin closes. The streams only name them: the core reads
and writes this process's stdio itself."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class StdioStream:
    """This process's stdin or stdout, as :func:`stdio_server` names them for
    :meth:`oxmcp.Server.run`."""

    name: Literal["stdin", "stdout"]


@contextlib.asynccontextmanager
async def stdio_server() -> AsyncIterator[tuple[StdioStream, StdioStream]]:
    """The streams of this process's stdio, for ``server.run(read_stream, write_stream,
    initialization_options)``."""
    yield StdioStream("stdin"), StdioStream("stdout")

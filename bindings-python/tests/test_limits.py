"""The client's limits against `fixture-hostile`, a server that misbehaves on purpose:
listings without end, a flood of requests to the client, an answer larger than allowed.
Each limit is set from Python and holds; the connection goes on serving other calls."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from conftest import rust_server
from oxmcp import Client, ProtocolError
from oxmcp.types import Root

SLOW_ROOTS = 0.5


async def slow_roots() -> list[Root]:
    """Holds each of the server's requests long enough for the flood to pile up."""
    await asyncio.sleep(SLOW_ROOTS)
    return [Root(uri="file:///work")]


@pytest.fixture
def hostile() -> Callable[..., Client]:
    binary = rust_server("fixture-hostile")
    assert binary.exists(), f"{binary} is missing: run `cargo build -p oxmcp-fixtures`"

    def client(**options: Any) -> Client:
        return Client.stdio([str(binary)], era="legacy", roots_handler=slow_roots, **options)

    return client


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


@pytest.fixture
async def limited(hostile: Callable[..., Client]) -> AsyncIterator[Client]:
    async with hostile(max_list_pages=3, max_server_requests=2, max_message_size=1024) as client:
        yield client


async def test_a_listing_without_end_stops_at_max_list_pages(limited: Client) -> None:
    with pytest.raises(ProtocolError, match="3 pages"):
        await limited.list_tools()
    assert text_of(await limited.call_tool("huge", {"bytes": 10})) == "x" * 10


async def test_requests_beyond_max_server_requests_are_refused(hostile: Callable[..., Client]) -> None:
    async with hostile(max_server_requests=2) as client:
        assert text_of(await client.call_tool("flood", {"count": 6})) == "2 answered, 4 refused"
    async with hostile() as client:
        assert text_of(await client.call_tool("flood", {"count": 6})) == "6 answered, 0 refused"


async def test_an_answer_over_max_message_size_is_dropped_and_the_connection_goes_on(limited: Client) -> None:
    with pytest.raises(TimeoutError):
        await limited.call_tool("huge", {"bytes": 4096}, timeout=1.0)
    assert text_of(await limited.call_tool("huge", {"bytes": 512})) == "x" * 512

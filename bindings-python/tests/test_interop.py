"""Interop with the official `mcp` Python SDK over stdio and Streamable HTTP, both
directions: its client against the oxmcp demo server, and the oxmcp client against the
server written with it (tests/interop/python/server.py)."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client as OfficialClient
from mcp import StdioServerParameters
from mcp_types import CreateMessageResult, ElicitResult, TextContent

from conftest import DEMO_SERVER, OFFICIAL_SERVER, TRANSPORTS, connect, http_server
from oxmcp import McpError

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
OFFICIAL_MODES = {"legacy": "legacy", "modern": "2026-07-28"}


@contextlib.asynccontextmanager
async def official_client(transport: str, **options: Any) -> AsyncIterator[OfficialClient]:
    """The official client of the demo server, over stdio or Streamable HTTP."""
    if transport == "stdio":
        async with OfficialClient(StdioServerParameters(command=DEMO_SERVER[0], args=DEMO_SERVER[1:]), **options) as c:
            yield c
        return
    with http_server([*DEMO_SERVER, "--http"]) as url:
        async with OfficialClient(url, **options) as client:
            yield client


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", list(OFFICIAL_MODES))
async def test_the_official_client_drives_an_oxmcp_server(transport: str, era: str) -> None:
    async with official_client(transport, mode=OFFICIAL_MODES[era]) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert {"add", "shout", "midpoint", "book"} <= set(tools)
        assert tools["add"].input_schema["required"] == ["a", "b"]

        added = await client.call_tool("add", {"a": 2, "b": 3})
        assert added.structured_content == {"result": 5}
        assert added.is_error in (None, False)
        failed = await client.call_tool("fail", {"kind": "tool"})
        assert failed.is_error is True
        assert text_of(failed) == "the tool failed on purpose"

        pixel = await client.call_tool("pixel", {})
        assert pixel.content[1].type == "image" and pixel.content[1].data == PIXEL

        greeting = await client.read_resource("greeting://grace")
        assert greeting.contents[0].text == "Hello, grace!"
        blob = await client.read_resource("file:///pixel.png")
        assert blob.contents[0].blob == PIXEL

        prompt = await client.get_prompt("review", {"code": "print(1)"})
        assert prompt.messages[0].content.text == "Please review this code:\nprint(1)"

        seen: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)

        slow = await client.call_tool("slow", {"steps": 2}, progress_callback=on_progress)
        assert text_of(slow) == "done after 2 steps"
        assert seen == [1.0, 2.0]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_official_client_answers_elicitation_and_sampling(transport: str) -> None:
    async def elicit(context: Any, params: Any) -> ElicitResult:
        assert params.message == "Book a table on Monday?"
        return ElicitResult(action="accept", content={"confirm": True, "seats": 4})

    async def sample(context: Any, params: Any) -> CreateMessageResult:
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="Paris"), model="official-model"
        )

    async with official_client(
        transport, mode="legacy", elicitation_callback=elicit, sampling_callback=sample
    ) as client:
        booked = await client.call_tool("book", {"date": "Monday"})
        assert text_of(booked) == "booked 4 seats on Monday"
        asked = await client.call_tool("ask_llm", {"question": "Capital?"})
        assert text_of(asked) == "official-model said: Paris"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", ["legacy", "auto"])
async def test_the_oxmcp_client_drives_an_official_server(transport: str, era: str) -> None:
    # The official server logs a traceback for the unknown prompt below.
    options: dict[str, Any] = {"quiet": True} if transport == "stdio" else {"noise_free": False, "url_on": "stdout"}
    async with connect(OFFICIAL_SERVER, transport, era=era, **options) as client:
        if era == "legacy":
            assert client.protocol_version == "2025-11-25"
        assert client.server_info is not None and client.server_info.name == "official-python"
        assert client.instructions == "Written with the official SDK."
        tools = {tool.name: tool for tool in await client.list_tools()}
        assert {"add", "echo", "fail", "slow"} <= set(tools)
        assert tools["add"].output_schema is not None

        added = await client.call_tool("add", {"a": 20, "b": 22})
        assert added.structured_content == {"total": 42}
        assert text_of(await client.call_tool("echo", {"text": "hi"})) == "hi"
        failed = await client.call_tool("fail")
        assert failed.is_error is True and "fail" in text_of(failed)

        seen: list[str | None] = []
        slow = await client.call_tool("slow", {"steps": 2}, progress_handler=lambda p, t, m: seen.append(m))
        assert text_of(slow) == "done after 2 steps"

        notes = await client.read_resource("file:///notes.txt")
        assert notes.contents[0].text == "remember the milk"
        greeting = await client.read_resource("greeting://people/ada")
        assert greeting.contents[0].text == "Hello, ada"
        templates = [t.uri_template for t in await client.list_resource_templates()]
        assert templates == ["greeting://people/{name}"]
        prompt = await client.get_prompt("review", {"code": "x"})
        assert prompt.messages[0].content.text == "Please review:\nx"
        with pytest.raises(McpError):
            await client.get_prompt("no-such-prompt")


def test_pixel_constant_is_a_png() -> None:
    assert base64.b64decode(PIXEL).startswith(b"\x89PNG")

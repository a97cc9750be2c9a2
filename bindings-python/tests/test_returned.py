"""The cross-language table of tool return values (``tests/returned/cases.json``) through a
Python server: each case's tool returns the value the table names, written as a Python
user would, and the wire result must be the table's. The Rust, Node and Kotlin suites run
the same table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from typing_extensions import TypedDict

from oxmcp import CallToolResult, Client, Image, Server, TextContent, ToolError

TABLE = json.loads((Path(__file__).parents[2] / "tests" / "returned" / "cases.json").read_text())


class Person(TypedDict):
    name: str
    age: int


def image() -> Image:
    return Image(data=b"\x00\x01\x02", mime_type="image/png")


def server() -> Server:
    server = Server("returned")

    # No return annotation: no output schema, the value is content only.
    @server.tool(name="text")
    def text():  # type: ignore[no-untyped-def]
        return "hello"

    @server.tool(name="number")
    def number():  # type: ignore[no-untyped-def]
        return 42

    @server.tool(name="object")
    def object_():  # type: ignore[no-untyped-def]
        return {"name": "Ada", "age": 36}

    @server.tool(name="object_structured")
    def object_structured() -> Person:
        return {"name": "Ada", "age": 36}

    @server.tool(name="number_structured")
    def number_structured() -> int:
        return 42

    @server.tool(name="list")
    def list_():  # type: ignore[no-untyped-def]
        return ["a", 1]

    @server.tool(name="none")
    def none():  # type: ignore[no-untyped-def]
        return None

    @server.tool(name="bytes")
    def bytes_():  # type: ignore[no-untyped-def]
        return b"\x00\x01\x02"

    @server.tool(name="image")
    def image_() -> Image:
        return image()

    @server.tool(name="content_blocks")
    def content_blocks() -> list[TextContent | Image]:
        return [TextContent(text="a"), image()]

    @server.tool(name="complete")
    def complete() -> CallToolResult:
        return CallToolResult(content=[TextContent(text="as is")], is_error=True)

    @server.tool(name="error")
    def error() -> str:
        raise ToolError("boom")

    return server


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_every_case_gives_the_tables_wire_result(era: Literal["legacy", "modern"]) -> None:
    async with Client(server(), era=era) as client:
        for case in TABLE["cases"]:
            result: dict[str, Any] = (await client.call_tool(case["name"])).to_wire()
            # What the era adds is not the handler's.
            result.pop("resultType", None)
            result.pop("_meta", None)
            assert result == case["result"], case["name"]


def test_a_name_is_registered_once() -> None:
    server = Server("twice")
    server.add_tool(lambda: "first", name="tool")
    with pytest.raises(ValueError, match="already registered"):
        server.add_tool(lambda: "second", name="tool")
    assert server.remove_tool("tool")
    server.add_tool(lambda: "second", name="tool")

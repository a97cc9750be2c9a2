"""A server whose tools, resources, templates and prompts come from a table that changes
while it serves, the way FastMCP's users write one: a `Provider` subclass that reads the
table on each request, and `Tool` subclasses that run themselves. `tests/test_dropin.py`
runs it with FastMCP and, with its imports changed, with oxmcp, and compares what a client
saw: after rows are added, changed and disabled, under a namespace, with versions asked
for, with the provider's visibility rules, its own transforms (and wrapped in others),
and its lifespan."""

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.prompts import Prompt
from fastmcp.resources import Resource, ResourceTemplate
from fastmcp.server.dependencies import get_server
from fastmcp.server.providers import Provider
from fastmcp.server.transforms import Namespace, ToolTransform, VersionFilter
from fastmcp.tools import Tool, ToolResult
from fastmcp.tools.tool_transform import ToolTransformConfig
from fastmcp.utilities.versions import VersionSpec

SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}


class Arithmetic(Tool):
    """A tool whose operation is a row's: schema and execution in one object."""

    operation: str
    default_value: float = 0

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        a = arguments.get("a", self.default_value)
        b = arguments.get("b", self.default_value)
        if self.operation == "divide" and b == 0:
            raise ToolError("division by zero")
        result = {"add": a + b, "multiply": a * b, "divide": a / b if b else 0}[self.operation]
        return ToolResult(structured_content={"result": result, "operation": self.operation})


class Plain(Tool):
    """A tool that answers text alone."""

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        # A provider's tool runs as the serving server's.
        served_by = get_server().name
        return ToolResult(content=f"{self.name} got {json.dumps(arguments, sort_keys=True)} on {served_by}")


class Note(Resource):
    """A resource whose text is a row's."""

    text: str

    async def read(self) -> str:
        return self.text


class TableProvider(Provider):
    """Tools, notes and prompts read from a SQLite table on every request."""

    def __init__(self, db: sqlite3.Connection, events: list[str]) -> None:
        super().__init__()
        self.db = db
        self.events = events

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        self.events.append("opened")
        try:
            yield
        finally:
            self.events.append("closed")

    async def _list_tools(self) -> Sequence[Tool]:
        rows = self.db.execute("SELECT name, operation, version, tags FROM tools WHERE enabled = 1 ORDER BY name")
        return [self._tool(*row) for row in rows]

    def _tool(self, name: str, operation: str, version: str | None, tags: str) -> Tool:
        if operation == "plain":
            return Plain(name=name, parameters={"type": "object", "properties": {"x": {"type": "string"}}})
        return Arithmetic(
            name=name,
            description=f"{operation.title()} two numbers",
            parameters=SCHEMA,
            operation=operation,
            version=version,
            tags=set(filter(None, tags.split(","))),
            default_value=1 if operation == "multiply" else 0,
        )

    async def _list_resources(self) -> Sequence[Resource]:
        rows = self.db.execute("SELECT key, text FROM notes ORDER BY key")
        return [Note(uri=f"note://{key}", name=key, text=text, mime_type="text/plain") for key, text in rows]

    async def _list_resource_templates(self) -> Sequence[ResourceTemplate]:
        def shout(word: str) -> str:
            return word.upper()

        return [ResourceTemplate.from_function(shout, "shout://{word}", name="shout")]

    async def _list_prompts(self) -> Sequence[Prompt]:
        def ask(topic: str) -> str:
            return f"Tell me about {topic}."

        return [Prompt.from_function(ask, name="ask", description="Asks about a topic")]


async def seen(client: Client, step: str) -> None:
    """What a client is listed and gets, printed as one line each."""
    tools = await client.list_tools()
    print(step, "tools", [(tool.name, tool.description, (tool.meta or {}).get("fastmcp")) for tool in tools])
    for tool in tools:
        if tool.name.endswith("numbers"):
            result = await client.call_tool_mcp(tool.name, {"a": 6, "b": 3})
            print(step, "call", tool.name, result.structuredContent, [block.text for block in result.content])


async def main() -> None:
    db = sqlite3.connect(":memory:")
    db.executescript(
        """
        CREATE TABLE tools (name TEXT, operation TEXT, version TEXT, tags TEXT, enabled INTEGER);
        INSERT INTO tools VALUES ('add_numbers', 'add', NULL, 'math', 1);
        INSERT INTO tools VALUES ('multiply_numbers', 'multiply', NULL, 'math', 1);
        INSERT INTO tools VALUES ('echo', 'plain', NULL, '', 1);
        CREATE TABLE notes (key TEXT, text TEXT);
        INSERT INTO notes VALUES ('today', 'Water the plants');
        """
    )
    events: list[str] = []
    provider = TableProvider(db, events)
    mcp = FastMCP("Table", providers=[provider])

    @mcp.tool
    def server_info() -> dict[str, str]:
        """The server's own tool, listed before the provider's."""
        return {"name": "Table"}

    async with Client(mcp) as client:
        print("lifespan", events)
        await seen(client, "first")
        print("echo", (await client.call_tool("echo", {"x": "hi"})).content[0].text)
        # A row changed, one added, one disabled: served at the next request, no restart.
        db.execute("UPDATE tools SET operation = 'divide' WHERE name = 'multiply_numbers'")
        db.execute("INSERT INTO tools VALUES ('subtract_numbers', 'add', NULL, '', 1)")
        db.execute("UPDATE tools SET enabled = 0 WHERE name = 'add_numbers'")
        await seen(client, "changed")
        failed = await client.call_tool_mcp("add_numbers", {"a": 1, "b": 2})
        print("disabled", failed.isError, [block.text for block in failed.content])
        divided = await client.call_tool_mcp("multiply_numbers", {"a": 1, "b": 0})
        print("raised", divided.isError, [block.text for block in divided.content])
        # Reads and prompts, and what no row gives.
        print("resources", [(str(r.uri), r.name, r.mime_type) for r in await client.list_resources()])
        print("templates", [t.uri_template for t in await client.list_resource_templates()])
        print("read", [c.text for c in await client.read_resource("note://today")])
        print("read template", [c.text for c in await client.read_resource("shout://quiet")])
        db.execute("UPDATE notes SET text = 'Feed the cat'")
        print("read changed", [c.text for c in await client.read_resource("note://today")])
        try:
            await client.read_resource("note://nowhere")
        except Exception as error:
            print("read missing", type(error).__name__, error)
        print("prompts", [(p.name, p.description) for p in await client.list_prompts()])
        print("prompt", (await client.get_prompt("ask", {"topic": "owls"})).messages[0].content.text)
        # Several versions of a name: the highest listed, either called by version.
        db.execute("INSERT INTO tools VALUES ('power_numbers', 'add', '1.0', '', 1)")
        db.execute("INSERT INTO tools VALUES ('power_numbers', 'multiply', '2.0', '', 1)")
        await seen(client, "versions")
        for version in ("1.0", "2.0"):
            result = await client.call_tool("power_numbers", {"a": 2, "b": 5}, version=version)
            print("version", version, result.structured_content)
    print("lifespan", events)

    # The provider's own visibility rules, and a namespace.
    provider.disable(tags={"math"})
    provider.enable(names={"power_numbers"}, version=VersionSpec(gte="2.0"))
    spaced = FastMCP("Spaced")
    spaced.add_provider(provider, namespace="db")
    async with Client(spaced) as client:
        await seen(client, "spaced")
        print("spaced read", [c.text for c in await client.read_resource("note://db/today")])
        print("spaced prompt", (await client.get_prompt("db_ask", {"topic": "bats"})).messages[0].content.text)

    # The provider's own transforms, under the server's namespace: its namespace, a tool
    # renamed, and a version range added while it serves.
    own = TableProvider(db, events)
    own.add_transform(Namespace("tbl"))
    own.add_transform(
        ToolTransform({"tbl_subtract_numbers": ToolTransformConfig(name="minus", description="Subtracts")})
    )
    layered = FastMCP("Layered")
    layered.add_provider(own, namespace="db")
    async with Client(layered) as client:
        await seen(client, "own")
        print("own minus", (await client.call_tool("db_minus", {"a": 5, "b": 2})).structured_content)
        renamed = await client.call_tool_mcp("db_tbl_subtract_numbers", {"a": 5, "b": 2})
        print("own renamed away", renamed.isError, [block.text for block in renamed.content])
        print("own resources", [str(r.uri) for r in await client.list_resources()])
        print("own read", [c.text for c in await client.read_resource("note://db/tbl/today")])
        print("own template", [c.text for c in await client.read_resource("shout://db/tbl/quiet")])
        print("own prompt", (await client.get_prompt("db_tbl_ask", {"topic": "bats"})).messages[0].content.text)
        own.add_transform(VersionFilter(version_lt="2.0"))
        await seen(client, "own filtered")
        print("own transforms", own.transforms)

    # One provider under two namespaces, each a wrapped copy (`wrap_transform` leaves the
    # provider as it was), its lifespan entered by each.
    events.clear()
    base = TableProvider(db, events)
    twice = FastMCP("Twice", providers=[base.wrap_transform(Namespace("a")), base.wrap_transform(Namespace("b"))])
    async with Client(twice) as client:
        print("twice tools", [tool.name for tool in await client.list_tools()])
        print("twice call", (await client.call_tool("b_multiply_numbers", {"a": 6, "b": 3})).structured_content)
        print("twice prompt", (await client.get_prompt("a_ask", {"topic": "moths"})).messages[0].content.text)
    print("twice", base.transforms, events)


if __name__ == "__main__":
    asyncio.run(main())

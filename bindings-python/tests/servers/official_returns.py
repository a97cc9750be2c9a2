"""Tools written with the official SDK that return values of classes it has no schema for
(dates, UUIDs, decimals, enums, paths, durations, a class of one's own, the bare
containers) beside ones it wraps (numbers, bytes, optional dates, lists of dates) and a
class with annotated attributes. `tests/test_dropin.py` runs it with the official SDK and,
with its import changed, with oxmcp, and compares each tool's output schema and what a
direct call of it answers."""

import asyncio
import enum
import json
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import UUID

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent


class Color(enum.Enum):
    RED = "red"


class Hinted:
    """A class the official SDK makes an object schema of: its text is the value's `repr`."""

    name: str = "x"
    size: int = 2

    def __repr__(self) -> str:
        return "Hinted(x, 2)"


class Plain:
    def __str__(self) -> str:
        return "plain!"


#: Each tool's return annotation and the value it returns.
RETURNS: dict[str, tuple[Any, Any]] = {
    "datetime": (datetime, datetime(2026, 1, 2, 3, 4, 5)),
    "date": (date, date(2026, 1, 2)),
    "uuid": (UUID, UUID(int=5)),
    "decimal": (Decimal, Decimal("1.5")),
    "color": (Color, Color.RED),
    "path": (Path, Path("/tmp/x")),
    "duration": (timedelta, timedelta(seconds=90)),
    "plain": (Plain, Plain()),
    "bare_list": (list, [1, "a"]),
    "bare_dict": (dict, {"a": 1}),
    "bare_tuple": (tuple, (1, 2)),
    "bare_set": (set, {1}),
    "int": (int, 1),
    "bytes": (bytes, b"ab"),
    "optional_datetime": (datetime | None, datetime(2026, 1, 2, 3, 4, 5)),
    "optional_int": (int | None, None),
    "list_of_date": (list[date], [date(2026, 1, 2), date(2026, 1, 3)]),
    "tuple_of": (tuple[int, str], (1, "a")),
    "dict_of_uuid": (dict[str, UUID], {"a": UUID(int=5)}),
    "hinted": (Hinted, Hinted()),
    "given_result": (
        datetime | None,
        CallToolResult(content=[TextContent(type="text", text="given")], structured_content={"result": None}),
    ),
    "list_of_int": (list[int], [1, 2]),
}

mcp = MCPServer("Returns")

for name, (annotation, value) in RETURNS.items():

    def returned(value: Any = value) -> Any:
        return value

    returned.__annotations__ = {"return": annotation}
    mcp.tool(name=name)(returned)


async def main() -> None:
    schemas = {tool.name: tool.output_schema for tool in await mcp.list_tools()}
    for name in RETURNS:
        result = await mcp.call_tool(name, {})
        content = [block.model_dump(mode="json", exclude_none=True) for block in result.content]
        print(name, json.dumps(schemas[name], sort_keys=True), "|", json.dumps(content), result.structured_content)


if __name__ == "__main__":
    asyncio.run(main())

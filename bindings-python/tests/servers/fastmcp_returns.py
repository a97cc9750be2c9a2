"""Tools that return values of every kind of return annotation, the way FastMCP's users
annotate them. `tests/test_dropin.py` runs it with FastMCP and, with its imports changed,
with oxmcp, and compares each tool's output schema and what a call of it answers: its
content, structured content and `_meta`, and what FastMCP's client reads of the values
that are more than JSON (dates, UUIDs, durations)."""

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Optional
from uuid import UUID

from fastmcp import Client, FastMCP
from pydantic import BaseModel
from typing_extensions import TypedDict


class Point(BaseModel):
    x: int


@dataclass
class Size:
    width: int


class Named(TypedDict):
    name: str


class Dated(BaseModel):
    when: datetime
    id: UUID


#: A function with no return annotation.
UNANNOTATED = object()

#: Each tool's return annotation and the value it returns.
RETURNS: dict[str, tuple[Any, Any]] = {
    "bare_list": (list, [1]),
    "list_of_int": (list[int], [1]),
    "list_of_any": (list[Any], [1]),
    "sequence_of_int": (Sequence[int], [1]),
    "bare_dict": (dict, {"a": 1}),
    "dict_of_int": (dict[str, int], {"a": 1}),
    "int": (int, 1),
    "str": (str, "s"),
    "bool": (bool, True),
    "float": (float, 1.5),
    "any_object": (Any, {"a": 1}),
    "any_list": (Any, [1]),
    "unannotated_object": (UNANNOTATED, {"a": 1}),
    "none": (None, None),
    "optional_int": (Optional[int], None),  # noqa: UP045 (as many still write it)
    "bare_tuple": (tuple, (1, 2)),
    "any_tuple": (tuple[Any, ...], (1, 2)),
    "pair": (tuple[int, int], (1, 2)),
    "set_of_int": (set[int], {1}),
    "model": (Point, Point(x=1)),
    "list_of_models": (list[Point], [Point(x=1)]),
    "dataclass": (Size, Size(width=2)),
    "typed_dict": (Named, {"name": "ada"}),
    "union": (int | str, "x"),
    "bytes": (bytes, b"text"),
    "binary": (bytes, b"\xff\x00"),
    "optional_bytes": (bytes | None, b"x"),
    "datetime": (datetime, datetime(2026, 1, 2, 3, 4, 5)),
    "date": (date, date(2026, 1, 2)),
    "uuid": (UUID, UUID(int=5)),
    "duration": (timedelta, timedelta(seconds=90)),
    "dated_model": (Dated, Dated(when=datetime(2026, 1, 2), id=UUID(int=1))),
}
#: The tools whose values FastMCP's client reads as more than JSON.
RICH = ("datetime", "date", "uuid", "duration", "dated_model")

mcp = FastMCP("Returns")

for name, (annotation, value) in RETURNS.items():

    def returned(value: Any = value) -> Any:
        return value

    # Annotated as a user would have written it (`-> None` is None).
    returned.__annotations__ = {} if annotation is UNANNOTATED else {"return": annotation}
    mcp.tool(name=name)(returned)


async def main() -> None:
    async with Client(mcp) as client:
        schemas = {tool.name: tool.output_schema for tool in await client.list_tools()}
        for name in RETURNS:
            result = await client.call_tool_mcp(name, {})
            content = [block.model_dump(mode="json", exclude_none=True) for block in result.content]
            meta = {key: value for key, value in (result.meta or {}).items() if key.startswith("fastmcp")}
            print(
                name,
                json.dumps(schemas[name], sort_keys=True),
                "|",
                json.dumps(content, sort_keys=True),
                json.dumps(result.structured_content, sort_keys=True),
                meta,
                result.is_error,
            )
        for name in RICH:
            print(name, "reads", repr((await client.call_tool(name, {})).data))


if __name__ == "__main__":
    asyncio.run(main())

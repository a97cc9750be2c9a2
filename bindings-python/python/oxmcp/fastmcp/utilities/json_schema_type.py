"""FastMCP's ``fastmcp.utilities.json_schema_type``: the Python type a JSON Schema
describes, as FastMCP's client reads values with (a tool's structured result, the answer
to an elicitation): an object with properties is a dataclass, so its fields read as
attributes; an object without is a dict; a string of a ``format`` such as ``date-time``
or ``uuid`` is a ``datetime`` or ``UUID`` (an ``email`` stays text)."""

from __future__ import annotations

import copy
import dataclasses
import keyword
from datetime import date, datetime, time, timedelta
from typing import Any, Literal, Union
from uuid import UUID

from pydantic import AnyUrl, Json

_SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}
#: The type of a string of each ``format`` FastMCP reads as more than text.
_FORMATS: dict[str, Any] = {
    "date-time": datetime,
    "date": date,
    "time": time,
    "duration": timedelta,
    "uuid": UUID,
    "uri": AnyUrl,
    "json": Json,
}


def json_schema_to_type(schema: dict[str, Any], name: str | None = None) -> Any:
    """The type of the values ``schema`` describes (``$ref`` to its ``$defs`` followed);
    ``name`` names the dataclass of an object with properties (its ``title`` else)."""
    return _Reader(schema).type_of(schema, name)


class _Reader:
    """Reads one schema, making one dataclass per definition it refers to."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.definitions: dict[str, Any] = {**root.get("definitions", {}), **root.get("$defs", {})}
        self.made: dict[str, Any] = {}

    def type_of(self, schema: Any, name: str | None = None) -> Any:
        if not isinstance(schema, dict):
            return Any
        if "$ref" in schema:
            return self.definition(str(schema["$ref"]).rsplit("/", 1)[-1])
        if schema.get("enum"):
            return Literal[tuple(schema["enum"])]
        if "const" in schema:
            return Literal[schema["const"]]
        alternatives = schema.get("anyOf") or schema.get("oneOf")
        if alternatives:
            return _union([self.type_of(alternative) for alternative in alternatives])
        kind = schema.get("type")
        if isinstance(kind, list):
            return _union([self.type_of({**schema, "type": one}, name) for one in kind])
        if kind == "array":
            return list[self.type_of(schema.get("items"))]  # type: ignore[misc]
        if kind == "object" or "properties" in schema:
            return self.object_type(schema, name or schema.get("title"))
        if kind == "string":
            return _FORMATS.get(str(schema.get("format")), str)
        return _SCALARS.get(str(kind), Any)

    def definition(self, name: str) -> Any:
        if name not in self.made:
            # A definition that refers to itself reads as Any where it does.
            self.made[name] = Any
            self.made[name] = self.type_of(self.definitions.get(name), name)
        return self.made[name]

    def object_type(self, schema: dict[str, Any], name: str | None) -> Any:
        properties: dict[str, Any] = schema.get("properties") or {}
        if not properties or not all(field.isidentifier() and not keyword.iskeyword(field) for field in properties):
            return dict[str, Any]
        required = set(schema.get("required", []))
        fields: list[Any] = []
        for field, property_schema in properties.items():
            kind = self.type_of(property_schema)
            if field in required:
                fields.append((field, kind))
            else:
                default = property_schema.get("default") if isinstance(property_schema, dict) else None
                fields.append((field, _union([kind, type(None)]), _defaulting_to(default)))
        # Required fields first: a dataclass's fields without defaults must come first.
        fields.sort(key=lambda made: len(made) == 3)
        return dataclasses.make_dataclass(_class_name(name), fields)


def _defaulting_to(default: Any) -> Any:
    """A dataclass field whose default is ``default`` (a list or object: a copy each)."""
    if isinstance(default, list | dict):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(default))
    return dataclasses.field(default=default)


def _union(members: list[Any]) -> Any:
    return Union[tuple(members)] if len(members) > 1 else (members[0] if members else Any)  # noqa: UP007


def _class_name(name: str | None) -> str:
    words = "".join(character if character.isalnum() else " " for character in name or "Root").split()
    made = "".join(word[:1].upper() + word[1:] for word in words)
    return made if made.isidentifier() else "Root"


__all__ = ["json_schema_to_type"]

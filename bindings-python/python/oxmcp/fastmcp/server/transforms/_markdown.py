"""FastMCP's markdown form of the tools a search finds
(``serialize_tools_for_output_markdown``): for each tool a heading, its description, then
one line per parameter and per field of its result (type, the values it may take, its
default, whether it is required, an object's own fields by name), far shorter than the
definitions as JSON. Written as FastMCP writes it, so that a model reads the same text."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._middleware import ListedTool

#: The most fields of an object a parameter line names.
_FIELDS_SHOWN = 16
#: The most values a parameter line lists.
_VALUES_SHOWN = 8


def serialize_tools_for_output_markdown(tools: Sequence[ListedTool]) -> str:
    """The tools' definitions in markdown."""
    if not tools:
        return "No tools matched the query."
    blocks = []
    for tool in tools:
        lines = [f"### {tool.name}"]
        if tool.description:
            lines += ["", tool.description.strip()]
        lines += ["", *_section(tool.parameters, "Parameters")]
        if tool.output_schema is not None:
            lines += ["", *_section(tool.output_schema, "Returns")]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _section(schema: Any, title: str) -> list[str]:
    heading = f"**{title}**"
    if not isinstance(schema, dict):
        return [heading, "- `value` (any)"]
    properties = schema.get("properties")
    if properties is None:
        return [heading, f"- `value` ({_kind(schema)})"]
    if not properties:
        return [heading, "*(no parameters)*"]
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    defs = schema.get("$defs")
    defs = defs if isinstance(defs, dict) else {}
    lines = [f"- {_line(name, field, name in required)}{_fields(field, defs)}" for name, field in properties.items()]
    return [heading, *lines]


def _kind(schema: Any) -> str:
    """A short name of what ``schema`` takes: ``string``, ``integer[]``, ``string | integer?``."""
    if not isinstance(schema, dict):
        return "any"
    kind = schema.get("type")
    if isinstance(kind, str) and kind:
        return f"{_kind(schema.get('items'))}[]" if kind == "array" else kind
    if "$ref" in schema:
        return "object"
    for union in ("anyOf", "oneOf"):
        if union in schema:
            return _union(schema[union])
    return "object" if "allOf" in schema or "properties" in schema else "any"


def _union(branches: list[Any]) -> str:
    kinds = list(dict.fromkeys(_kind(branch) for branch in branches))
    if "null" not in kinds:
        return " | ".join(kinds) or "any"
    others = [kind for kind in kinds if kind != "null"]
    return f"{' | '.join(others)}?" if others else "null"


def _line(name: str, field: Any, required: bool) -> str:
    """A parameter: its kind, the values it may take (a few), its default, and whether it
    is required."""
    notes = [_kind(field)]
    if isinstance(field, dict):
        values = _values(field)
        if values is None and "anyOf" in field:
            values = _union_values(field["anyOf"])
        if values and len(values) <= _VALUES_SHOWN:
            notes.append("one of " + "/".join(_json(value) for value in values))
        if field.get("default") is not None:
            notes.append(f"default {_json(field['default'])}")
    if required:
        notes.append("required")
    return f"`{name}` ({', '.join(notes)})"


def _values(schema: Any) -> list[Any] | None:
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return [schema["const"]]
    listed = schema.get("enum")
    return listed if isinstance(listed, list) else None


def _union_values(branches: Any) -> list[Any] | None:
    """The values a union takes, when every branch but null lists its own."""
    if not isinstance(branches, list):
        return None
    values: list[Any] = []
    for branch in branches:
        if isinstance(branch, dict) and branch.get("type") == "null":
            continue
        own = _values(branch)
        if own is None:
            return None
        values += [value for value in own if value not in values]
    return values or None


def _json(value: Any) -> str:
    # A schema read from YAML may hold dates.
    return json.dumps(value, default=str)


def _fields(schema: Any, defs: dict[str, Any]) -> str:
    """``: `a`, `b`, +3 more``: the fields of the object a parameter takes, one level down
    (through a reference, a list's items and every branch of a union or composition), or
    nothing."""
    found: dict[str, None] = {}
    seen: set[int] = set()
    # Depth first, a node's own fields after those of its branches (unions, then
    # compositions), each branch in order.
    pending: list[tuple[Any, bool]] = [(schema, False)]
    while pending:
        node, expanded = pending.pop()
        if expanded:
            if isinstance(node.get("properties"), dict):
                found.update(dict.fromkeys(node["properties"]))
            continue
        if isinstance(node, dict) and isinstance(ref := node.get("$ref"), str) and ref.startswith("#/$defs/"):
            node = defs.get(ref.removeprefix("#/$defs/"), node)
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        if node.get("type") == "array":
            pending.append((node.get("items"), False))
            continue
        pending.append((node, True))
        for key in ("allOf", "oneOf", "anyOf"):
            if isinstance(branches := node.get(key), list):
                pending += [(branch, False) for branch in reversed(branches)]
    if not found:
        return ""
    names = list(found)
    rest = len(names) - _FIELDS_SHOWN
    return ": " + ", ".join(f"`{name}`" for name in names[:_FIELDS_SHOWN]) + (f", +{rest} more" if rest > 0 else "")

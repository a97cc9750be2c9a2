"""JSON Schemas as FastMCP lists them: definitions inlined where they are used, and no
``title`` keywords (pydantic's, made up from names)."""

from __future__ import annotations

from typing import Any

#: Keywords whose value maps names to schemas (the names are not keywords).
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def compressed(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` without titles, and with its local definitions inlined where they are
    used; a schema with a recursive definition keeps its definitions (as FastMCP lists it),
    and a reference to no definition stays as it is."""
    return _inlined(schema, titles=False)


def dereferenced(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with its local definitions inlined as :func:`compressed` inlines them, its
    titles kept (as FastMCP lists the schemas of an OpenAPI description)."""
    return _inlined(schema, titles=True)


def _inlined(schema: dict[str, Any], titles: bool) -> dict[str, Any]:
    try:
        rebuilt: dict[str, Any] = _rebuilt(schema, schema.get("$defs", {}), (), titles)
    except _Recursive:
        rebuilt = _rebuilt(schema, None, (), titles)
    return rebuilt


class _Recursive(Exception):
    """A definition refers to itself: it cannot be inlined."""


def _rebuilt(
    node: Any, definitions: dict[str, Any] | None, open_refs: tuple[str, ...], titles: bool, in_map: bool = False
) -> Any:
    """`node` (without titles unless `titles`); with `definitions`, its references to them
    inlined."""
    if isinstance(node, list):
        return [_rebuilt(item, definitions, open_refs, titles) for item in node]
    if not isinstance(node, dict):
        return node
    if in_map:
        return {name: _rebuilt(value, definitions, open_refs, titles) for name, value in node.items()}
    ref = node.get("$ref")
    name = ref.removeprefix("#/$defs/") if isinstance(ref, str) and ref.startswith("#/$defs/") else None
    if definitions is not None and name in definitions:
        if name in open_refs:
            raise _Recursive(name)
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        inlined = _rebuilt(definitions[name], definitions, (*open_refs, name), titles)
        return {**inlined, **_rebuilt(siblings, definitions, open_refs, titles)}
    return {
        key: _rebuilt(value, definitions, open_refs, titles, key in _SCHEMA_MAPS)
        for key, value in node.items()
        if not (key == "title" and isinstance(value, str) and not titles)
        and not (key == "$defs" and definitions is not None)
    }

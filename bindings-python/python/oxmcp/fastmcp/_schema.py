"""JSON Schemas as FastMCP lists them: definitions inlined where they are used, and no
``title`` keywords (pydantic's, made up from names)."""

from __future__ import annotations

from typing import Any

#: Keywords whose value maps names to schemas (the names are not keywords).
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def compressed(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with its local definitions inlined (a recursive one stays a reference,
    its definition kept) and its titles dropped."""
    definitions: dict[str, Any] = schema.get("$defs", {})
    kept: dict[str, Any] = {}

    def inline(node: Any, open_refs: tuple[str, ...], in_map: bool = False) -> Any:
        if isinstance(node, list):
            return [inline(item, open_refs) for item in node]
        if not isinstance(node, dict):
            return node
        if in_map:
            return {name: inline(value, open_refs) for name, value in node.items()}
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in open_refs or name not in definitions:
                kept[name] = definitions.get(name)
                return node
            siblings = {key: value for key, value in node.items() if key != "$ref"}
            return {**inline(definitions[name], (*open_refs, name)), **inline(siblings, open_refs)}
        return {
            key: inline(value, open_refs, key in _SCHEMA_MAPS)
            for key, value in node.items()
            if key != "$defs" and not (key == "title" and isinstance(value, str))
        }

    result: dict[str, Any] = inline(schema, ())
    # Definitions of recursive types stay, inlined within themselves as far as they go.
    for name in list(kept):
        kept[name] = inline(definitions[name], (name,))
    if kept:
        result["$defs"] = kept
    return result

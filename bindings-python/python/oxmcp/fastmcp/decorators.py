"""What FastMCP's standalone decorators (``@tool``, ``@resource(uri)``, ``@prompt``) leave
on a function: the options a server's decorator would take, for a server (``mcp.add_tool``,
a provider) to register it with later."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: Where the options go on a function, as FastMCP's decorators put them.
_ATTRIBUTE = "__fastmcp__"


@dataclass(frozen=True)
class Marked:
    """A function marked as a component of some ``kind``, with ``options`` (a resource's
    include its ``uri``)."""

    kind: Literal["tool", "resource", "prompt"]
    options: dict[str, Any]


def mark(fn: F, marked: Marked) -> F:
    """``fn``, marked (a method's function, for a bound or static method)."""
    setattr(getattr(fn, "__func__", fn), _ATTRIBUTE, marked)
    return fn


def marked(fn: Any) -> Marked | None:
    """What ``fn`` was marked with, if it was."""
    found = getattr(fn, _ATTRIBUTE, None)
    return found if isinstance(found, Marked) else None


def named(name_or_fn: Any, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with the name given first (``@tool("name")``), as FastMCP's take it."""
    if not isinstance(name_or_fn, str):
        return options
    if "name" in options:
        raise TypeError("Cannot specify name both as first argument and keyword")
    return {**options, "name": name_or_fn}


__all__ = ["Marked", "mark", "marked", "named"]

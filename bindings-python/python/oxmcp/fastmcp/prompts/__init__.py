"""FastMCP's ``fastmcp.prompts``: the standalone ``@prompt``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from ..decorators import Marked, mark, named

F = TypeVar("F", bound=Callable[..., Any])


@overload
def prompt(name_or_fn: F, /) -> F: ...


@overload
def prompt(name_or_fn: str | None = None, /, **options: Any) -> Callable[[F], F]: ...


def prompt(name_or_fn: Any = None, /, **options: Any) -> Any:
    """Marks a function as a prompt, with the options ``mcp.prompt`` takes, without
    registering it (a provider does, or ``mcp.prompt(fn)``)."""
    given = named(name_or_fn, options)

    def marked(fn: F) -> F:
        return mark(fn, Marked("prompt", given))

    return marked(name_or_fn) if callable(name_or_fn) else marked


__all__ = ["prompt"]

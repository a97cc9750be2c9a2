"""FastMCP's ``fastmcp.resources``: the standalone ``@resource(uri)``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from ..decorators import Marked, mark

F = TypeVar("F", bound=Callable[..., Any])


def resource(uri: str, **options: Any) -> Callable[[F], F]:
    """Marks a function as the resource (or template, with ``{variables}``) at ``uri``, with
    the options ``mcp.resource`` takes, without registering it (a provider does, or
    ``mcp.resource(uri, ...)(fn)``)."""
    if inspect.isroutine(uri):
        raise TypeError("The @resource decorator requires a URI. Use @resource('uri') instead of @resource")

    def marked(fn: F) -> F:
        return mark(fn, Marked("resource", {"uri": uri, **options}))

    return marked


__all__ = ["resource"]

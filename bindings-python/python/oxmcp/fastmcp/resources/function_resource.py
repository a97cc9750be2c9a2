"""FastMCP's ``fastmcp.resources.function_resource``: :class:`FunctionResource`, the
resource a function reads (``Resource.from_function(fn, uri)``), and the standalone
``@resource(uri)``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ConfigDict, Field

from ..decorators import Marked, mark
from .base import Resource

F = TypeVar("F", bound=Callable[..., Any])


class FunctionResource(Resource):
    """The resource a function reads at each request, registered as ``mcp.resource(uri,
    ...)`` registers it (its ``ctx`` and dependencies given to it), with any other option
    of ``mcp.resource`` (``app``...)."""

    model_config = ConfigDict(extra="allow")

    fn: Callable[..., Any] = Field(exclude=True)

    async def read(self) -> Any:
        """What the function gives, called without a request (a server calls it with
        one)."""
        value = self.fn()
        return await value if inspect.isawaitable(value) else value

    def reader(self) -> Callable[..., Any]:
        return self.fn

    def listed(self) -> dict[str, Any]:
        return {**super().listed(), **(self.model_extra or {})}

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri: str, **options: Any) -> FunctionResource:
        """The resource at ``uri`` that ``fn`` reads, with ``mcp.resource``'s options
        (``name`` is the function's unless given)."""
        return cls(fn=fn, uri=uri, **{"name": getattr(fn, "__name__", None), **options})


def resource(uri: str, **options: Any) -> Callable[[F], F]:
    """Marks a function as the resource (or template, with ``{variables}``) at ``uri``, with
    the options ``mcp.resource`` takes, without registering it (a provider does,
    ``mcp.add_resource(fn)``, or ``mcp.resource(uri, ...)(fn)``)."""
    if inspect.isroutine(uri):
        raise TypeError("The @resource decorator requires a URI. Use @resource('uri') instead of @resource")

    def marked(fn: F) -> F:
        return mark(fn, Marked("resource", {"uri": uri, **options}))

    return marked


__all__ = ["FunctionResource", "resource"]

"""FastMCP's ``Tool``: a tool before it is on a server, to register with ``mcp.add_tool``
or to make another from (:meth:`Tool.from_tool`). ``@tool`` (``from fastmcp.tools import
tool``) gives a function the options ``mcp.tool`` would, without registering it.

A tool's definition is what FastMCP lists for it; its handler is made when a server
registers it, with that server's context."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, overload

from ..decorators import Marked, mark, marked, named

if TYPE_CHECKING:
    from ...server._mounting import _Registration
    from ..server._middleware import ListedTool
    from ..server.server import FastMCP
    from .tool_transform import TransformedTool

F = TypeVar("F", bound=Callable[..., Any])


class Tool(ABC):
    """A tool as FastMCP lists it (:attr:`name`, :attr:`description`, :attr:`parameters`,
    :attr:`output_schema`...), not yet on a server."""

    @abstractmethod
    def _registration(self, server: FastMCP | None) -> _Registration:
        """What ``server`` registers for this tool (None: its definition alone, with a
        handler that is never run)."""

    @cached_property
    def definition(self) -> dict[str, Any]:
        """The tool's definition as clients get it listed."""
        return self._registration(None).definition

    @property
    def name(self) -> str:
        """The tool's name."""
        name: str = self.definition["name"]
        return name

    @property
    def title(self) -> str | None:
        """The tool's title."""
        return self.definition.get("title")

    @property
    def description(self) -> str | None:
        """The tool's description."""
        return self.definition.get("description")

    @property
    def parameters(self) -> dict[str, Any]:
        """The tool's input schema."""
        schema: dict[str, Any] = self.definition["inputSchema"]
        return schema

    @property
    def output_schema(self) -> dict[str, Any] | None:
        """The tool's output schema, if it has one."""
        return self.definition.get("outputSchema")

    @property
    def annotations(self) -> dict[str, Any] | None:
        """The tool's annotations."""
        return self.definition.get("annotations")

    @property
    def meta(self) -> dict[str, Any] | None:
        """The tool's ``_meta``, as listed."""
        return self.definition.get("_meta")

    @property
    def icons(self) -> list[dict[str, Any]] | None:
        """The tool's icons."""
        return self.definition.get("icons")

    @property
    def tags(self) -> set[str]:
        """The tool's tags."""
        return self.listed.tags

    @property
    def version(self) -> str | None:
        """The tool's version, if it was given one."""
        return self.listed.version

    @cached_property
    def listed(self) -> ListedTool:
        """The tool as a server lists it (what ``mcp.list_tools()`` gives)."""
        from ..server._middleware import ListedTool

        return ListedTool.model_validate(self.definition)

    def to_mcp_tool(self, **overrides: Any) -> Any:
        """The tool as a client gets it listed, the official SDK's ``Tool`` when it is
        installed (oxmcp's otherwise), with ``overrides`` of its fields."""
        return self.listed.to_mcp_tool(**overrides)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    @classmethod
    def from_function(cls, fn: Callable[..., Any], **options: Any) -> FunctionTool:
        """The tool ``fn`` makes with ``mcp.tool``'s options (those ``@tool`` gave it, then
        these)."""
        given = marked(fn)
        return FunctionTool(fn, {**(given.options if given and given.kind == "tool" else {}), **options})

    @classmethod
    def from_tool(cls, tool: Tool | Callable[..., Any], **options: Any) -> TransformedTool:
        """A tool made from ``tool`` (or the tool a function makes): renamed, redescribed,
        its arguments renamed, redescribed, given defaults or hidden (``transform_args``),
        or run by ``transform_fn``, which calls ``tool`` with ``forward(...)``
        (:meth:`.tool_transform.TransformedTool.from_tool`)."""
        from .tool_transform import TransformedTool

        return TransformedTool.from_tool(tool, **options)


class FunctionTool(Tool):
    """The tool a function makes, with ``mcp.tool``'s options."""

    def __init__(self, fn: Callable[..., Any], options: dict[str, Any]) -> None:
        self.fn = fn
        self.options = options

    def _registration(self, server: FastMCP | None) -> _Registration:
        from ..server.server import function_tool

        return function_tool(self.fn, self.options, server)


def as_tool(tool: Tool | Callable[..., Any]) -> Tool:
    """``tool``, or the tool a function makes."""
    return tool if isinstance(tool, Tool) else Tool.from_function(tool)


@overload
def tool(name_or_fn: F, /) -> F: ...


@overload
def tool(name_or_fn: str | None = None, /, **options: Any) -> Callable[[F], F]: ...


def tool(name_or_fn: Any = None, /, **options: Any) -> Any:
    """FastMCP's standalone ``@tool``: the function, given the options ``mcp.tool`` takes
    (used when a server adds it, or a tool is made from it), and not registered."""
    given = named(name_or_fn, options)

    def marked(fn: F) -> F:
        return mark(fn, Marked("tool", given))

    return marked(name_or_fn) if callable(name_or_fn) else marked


__all__ = ["FunctionTool", "Tool", "as_tool", "tool"]

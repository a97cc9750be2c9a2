"""FastMCP's ``Tool``: a tool before it is on a server, to register with ``mcp.add_tool``,
to make another from (:meth:`Tool.from_tool`), or for a provider to serve
(:class:`~oxmcp.fastmcp.server.providers.Provider`). ``@tool`` (``from fastmcp.tools import
tool``) gives a function the options ``mcp.tool`` would, without registering it.

A tool is a pydantic model of what FastMCP lists for it (its ``name``, ``parameters``,
``output_schema``...), as FastMCP's is. One of a function (:class:`FunctionTool`) or of
another tool (:class:`~.tool_transform.TransformedTool`) gets those fields from the
definition made of it; a subclass of one's own gives them, with fields of its own, and
runs itself (``async def run(self, arguments)``). Its handler is made when a server
registers it, with that server's context."""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from ..decorators import Marked, mark, marked, named

if TYPE_CHECKING:
    from typing_extensions import Self

    from ...server._mounting import _Registration
    from ..server._middleware import ListedTool
    from ..server.server import FastMCP
    from .tool_transform import TransformedTool

F = TypeVar("F", bound=Callable[..., Any])


class Tool(BaseModel):
    """A tool as FastMCP lists it (:attr:`name`, :attr:`description`, :attr:`parameters`,
    :attr:`output_schema`...), not yet on a server.

    Made directly, by a subclass that runs it::

        class Multiply(Tool):
            factor: float = 2

            async def run(self, arguments: dict[str, Any]) -> ToolResult:
                return ToolResult(structured_content={"result": arguments["x"] * self.factor})

        mcp.add_tool(Multiply(name="double", parameters={"type": "object", "properties": {"x": {"type": "number"}}}))

    ``run`` gets the arguments as the client sent them (the core has checked them against
    ``parameters``) and returns a :class:`~oxmcp.fastmcp.tools.ToolResult`, or a value a
    function tool would return (converted as its return annotation says)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    #: The tool's name.
    name: str
    #: Its version, one of several of its name a server may serve.
    version: str | None = None
    #: Its title.
    title: str | None = None
    #: Its description.
    description: str | None = None
    #: Its icons.
    icons: list[dict[str, Any]] | None = None
    #: Its tags, listed in ``_meta.fastmcp.tags``.
    tags: set[str] = Field(default_factory=set)
    #: Its ``_meta``.
    meta: dict[str, Any] | None = None
    #: Its input schema.
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    #: Its output schema, if it has one.
    output_schema: dict[str, Any] | None = None
    #: Its annotations (a ``ToolAnnotations``, or their wire form).
    annotations: Any = None
    #: Seconds a call may run before it fails, if it has a limit.
    timeout: float | None = None

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, version: Any) -> Any:
        return version if version is None or isinstance(version, str) else str(version)

    async def run(self, arguments: dict[str, Any]) -> Any:
        """Runs the tool with ``arguments`` as sent: a subclass's to give."""
        raise NotImplementedError("Subclasses must implement run()")

    def _registration(self, server: FastMCP | None) -> _Registration:
        """What ``server`` registers for this tool (None: its definition alone, with a
        handler that is never run): its fields, and :meth:`run` called with the arguments."""
        from ..server.server import function_tool

        options = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "icons": self.icons,
            "meta": self.meta,
            "annotations": self.annotations,
            "input_schema": self.parameters,
            "output_schema": self.output_schema,
            "raw_arguments": True,
            **({"tags": self.tags} if self.tags else {}),
            **{key: value for key in ("version", "timeout") if (value := getattr(self, key)) is not None},
        }
        return function_tool(_runner(self), options, server)

    @property
    def definition(self) -> dict[str, Any]:
        """The tool's definition as clients get it listed."""
        return self._registration(None).definition

    @property
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
        from ..server.server import function_tool

        options = function_options(fn, options)
        return FunctionTool.made(function_tool(fn, options, None), fn=fn, options=options)

    @classmethod
    def from_tool(cls, tool: Tool | Callable[..., Any], **options: Any) -> TransformedTool:
        """A tool made from ``tool`` (or the tool a function makes): renamed, redescribed,
        its arguments renamed, redescribed, given defaults or hidden (``transform_args``),
        or run by ``transform_fn``, which calls ``tool`` with ``forward(...)``
        (:meth:`.tool_transform.TransformedTool.from_tool`)."""
        from .tool_transform import TransformedTool

        return TransformedTool.from_tool(tool, **options)


class MadeTool(Tool):
    """A tool whose definition is made of something else (a function, another tool): its
    fields are what that definition lists, and its registration is made as it was."""

    _definition: dict[str, Any] = PrivateAttr()

    @classmethod
    def made(cls, registration: _Registration, **own: Any) -> Self:
        """The tool ``registration`` (made with no server) defines, with its own fields."""
        definition = registration.definition
        fastmcp = (definition.get("_meta") or {}).get("fastmcp") or {}
        made = cls(
            name=definition["name"],
            version=fastmcp.get("version"),
            title=definition.get("title"),
            description=definition.get("description"),
            icons=definition.get("icons"),
            tags=set(fastmcp.get("tags") or ()),
            meta=definition.get("_meta"),
            parameters=definition["inputSchema"],
            output_schema=definition.get("outputSchema"),
            annotations=definition.get("annotations"),
            **own,
        )
        made._definition = definition
        return made

    @property
    def definition(self) -> dict[str, Any]:
        return self._definition


class FunctionTool(MadeTool):
    """The tool a function makes, with ``mcp.tool``'s options."""

    #: The function.
    fn: Callable[..., Any] = Field(exclude=True, repr=False)
    #: ``mcp.tool``'s options it was made with.
    options: dict[str, Any] = Field(default_factory=dict, exclude=True, repr=False)

    def _registration(self, server: FastMCP | None) -> _Registration:
        from ..server.server import function_tool

        return function_tool(self.fn, self.options, server)


def _runner(tool: Tool) -> Callable[..., Any]:
    """The function a server registers for a tool that runs itself: :meth:`Tool.run`
    given the arguments as sent, its value converted as its return annotation says."""

    async def run(arguments: dict[str, Any]) -> Any:
        return await tool.run(arguments)

    try:
        returned = typing.get_type_hints(type(tool).run).get("return", Any)
    except Exception:
        # An annotation that does not resolve here says nothing a conversion could use.
        returned = Any
    run.__annotations__ = {"arguments": dict[str, Any], "return": returned}
    return run


def function_options(fn: Callable[..., Any], options: dict[str, Any]) -> dict[str, Any]:
    """``mcp.tool``'s options for ``fn``: those ``@tool`` gave it, then ``options``."""
    given = marked(fn)
    return {**(given.options if given and given.kind == "tool" else {}), **options}


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

"""FastMCP's ``fastmcp.experimental.transforms.code_mode``: a server's tools used by code
rather than listed. With ``mcp.add_transform(CodeMode())`` a client lists only discovery
tools (``search`` and ``get_schema`` by default; :class:`GetTags` and :class:`ListTools`
too if given) and ``execute``, which runs the Python a model writes in a sandbox
(`pydantic-monty <https://github.com/pydantic/monty>`_, installed with ``pip install
pydantic-monty``) where ``await call_tool(name, params)`` calls one of the server's tools:
its structured content, else its text. The other tools stay callable directly. What the
discovery tools answer is written as FastMCP writes it (names and descriptions, markdown,
or the definitions as JSON), so that a model reads the same text; what the session may not
see is neither found nor called.

A failed call raises in the sandbox, its message naming the tool and, for arguments its
schema refuses, the tool's parameters; ``max_tool_calls`` (50) bounds the calls of one
``execute``, ``wall_clock_timeout_secs`` its time, and the sandbox's own limits (30 s of
its time, 100 MB) its code. A :class:`SandboxProvider` of one's own runs the code
elsewhere."""

from __future__ import annotations

import asyncio
import importlib
import json
import re
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

from pydantic import Field

from ...._errors import McpError
from ...exceptions import NotFoundError, ToolError
from ...server._middleware import ListedTool
from ...server.context import Context
from ...server.transforms import Transform
from ...server.transforms._markdown import serialize_tools_for_output_markdown
from ...server.transforms.search import BM25SearchTransform, serialize_tools_for_output_json, visible_tools
from ...tools.base import Tool

if TYPE_CHECKING:
    from ...server.server import FastMCP

#: The tools a request may reach through the transform: ``await catalog(ctx)``.
GetToolCatalog = Callable[[Context], Awaitable[Sequence[ListedTool]]]
#: Finds the tools that match a query among those given, best first.
SearchFn = Callable[[Sequence[ListedTool], str], Awaitable[Sequence[ListedTool]]]
#: Makes a discovery tool from the catalog.
DiscoveryToolFactory = Callable[[GetToolCatalog], Tool]
#: How much of each tool a discovery tool writes: names and descriptions, markdown
#: parameters, or the definitions as JSON.
ToolDetailLevel = Literal["brief", "detailed", "full"]

_DETAIL = (
    "'brief' for names and descriptions, 'detailed' for parameter schemas as markdown, 'full' for complete JSON schemas"
)
_EXECUTE = (
    "Chain `await call_tool(...)` calls in one Python block; prefer returning the final answer from a single "
    "block.\nUse `return` to produce output.\nOnly `call_tool(tool_name: str, params: dict) -> Any` is "
    "available in scope."
)
#: pydantic's refusal of arguments, as a tool's error text has it: a first line, then for
#: each error its place, its message indented (before its type), and where to read more.
_PYDANTIC_REFUSAL = re.compile(r"\d+ validation errors? for \S+\n")
_PYDANTIC_ERROR = re.compile(r"^(\S[^\n]*)\n  ([^\n]*?) \[type=", re.MULTILINE)
#: What in a failure's text says the arguments were wrong, as FastMCP reads it.
_REFUSED_ARGUMENTS = ("validation error for", "unexpected keyword argument", "missing required argument")


class SandboxProvider(Protocol):
    """Runs the code ``execute`` is given, with ``external_functions`` (``call_tool``)
    callable from it, and returns what it returns. The code is the model's: run it
    isolated, never with ``exec``."""

    async def run(
        self,
        code: str,
        *,
        inputs: dict[str, Any] | None = None,
        external_functions: dict[str, Callable[..., Any]] | None = None,
    ) -> Any: ...


#: The limits a :class:`MontySandboxProvider` applies unless told otherwise.
_DEFAULT_LIMITS = {"max_feed_duration_secs": 30.0, "max_memory": 100_000_000}


class MontySandboxProvider:
    """Runs code in pydantic-monty's sandbox, within ``limits`` (monty's
    ``ResourceLimits``: ``max_feed_duration_secs``, ``max_turn_duration_secs``,
    ``max_memory``, ``max_recursion_depth``, ``gc_interval``; by default 30 s and 100 MB,
    None for none but monty's recursion limit). A key monty does not know is refused."""

    def __init__(self, *, limits: dict[str, Any] | Literal["default"] | None = "default") -> None:
        self.limits = dict(_DEFAULT_LIMITS) if limits == "default" else limits

    async def run(
        self,
        code: str,
        *,
        inputs: dict[str, Any] | None = None,
        external_functions: dict[str, Callable[..., Any]] | None = None,
    ) -> Any:
        try:
            monty = importlib.import_module("pydantic_monty")
        except ModuleNotFoundError as missing:
            raise ImportError(
                "CodeMode runs code in pydantic-monty's sandbox: `pip install pydantic-monty`, "
                "or give CodeMode a SandboxProvider of your own"
            ) from missing
        if self.limits is not None:
            known = monty.ResourceLimits.__annotations__.keys()
            unknown = sorted(self.limits.keys() - known)
            if unknown:
                raise ValueError(
                    f"Unsupported Monty resource limits: {', '.join(map(repr, unknown))}. "
                    f"Supported limits: {', '.join(sorted(known))}."
                )
        running: set[asyncio.Task[Any]] = set()
        ended = False

        def watched(fn: Callable[..., Any]) -> Callable[..., Any]:
            # Monty may leave a callback running when the code's run ends (or start one
            # after): each is joined, or cancelled, before `run` returns.
            async def call(*args: Any, **kwargs: Any) -> Any:
                task = asyncio.current_task()
                if ended or task is None:
                    raise asyncio.CancelledError
                running.add(task)
                try:
                    answer = fn(*args, **kwargs)
                    return await answer if isinstance(answer, Awaitable) else answer
                finally:
                    running.discard(task)

            return call

        functions = {name: watched(fn) for name, fn in (external_functions or {}).items()}

        async def feed() -> Any:
            async with monty.AsyncMonty() as pool, pool.checkout(limits=self.limits) as session:
                return await session.feed_run(code, inputs=inputs or None, external_lookup=functions or None)

        run = asyncio.ensure_future(feed())
        try:
            return await run
        except asyncio.CancelledError:
            run.cancel()
            raise
        finally:
            ended = True
            left = tuple(running)
            for task in left:
                task.cancel()
            await asyncio.shield(asyncio.gather(*left, return_exceptions=True))


def _render(tools: Sequence[ListedTool], detail: ToolDetailLevel) -> str:
    """The tools as a discovery tool writes them at ``detail``."""
    if detail == "full":
        return json.dumps(serialize_tools_for_output_json(tools), indent=2)
    if not tools:
        return "No tools matched the query."
    if detail == "detailed":
        return serialize_tools_for_output_markdown(tools)
    return "\n".join(f"- {tool.name}: {tool.description}" if tool.description else f"- {tool.name}" for tool in tools)


async def _bm25(tools: Sequence[ListedTool], query: str) -> Sequence[ListedTool]:
    """The tools that match ``query``, ranked by BM25 as the search transform ranks them."""
    by_name = {tool.name: tool for tool in tools}
    found = BM25SearchTransform(max_results=sys.maxsize)._search([tool.to_wire() for tool in tools], query)
    return [by_name[tool["name"]] for tool in found]


class Search:
    """``search(query, tags=, detail=, limit=)``: the tools that match a query, best first
    (BM25 unless ``search_fn`` says otherwise), among those with one of ``tags`` if given
    (``"untagged"`` for those without); ``default_limit`` at most unless a call says."""

    def __init__(
        self,
        *,
        search_fn: SearchFn | None = None,
        name: str = "search",
        default_detail: ToolDetailLevel | None = None,
        default_limit: int | None = None,
    ) -> None:
        self._search_fn = search_fn or _bm25
        self._name = name
        self._default_detail: ToolDetailLevel = default_detail or "brief"
        self._default_limit = default_limit

    def __call__(self, get_catalog: GetToolCatalog) -> Tool:
        search_fn = self._search_fn

        async def search(
            query: Annotated[str, "Search query to find available tools"],
            tags: Annotated[list[str] | None, "Filter to tools with any of these tags before searching"] = None,
            detail: Annotated[ToolDetailLevel, _DETAIL] = self._default_detail,
            limit: Annotated[int | None, "Maximum number of results to return"] = self._default_limit,
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str:
            """Search for available tools by query.

            Returns matching tools ranked by relevance.
            """
            catalog = await get_catalog(ctx)
            tools: Sequence[ListedTool] = catalog
            if tags:
                wanted = set(tags) - {"untagged"}
                untagged = "untagged" in tags
                tools = [tool for tool in tools if tool.tags & wanted or (untagged and not tool.tags)]
            found = list(await search_fn(tools, query))
            if limit is not None:
                found = found[: max(limit, 0)]
            rendered = _render(found, detail)
            if len(found) < len(catalog) and detail != "full":
                rendered = f"{len(found)} of {len(catalog)} tools:\n\n{rendered}"
            return rendered

        return Tool.from_function(search, name=self._name)


class GetSchemas:
    """``get_schema(tools, detail=)``: the named tools, in markdown unless a call says
    otherwise, and the names no tool has."""

    def __init__(self, *, name: str = "get_schema", default_detail: ToolDetailLevel | None = None) -> None:
        self._name = name
        self._default_detail: ToolDetailLevel = default_detail or "detailed"

    def __call__(self, get_catalog: GetToolCatalog) -> Tool:
        async def get_schema(
            tools: Annotated[list[str], "List of tool names to get schemas for"],
            detail: Annotated[ToolDetailLevel, _DETAIL] = self._default_detail,
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str:
            """Get parameter schemas for specific tools.

            Use after searching to get the detail needed to call a tool.
            """
            by_name = {tool.name: tool for tool in await get_catalog(ctx)}
            found = [by_name[name] for name in tools if name in by_name]
            missing = [name for name in tools if name not in by_name]
            if missing and not found:
                return f"Tools not found: {', '.join(missing)}"
            if detail == "full":
                written: list[Any] = serialize_tools_for_output_json(found)
                return json.dumps(written + ([{"not_found": missing}] if missing else []), indent=2)
            rendered = _render(found, detail)
            return rendered + (f"\n\nTools not found: {', '.join(missing)}" if missing else "")

        return Tool.from_function(get_schema, name=self._name)


class GetTags:
    """``tags(detail=)``: the tools' tags (``"untagged"`` for those without), each with how
    many tools have it, or (``"full"``) the tools under each."""

    def __init__(self, *, name: str = "tags", default_detail: Literal["brief", "full"] | None = None) -> None:
        self._name = name
        self._default_detail: Literal["brief", "full"] = default_detail or "brief"

    def __call__(self, get_catalog: GetToolCatalog) -> Tool:
        async def tags(
            detail: Annotated[
                Literal["brief", "full"],
                "Level of detail: 'brief' for tag names and counts, 'full' for tools listed under each tag",
            ] = self._default_detail,
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str:
            """List available tool tags.

            Use to browse available tools by tag before searching.
            """
            by_tag: dict[str, list[ListedTool]] = {}
            for tool in await get_catalog(ctx):
                for tag in tool.tags or {"untagged"}:
                    by_tag.setdefault(tag, []).append(tool)
            if not by_tag:
                return "No tools available."
            grouped = sorted(by_tag.items())
            if detail == "brief":
                return "\n".join(f"- {tag} ({len(each)} tool{'' if len(each) == 1 else 's'})" for tag, each in grouped)
            return "\n\n".join(f"### {tag}\n{_render(each, 'brief')}" for tag, each in grouped)

        return Tool.from_function(tags, name=self._name)


class ListTools:
    """``list_tools(detail=)``: every tool the session may reach."""

    def __init__(self, *, name: str = "list_tools", default_detail: ToolDetailLevel | None = None) -> None:
        self._name = name
        self._default_detail: ToolDetailLevel = default_detail or "brief"

    def __call__(self, get_catalog: GetToolCatalog) -> Tool:
        async def list_tools(
            detail: Annotated[ToolDetailLevel, _DETAIL] = self._default_detail,
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str:
            """List all available tools.

            Use to see the full catalog before searching or calling tools.
            """
            return _render(await get_catalog(ctx), detail)

        return Tool.from_function(list_tools, name=self._name)


class CodeMode(Transform):
    """Lists the discovery tools (``discovery_tools``, :class:`Search` and
    :class:`GetSchemas` by default) and ``execute`` in place of the server's tools."""

    def __init__(
        self,
        *,
        sandbox_provider: SandboxProvider | None = None,
        discovery_tools: list[DiscoveryToolFactory] | None = None,
        execute_tool_name: str = "execute",
        execute_description: str | None = None,
        max_tool_calls: int | None = 50,
        wall_clock_timeout_secs: float | None = None,
    ) -> None:
        self.sandbox_provider: SandboxProvider = sandbox_provider or MontySandboxProvider()
        self.execute_tool_name = execute_tool_name
        self.execute_description = execute_description
        self.max_tool_calls = max_tool_calls
        self.wall_clock_timeout_secs = wall_clock_timeout_secs
        self._factories: list[DiscoveryToolFactory] = (
            discovery_tools if discovery_tools is not None else [Search(), GetSchemas()]
        )
        self._own: set[str] = set()

    def _apply(self, server: FastMCP) -> None:
        async def catalog(ctx: Context) -> list[ListedTool]:
            return [ListedTool.model_validate(tool) for tool in await visible_tools(server, ctx, self._own)]

        tools = [factory(catalog) for factory in self._factories]
        names = [tool.name for tool in tools]
        if self.execute_tool_name in names:
            raise ValueError(f"Discovery tool name '{self.execute_tool_name}' collides with execute_tool_name.")
        if len(set(names)) != len(names):
            raise ValueError("Discovery tools must have unique names.")
        self._own = {*names, self.execute_tool_name}
        for tool in tools:
            server.add_tool(tool)
        execute = Tool.from_function(
            self._execute(catalog), name=self.execute_tool_name, description=self.execute_description or _EXECUTE
        )
        server.add_tool(execute)
        # The server's tools are listed through its interceptor, which leaves them out.
        server._intercept()

    def _lists(self, name: str) -> bool:
        return name in self._own

    def _execute(self, catalog: GetToolCatalog) -> Callable[..., Any]:
        transform = self

        async def execute(
            code: Annotated[
                str, Field(description="Python async code to execute tool calls via call_tool(name, arguments)")
            ],
            ctx: Context = None,  # type: ignore[assignment]
        ) -> Any:
            """Execute tool calls using Python code."""
            calls = 0

            async def call_tool(tool_name: str, params: dict[str, Any]) -> Any:
                nonlocal calls
                calls += 1
                limit = transform.max_tool_calls
                if limit is not None and calls > limit:
                    raise ToolError(
                        f"Tool call limit exceeded: at most {limit} call_tool() invocations are allowed per execute()."
                    )
                tool = next((tool for tool in await catalog(ctx) if tool.name == tool_name), None)
                if tool is None:
                    raise NotFoundError(f"Unknown tool: {tool_name}")
                try:
                    result = await ctx._native.call_tool(tool.name, params)
                except McpError as refused:
                    raise ToolError(_failed_call(tool, refused.message, refused=True)) from None
                if result.get("isError"):
                    raise ToolError(_failed_call(tool, _failure(result)))
                return _value(result)

            run = transform.sandbox_provider.run(code, external_functions={"call_tool": call_tool})
            timeout = transform.wall_clock_timeout_secs
            try:
                return await (run if timeout is None else asyncio.wait_for(run, timeout))
            except TimeoutError:
                raise ToolError(f"Execution exceeded the wall-clock limit of {timeout} seconds.") from None

        return execute


def _failed_call(tool: ListedTool, failure: Any, refused: bool = False) -> str:
    """What the code reads of a failed call of ``tool``: the failure (pydantic's refusal of
    the arguments shortened to each error's place and message, as FastMCP words it), and
    the tool's parameters (``*`` marking those required) when its arguments were
    ``refused`` or the failure says they were wrong."""
    text = failure if isinstance(failure, str) else json.dumps(failure)
    if _PYDANTIC_REFUSAL.match(text):
        text = "; ".join(f"{place}: {message}" for place, message in _PYDANTIC_ERROR.findall(text))
        refused = True
    said = f"call_tool({tool.name!r}) failed: {text}"
    properties = tool.parameters.get("properties")
    wrong = refused or any(marker in text.lower() for marker in _REFUSED_ARGUMENTS)
    if wrong and isinstance(properties, dict) and properties:
        required = set(tool.parameters.get("required") or ())
        listed = ", ".join(name + ("*" if name in required else "") for name in properties)
        said += f"\nValid parameters for {tool.name} (* = required): {listed}"
    return said


def _failure(result: dict[str, Any]) -> Any:
    """What a tool's error result says: its text, else its structured content."""
    text = "\n".join(block["text"] for block in result.get("content") or () if block.get("type") == "text")
    if text:
        return text
    structured = result.get("structuredContent")
    return structured if structured is not None else "tool returned an error"


def _value(result: dict[str, Any]) -> Any:
    """What ``call_tool`` returns of a result: its structured content, else its text."""
    if result.get("structuredContent") is not None:
        return result["structuredContent"]
    return "\n".join(
        block["text"] if block.get("type") == "text" else json.dumps(block) for block in result.get("content") or ()
    )

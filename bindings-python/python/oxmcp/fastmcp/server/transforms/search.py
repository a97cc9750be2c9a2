"""FastMCP's ``fastmcp.server.transforms.search``: a server's tools found by searching
rather than listed. With ``mcp.add_transform(RegexSearchTransform())`` (or
:class:`BM25SearchTransform`) a client lists only ``search_tools``, ``call_tool`` and the
tools kept ``always_visible``; ``search_tools`` gives the definitions of the tools that
match (as listed: JSON, markdown with ``serialize_tools_for_output_markdown``, or what another
``search_result_serializer`` makes of them, ``max_results`` at most), and ``call_tool``
calls one of them by name, in place, with the calling tool's context. The other tools stay
callable directly. What is searched of a tool is its name, its description, and the names
and descriptions of its parameters; what the session may not see (:mod:`.visibility`) is
not found.

A serializer is given the tools found as FastMCP's middleware sees them (``name``,
``description``, ``parameters``, ``output_schema``, ``to_mcp_tool()``)."""

from __future__ import annotations

import math
import re
import time
import unicodedata
from abc import abstractmethod
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic_core import SchemaError, SchemaValidator, ValidationError, core_schema

from ...._errors import McpError
from ...exceptions import NotFoundError, ToolError
from ...tools import ToolResult
from .._middleware import ListedTool, tool_result
from ..context import Context
from . import Transform
from ._markdown import serialize_tools_for_output_markdown
from .visibility import Component, is_visible

if TYPE_CHECKING:
    from ..server import FastMCP

#: What turns the tools found into what ``search_tools`` answers.
SearchResultSerializer = Callable[[Sequence[ListedTool]], Any | Awaitable[Any]]

#: The descriptions FastMCP gives the tools it makes, which clients list.
_CALL_TOOL = "Call a tool by name with the given arguments.\n\nUse this to execute tools discovered via search_tools."
_REGEX_SEARCH = (
    "Search for tools matching a regex pattern.\n\nReturns matching tool definitions in the same format as "
    "list_tools.\nInvalid, unsupported, or overlong patterns return an empty list."
)
_BM25_SEARCH = (
    "Search for tools using natural language.\n\nReturns matching tool definitions ranked by relevance,\n"
    "in the same format as list_tools."
)


async def visible_tools(server: FastMCP, ctx: Context, leaving_out: set[str]) -> list[dict[str, Any]]:
    """The definitions of ``server``'s tools that the session of ``ctx`` may see, but those
    named in ``leaving_out`` (a transform's own)."""
    rules = await ctx.visibility_rules()
    return [
        tool
        for tool in server._components.definitions("tool")
        if tool["name"] not in leaving_out and is_visible(rules, Component.listed("tool", tool))
    ]


def serialize_tools_for_output_json(tools: Sequence[ListedTool]) -> list[dict[str, Any]]:
    """The tools' definitions, as ``tools/list`` gives them, in the order of the protocol's
    model (the official SDK's when it is installed, as FastMCP's), their schemas' keys in
    order, as FastMCP writes them."""
    return [
        {key: _sorted(value) if key.endswith("Schema") else value for key, value in _dumped(tool.to_mcp_tool()).items()}
        for tool in tools
    ]


def _dumped(tool: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def _sorted(value: Any) -> Any:
    """``value`` with the keys of every object in it in order."""
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def _searched_text(tool: dict[str, Any]) -> str:
    """What a search reads of a tool: its name, description, and its parameters' names and
    descriptions."""
    parts = [tool["name"]]
    if tool.get("description"):
        parts.append(tool["description"])
    properties = (tool.get("inputSchema") or {}).get("properties") or {}
    for name, schema in properties.items():
        parts.append(name)
        if isinstance(schema, dict) and schema.get("description"):
            parts.append(schema["description"])
    return " ".join(parts)


class BaseSearchTransform(Transform):
    """What the search transforms share: the tools they list and add, and ``call_tool``."""

    def __init__(
        self,
        *,
        max_results: int = 5,
        always_visible: list[str] | None = None,
        search_tool_name: str = "search_tools",
        call_tool_name: str = "call_tool",
        search_result_serializer: SearchResultSerializer | None = None,
    ) -> None:
        self._max_results = max_results
        self._always_visible = set(always_visible or ())
        self._search_tool_name = search_tool_name
        self._call_tool_name = call_tool_name
        self._serializer = search_result_serializer or serialize_tools_for_output_json

    def _apply(self, server: FastMCP) -> None:
        description, search_tools = self._search_tool(server)
        server.tool(search_tools, name=self._search_tool_name, description=description)
        server.tool(self._call_tool(server), name=self._call_tool_name, description=_CALL_TOOL)
        # The server's tools are listed through its interceptor, which leaves them out.
        server._intercept()

    def _lists(self, name: str) -> bool:
        return name in self._always_visible or name in (self._search_tool_name, self._call_tool_name)

    @abstractmethod
    def _search_tool(self, server: FastMCP) -> tuple[str, Callable[..., Any]]:
        """The search tool's description and function."""

    @abstractmethod
    def _search(self, tools: Sequence[dict[str, Any]], query: str) -> Sequence[dict[str, Any]]:
        """The tools that match ``query``, best first."""

    async def _found(self, server: FastMCP, ctx: Context, query: str) -> str | list[dict[str, Any]]:
        """What ``search_tools`` answers for ``query``."""
        found_tools = self._search(await self._catalog(server, ctx), query)
        answer = self._serializer([ListedTool.model_validate(tool) for tool in found_tools])
        found: str | list[dict[str, Any]] = await answer if isinstance(answer, Awaitable) else answer
        return found

    async def _catalog(self, server: FastMCP, ctx: Context) -> list[dict[str, Any]]:
        """The tools the request may find: those its session may see, but this transform's
        own and the ones always listed."""
        own = {self._search_tool_name, self._call_tool_name, *self._always_visible}
        return await visible_tools(server, ctx, own)

    def _call_tool(self, server: FastMCP) -> Callable[..., Any]:
        transform = self

        async def call_tool(
            name: Annotated[str, "The name of the tool to call"],
            ctx: Context,
            arguments: Annotated[dict[str, Any] | None, "Arguments to pass to the tool"] = None,
        ) -> ToolResult:
            if name in (transform._search_tool_name, transform._call_tool_name):
                raise ValueError(f"'{name}' is a synthetic search tool and cannot be called via the call_tool proxy")
            # The name comes from the model: it reaches only what a search could find.
            if not any(tool["name"] == name for tool in await transform._catalog(server, ctx)):
                raise NotFoundError(f"Unknown tool: {name!r}")
            try:
                result = await ctx._native.call_tool(name, arguments)
            except McpError as refused:
                # Arguments the tool's schema refuses fail the call, as FastMCP's do.
                raise ToolError(refused.message) from None
            if result.get("isError"):
                texts = [block.get("text", "") for block in result.get("content") or () if block.get("type") == "text"]
                raise ToolError("\n".join(texts))
            called: ToolResult = tool_result(result)
            return called

        return call_tool


class RegexSearchTransform(BaseSearchTransform):
    """``search_tools(pattern)``: the tools whose text a case-insensitive regular expression
    matches (pydantic's Rust engine: no lookarounds or backreferences), in the order they
    were registered. A pattern longer than 1000 characters, or one the engine refuses,
    finds nothing; a search stops after about a second with what it found."""

    _MAX_PATTERN_LENGTH = 1000
    _TIME_BUDGET = 1.0

    def _search_tool(self, server: FastMCP) -> tuple[str, Callable[..., Any]]:
        transform = self

        async def search_tools(
            pattern: Annotated[
                str,
                "Case-insensitive regex pattern for tool names, descriptions, and parameters, "
                "up to 1000 characters; lookarounds and backreferences are not supported",
            ],
            ctx: Context,
        ) -> str | list[dict[str, Any]]:
            return await transform._found(server, ctx, pattern)

        return _REGEX_SEARCH, search_tools

    def _search(self, tools: Sequence[dict[str, Any]], query: str) -> Sequence[dict[str, Any]]:
        if len(query) > self._MAX_PATTERN_LENGTH:
            return []
        try:
            matcher = SchemaValidator(core_schema.str_schema(pattern=f"(?i){query}", regex_engine="rust-regex"))
        except SchemaError:
            return []
        deadline = time.monotonic() + self._TIME_BUDGET
        found: list[dict[str, Any]] = []
        for tool in tools:
            if time.monotonic() > deadline or len(found) >= self._max_results:
                break
            try:
                matcher.validate_python(_searched_text(tool))
            except ValidationError:
                continue
            found.append(tool)
        return found


class BM25SearchTransform(BaseSearchTransform):
    """``search_tools(query)``: the tools whose text best matches a query in plain words,
    ranked by BM25 (Okapi, k1 1.5, b 0.75, over the words of two letters or more, compared
    without case); tools that share no word with the query are not found."""

    _K1 = 1.5
    _B = 0.75

    def _search_tool(self, server: FastMCP) -> tuple[str, Callable[..., Any]]:
        transform = self

        async def search_tools(
            query: Annotated[str, "Natural language query to search for tools"], ctx: Context
        ) -> str | list[dict[str, Any]]:
            return await transform._found(server, ctx, query)

        return _BM25_SEARCH, search_tools

    def _search(self, tools: Sequence[dict[str, Any]], query: str) -> Sequence[dict[str, Any]]:
        documents = [Counter(_words(_searched_text(tool))) for tool in tools]
        if not documents:
            return []
        lengths = [sum(words.values()) for words in documents]
        average = sum(lengths) / len(documents)
        scores = [0.0] * len(documents)
        for word in _words(query):
            having = sum(1 for words in documents if word in words)
            if not having:
                continue
            rarity = math.log((len(documents) - having + 0.5) / (having + 0.5) + 1.0)
            for i, words in enumerate(documents):
                count = words.get(word, 0)
                if count:
                    norm = self._K1 * (1 - self._B + self._B * lengths[i] / average)
                    scores[i] += rarity * count * (self._K1 + 1) / (count + norm)
        ranked = sorted(range(len(documents)), key=lambda i: scores[i], reverse=True)
        return [tools[i] for i in ranked[: self._max_results] if scores[i] > 0]


def _words(text: str) -> list[str]:
    """The words of ``text`` a BM25 search compares: letters and digits, two or more,
    normalized (NFKC) and case-folded."""
    return re.findall(r"[^\W_]{2,}", unicodedata.normalize("NFKC", text).casefold())


__all__ = [
    "BM25SearchTransform",
    "BaseSearchTransform",
    "RegexSearchTransform",
    "SearchResultSerializer",
    "serialize_tools_for_output_json",
    "serialize_tools_for_output_markdown",
]

"""FastMCP's ``fastmcp.server.middleware.caching``: answers kept for a while and given
again to the same question."""

from __future__ import annotations

import hashlib
import json
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import pydantic_core
from typing_extensions import NotRequired, TypedDict

from ...tools import ToolResult
from .._middleware import LISTS, RESULTS, tool_result
from .middleware import CallNext, Middleware, MiddlewareContext

ONE_HOUR_IN_SECONDS = 3600
FIVE_MINUTES_IN_SECONDS = 300
ONE_MB_IN_BYTES = 1024 * 1024
#: How many answers are kept at most; past it the least recently used go first.
MAX_ENTRIES = 10_000


class SharedMethodSettings(TypedDict):
    """Whether a method's answers are kept (``enabled``, yes unless False), and how many
    seconds (``ttl``)."""

    ttl: NotRequired[int]
    enabled: NotRequired[bool]


class ListToolsSettings(SharedMethodSettings):
    """``tools/list``'s: five minutes unless said."""


class ListResourcesSettings(SharedMethodSettings):
    """``resources/list``'s: five minutes unless said."""


class ListPromptsSettings(SharedMethodSettings):
    """``prompts/list``'s: five minutes unless said."""


class ReadResourceSettings(SharedMethodSettings):
    """``resources/read``'s: an hour unless said."""


class GetPromptSettings(SharedMethodSettings):
    """``prompts/get``'s: an hour unless said."""


class CallToolSettings(SharedMethodSettings):
    """``tools/call``'s: an hour unless said; only the ``included_tools`` when given, never
    the ``excluded_tools``."""

    included_tools: NotRequired[list[str]]
    excluded_tools: NotRequired[list[str]]


@dataclass
class CountStatistics:
    """How many times an operation of the store was done."""

    count: int = 0


@dataclass
class HitMissStatistics(CountStatistics):
    """How many times a lookup of the store was done, found something (``hit``) or not."""

    hit: int = 0
    miss: int = 0

    def record(self, found: bool) -> None:
        """Counts one lookup, and whether it found something."""
        self.count += 1
        if found:
            self.hit += 1
        else:
            self.miss += 1


@dataclass
class CollectionStatistics:
    """What was done with one method's answers (the shape of py-key-value's
    ``KVStoreCollectionStatistics``: the middleware looks answers up and puts them)."""

    get: HitMissStatistics = field(default_factory=HitMissStatistics)
    ttl: HitMissStatistics = field(default_factory=HitMissStatistics)
    put: CountStatistics = field(default_factory=CountStatistics)
    delete: HitMissStatistics = field(default_factory=HitMissStatistics)
    exists: HitMissStatistics = field(default_factory=HitMissStatistics)


@dataclass
class ResponseCachingStatistics:
    """Each method's :class:`CollectionStatistics`, None until its answers were looked up."""

    list_tools: CollectionStatistics | None = None
    list_resources: CollectionStatistics | None = None
    list_prompts: CollectionStatistics | None = None
    read_resource: CollectionStatistics | None = None
    get_prompt: CollectionStatistics | None = None
    call_tool: CollectionStatistics | None = None


#: Each method's field of :class:`ResponseCachingStatistics`.
_STATISTICS_FIELDS = {
    "tools/list": "list_tools",
    "resources/list": "list_resources",
    "prompts/list": "list_prompts",
    "resources/read": "read_resource",
    "prompts/get": "get_prompt",
    "tools/call": "call_tool",
}


class ResponseCachingMiddleware(Middleware):
    """Answers a request from the answers kept for the same one: the same method, target
    and arguments, era, component version, and caller (answers are kept apart by access
    token, so that what one caller may see never reaches another; callers without one
    share theirs). Tool calls that failed, asked for input or became tasks, and the retries
    that bring input, are not kept. An answer larger than ``max_item_size`` bytes is not
    kept either.

    Answers are kept in memory, the least recently used going first past
    :data:`MAX_ENTRIES`, or in ``cache_storage``: a py-key-value store (``AsyncKeyValue``:
    Redis, disk, ...; its ``get`` and ``put`` with a ``collection``, the method, and a
    ``ttl``), which replicas may share. :meth:`statistics` counts the lookups and puts."""

    def __init__(
        self,
        cache_storage: Any = None,
        list_tools_settings: ListToolsSettings | None = None,
        list_resources_settings: ListResourcesSettings | None = None,
        list_prompts_settings: ListPromptsSettings | None = None,
        read_resource_settings: ReadResourceSettings | None = None,
        get_prompt_settings: GetPromptSettings | None = None,
        call_tool_settings: CallToolSettings | None = None,
        max_item_size: int = ONE_MB_IN_BYTES,
    ) -> None:
        if cache_storage is not None and not all(callable(getattr(cache_storage, op, None)) for op in ("get", "put")):
            raise TypeError(f"cache_storage must be a py-key-value store (AsyncKeyValue), not {cache_storage!r}")
        self.max_item_size = max_item_size
        self._settings: dict[str, SharedMethodSettings] = {
            "tools/list": list_tools_settings or {},
            "resources/list": list_resources_settings or {},
            "prompts/list": list_prompts_settings or {},
            "resources/read": read_resource_settings or {},
            "prompts/get": get_prompt_settings or {},
            "tools/call": call_tool_settings or {},
        }
        self._call_tool_settings: CallToolSettings = call_tool_settings or {}
        self._store: Any = _MemoryStore() if cache_storage is None else cache_storage
        self._statistics = ResponseCachingStatistics()

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        method = context.method or ""
        key = self._key(method, context)
        if key is None:
            return await call_next(context)
        counted = self._counted(method)
        kept = await self._store.get(key, collection=method)
        counted.get.record(found=kept is not None)
        if kept is not None:
            return _thawed(method, kept["answer"].encode())
        answer = await call_next(context)
        frozen = _frozen(method, answer)
        if frozen is not None:
            counted.put.count += 1
            if len(frozen) <= self.max_item_size:
                default = FIVE_MINUTES_IN_SECONDS if method.endswith("/list") else ONE_HOUR_IN_SECONDS
                ttl = self._settings[method].get("ttl", default)
                await self._store.put(key, {"answer": frozen.decode()}, collection=method, ttl=ttl)
        return answer

    def statistics(self) -> ResponseCachingStatistics:
        """What was done with each method's answers since the middleware was made."""
        return self._statistics

    def _counted(self, method: str) -> CollectionStatistics:
        name = _STATISTICS_FIELDS[method]
        counted: CollectionStatistics | None = getattr(self._statistics, name)
        if counted is None:
            counted = CollectionStatistics()
            setattr(self._statistics, name, counted)
        return counted

    def _key(self, method: str, context: MiddlewareContext[Any]) -> str | None:
        """What tells this request's answer from others', or None when it is not kept."""
        settings = self._settings.get(method)
        ctx = context.fastmcp_context
        if settings is None or settings.get("enabled") is False or ctx is None:
            return None
        if method == "tools/call" and not self._keeps_tool(context.message.name):
            return None
        # A retry that brings input answers a question: the answer is that round's.
        if ctx.input_responses is not None or ctx.request_state is not None:
            return None
        token = ctx.access_token
        caller = None if token is None else token.token
        # The `_meta` differs from request to request (a progress token): only the version
        # it names tells answers apart.
        message = dict(context.message.to_wire() if hasattr(context.message, "to_wire") else context.message or {})
        fastmcp = (message.pop("_meta", None) or {}).get("fastmcp")
        version = fastmcp.get("version") if isinstance(fastmcp, dict) else None
        question = json.dumps([method, ctx.era, caller, version, message], sort_keys=True, default=str)
        return hashlib.sha256(question.encode()).hexdigest()

    def _keeps_tool(self, name: str) -> bool:
        included = self._call_tool_settings.get("included_tools")
        excluded = self._call_tool_settings.get("excluded_tools") or []
        return (included is None or name in included) and name not in excluded


class _MemoryStore:
    """The answers kept in this process (py-key-value's ``get`` and ``put``), the least
    recently used going first past :data:`MAX_ENTRIES`."""

    def __init__(self) -> None:
        #: Each kept value by its collection and key: until when, and the value.
        self._kept: OrderedDict[tuple[str, str], tuple[float, dict[str, Any]]] = OrderedDict()

    async def get(self, key: str, *, collection: str) -> dict[str, Any] | None:
        kept = self._kept.get((collection, key))
        if kept is None:
            return None
        until, value = kept
        if until <= time.monotonic():
            del self._kept[(collection, key)]
            return None
        self._kept.move_to_end((collection, key))
        return value

    async def put(self, key: str, value: dict[str, Any], *, collection: str, ttl: float) -> None:
        self._kept[(collection, key)] = (time.monotonic() + ttl, value)
        self._kept.move_to_end((collection, key))
        while len(self._kept) > MAX_ENTRIES:
            self._kept.popitem(last=False)


def _frozen(method: str, answer: Any) -> bytes | None:
    """An answer as it is kept (JSON); None for one not to keep."""
    if method == "tools/call":
        if not isinstance(answer, ToolResult) or answer.is_error:
            return None
        return pydantic_core.to_json(answer.to_result().to_wire())
    if method in LISTS:
        return pydantic_core.to_json([item.to_wire() for item in answer])
    return pydantic_core.to_json(answer.to_wire())


def _thawed(method: str, frozen: bytes) -> Any:
    """A kept answer, made anew (what a hook does to it is not kept)."""
    wire = pydantic_core.from_json(frozen)
    if method == "tools/call":
        return tool_result(wire)
    if method in LISTS:
        _, item_type, _ = LISTS[method]
        return [item_type.model_validate(item) for item in wire]
    return RESULTS[method].model_validate(wire)


__all__ = [
    "CallToolSettings",
    "CollectionStatistics",
    "GetPromptSettings",
    "ListPromptsSettings",
    "ListResourcesSettings",
    "ListToolsSettings",
    "ReadResourceSettings",
    "ResponseCachingMiddleware",
    "ResponseCachingStatistics",
]

"""FastMCP's ``fastmcp.server.middleware.caching``: answers kept for a while and given
again to the same question."""

from __future__ import annotations

import hashlib
import json
import time
from collections import OrderedDict
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


class ResponseCachingMiddleware(Middleware):
    """Answers a request from the answers kept for the same one: the same method, target
    and arguments, era, component version, and caller (answers are kept apart by access
    token, so that what one caller may see never reaches another; callers without one
    share theirs). Tool calls that failed, asked for input or became tasks, and the retries
    that bring input, are not kept. An answer larger than ``max_item_size`` bytes is not
    kept either. Answers are kept in memory (``cache_storage`` must be None), the least
    recently used going first past :data:`MAX_ENTRIES`."""

    def __init__(
        self,
        cache_storage: None = None,
        list_tools_settings: ListToolsSettings | None = None,
        list_resources_settings: ListResourcesSettings | None = None,
        list_prompts_settings: ListPromptsSettings | None = None,
        read_resource_settings: ReadResourceSettings | None = None,
        get_prompt_settings: GetPromptSettings | None = None,
        call_tool_settings: CallToolSettings | None = None,
        max_item_size: int = ONE_MB_IN_BYTES,
    ) -> None:
        if cache_storage is not None:
            raise TypeError("oxmcp keeps the cache in memory: cache_storage is not supported")
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
        #: Each kept answer by its key: until when, and its JSON.
        self._kept: OrderedDict[str, tuple[float, bytes]] = OrderedDict()

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        method = context.method or ""
        key = self._key(method, context)
        if key is None:
            return await call_next(context)
        kept = self._get(key)
        if kept is not None:
            return _thawed(method, kept)
        answer = await call_next(context)
        frozen = _frozen(method, answer)
        if frozen is not None and len(frozen) <= self.max_item_size:
            default = FIVE_MINUTES_IN_SECONDS if method.endswith("/list") else ONE_HOUR_IN_SECONDS
            self._put(key, frozen, self._settings[method].get("ttl", default))
        return answer

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

    def _get(self, key: str) -> bytes | None:
        kept = self._kept.get(key)
        if kept is None:
            return None
        until, frozen = kept
        if until <= time.monotonic():
            del self._kept[key]
            return None
        self._kept.move_to_end(key)
        return frozen

    def _put(self, key: str, frozen: bytes, ttl: float) -> None:
        self._kept[key] = (time.monotonic() + ttl, frozen)
        self._kept.move_to_end(key)
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
    "GetPromptSettings",
    "ListPromptsSettings",
    "ListResourcesSettings",
    "ListToolsSettings",
    "ReadResourceSettings",
    "ResponseCachingMiddleware",
]

"""FastMCP's ``fastmcp.server.context``: the context a handler annotating it gets, oxmcp's
:class:`~oxmcp.Context` with FastMCP's logging methods and its state."""

from __future__ import annotations

import json
import math
import secrets
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

import pydantic_core
from typing_extensions import Unpack

from ..._errors import ResourceNotFoundError
from ...context import Context as OxmcpContext
from ...context import ElicitationResult, LogLevel, ReadResourceContents, _ElicitedForm
from ...types import GetPromptResult
from ..exceptions import NotFoundError

if TYPE_CHECKING:
    from ...server import Server
    from ...server._mounting import Kind
    from .server import FastMCP
    from .transforms.visibility import Criteria, Visibility

#: How long a value set with ``set_state`` is kept, as FastMCP keeps it (a day).
STATE_TTL_SECONDS = 86400
#: How many values are kept at most; past it the oldest go first.
MAX_STATE_ENTRIES = 100_000


#: Where a session keeps its visibility rules, as FastMCP keeps them: in its state.
_VISIBILITY_KEY = "_visibility_rules"
#: The list each kind of component is listed in.
_LIST_OF: dict[Kind, Literal["tools", "resources", "prompts"]] = {
    "tool": "tools",
    "resource": "resources",
    "template": "resources",
    "prompt": "prompts",
}


class _SessionState:
    """The values handlers set with ``set_state`` (and sessions), by key, as JSON text
    (what is read back is a copy, as FastMCP's store gives one), each until its TTL (a
    day unless told; None: until the oldest go, past the bound)."""

    def __init__(self) -> None:
        self._values: dict[str, tuple[float, str]] = {}

    async def get(self, key: str) -> Any:
        kept = self._values.get(key)
        if kept is None:
            return None
        until, text = kept
        if until <= time.monotonic():
            del self._values[key]
            return None
        return pydantic_core.from_json(text)

    async def put(self, key: str, value: Any, ttl: float | None = STATE_TTL_SECONDS) -> None:
        text = pydantic_core.to_json(value).decode()
        self._values.pop(key, None)
        if len(self._values) >= MAX_STATE_ENTRIES:
            now = time.monotonic()
            for expired in [k for k, (until, _) in self._values.items() if until <= now]:
                del self._values[expired]
            while len(self._values) >= MAX_STATE_ENTRIES:
                del self._values[next(iter(self._values))]
        self._values[key] = (math.inf if ttl is None else time.monotonic() + ttl, text)

    async def delete(self, key: str) -> None:
        self._values.pop(key, None)


class _StoredState:
    """The values handlers set with ``set_state``, in the key-value store the server was
    given (``FastMCP(session_state_store=...)``, py-key-value's ``AsyncKeyValue``: memory,
    Redis, disk...), as FastMCP keeps them there: ``{"value": ...}`` in the
    ``fastmcp_state`` collection, for a day."""

    def __init__(self, store: Any) -> None:
        self._store = store

    async def get(self, key: str) -> Any:
        kept = await self._store.get(key=key, collection=_STATE_COLLECTION)
        return None if kept is None else kept.get("value")

    async def put(self, key: str, value: Any, ttl: float | None = STATE_TTL_SECONDS) -> None:
        kept = {"value": pydantic_core.to_jsonable_python(value)}
        await self._store.put(key=key, value=kept, collection=_STATE_COLLECTION, ttl=ttl)

    async def delete(self, key: str) -> None:
        await self._store.delete(key=key, collection=_STATE_COLLECTION)


def state_of(server: Any) -> _SessionState | _StoredState:
    """Where ``server`` keeps state (``set_state``, sessions): the store a FastMCP server
    was given (``session_state_store``), else its own in this process (as FastMCP gives
    each server a memory store of its own)."""
    kept: _SessionState | _StoredState | None = getattr(server, "kept_state", None)
    return _STATE if kept is None else kept


def kept_state(store: Any) -> _SessionState | _StoredState:
    """What a FastMCP server given ``store`` (None: none) keeps its state in."""
    return _SessionState() if store is None else _StoredState(store)


#: The collection FastMCP keeps session state in.
_STATE_COLLECTION = "fastmcp_state"

#: The state kept by handlers of servers that keep none of their own (a FastMCP context
#: on a server that is no FastMCP): their keys are of random session ids.
_STATE = _SessionState()


#: The log levels, lowest first.
_LEVELS: tuple[LogLevel, ...] = get_args(LogLevel)


@dataclass
class _RequestScope:
    """What one request keeps apart: the state set for it alone, and the key its state is
    kept under when it has no session (made when first needed)."""

    state: dict[str, Any] = field(default_factory=dict)
    key: str | None = None


#: The scope of each request FastMCP's middleware runs around, by the core's request key,
#: while it runs: the middleware's context and the handler's share one.
_shared: dict[int, _RequestScope] = {}


@contextmanager
def shared_request_scope(native: Any) -> Iterator[None]:
    """While in it, the contexts made for the request of ``native`` share what the request
    keeps (state that middleware sets for the request is the handler's too)."""
    key = native.request_key
    _shared[key] = _RequestScope()
    try:
        yield
    finally:
        del _shared[key]


class Context(OxmcpContext[Any]):
    """oxmcp's :class:`~oxmcp.Context` (``elicit(message, response_type)``,
    ``report_progress``, ``read_resource``, ``sample``...), whose log messages are FastMCP's:
    ``info(message, logger_name=None, extra=None)`` sends ``{"msg": message, "extra":
    extra}``; ``set_state``/``get_state``/``delete_state`` keep values for the session (for
    the request only where requests stand alone: 2026-07-28 over HTTP)."""

    __slots__ = ("_request",)

    def __init__(self, native: Any, lifespan: Any = None, server: Server[Any] | None = None) -> None:
        super().__init__(native, lifespan, server)
        shared = _shared.get(native.request_key) if _shared else None
        self._request = shared or _RequestScope()

    def _state_key(self, key: str) -> str:
        """`key` within the session, or within this request when it has none."""
        session = self.session_id
        if session is None:
            if self._request.key is None:
                self._request.key = secrets.token_hex(16)
            session = self._request.key
        return f"{session}:{key}"

    async def set_state(self, key: str, value: Any, *, serializable: bool = True) -> None:
        """Keeps `value` under `key` for the session (a day at most), as JSON: read back, it
        is a copy. ``serializable=False`` keeps any object, for this request only."""
        state_key = self._state_key(key)
        if not serializable:
            self._request.state[state_key] = value
            return
        self._request.state.pop(state_key, None)
        try:
            await self._state().put(state_key, value)
        except pydantic_core.PydanticSerializationError as error:
            raise TypeError(
                f"Value for state key {key!r} is not serializable. Use set_state({key!r}, value, "
                "serializable=False) to store non-serializable values. Note: non-serializable "
                "state is request-scoped and will not persist across requests."
            ) from error

    async def get_state(self, key: str) -> Any:
        """The value kept under `key` (this request's first), or None."""
        state_key = self._state_key(key)
        if state_key in self._request.state:
            return self._request.state[state_key]
        return await self._state().get(state_key)

    async def delete_state(self, key: str) -> None:
        """Forgets `key`, for the request and the session."""
        state_key = self._state_key(key)
        self._request.state.pop(state_key, None)
        await self._state().delete(state_key)

    def _state(self) -> _SessionState | _StoredState:
        return state_of(getattr(self._server, "serving", None) or self._server)

    async def elicit(
        self,
        message: str,
        response_type: Any,
        response_title: str | None = None,
        response_description: str | None = None,
    ) -> ElicitationResult[Any]:
        """FastMCP's ``ctx.elicit(message, response_type)``: its second argument is the
        response type (oxmcp's is a schema), in any of FastMCP's forms (see
        :meth:`oxmcp.Context.elicit`)."""
        form = _ElicitedForm.of_response_type(response_type, response_title, response_description)
        return await self._elicit_form(message, form)

    async def read_resource(self, uri: str) -> list[ReadResourceContents]:
        """:meth:`oxmcp.Context.read_resource`; an unknown URI raises FastMCP's
        ``NotFoundError`` (``Unknown resource: '<uri>'``), which fails a tool as FastMCP's
        does (the tool's error, not the request's)."""
        try:
            return await super().read_resource(uri)
        except ResourceNotFoundError:
            raise NotFoundError(f"Unknown resource: {uri!r}") from None

    async def get_prompt(self, name: str, arguments: Mapping[str, Any] | None = None) -> GetPromptResult:
        """Renders a prompt of this server as a client would get it (its handler runs with
        this request's context), as FastMCP's ``ctx.get_prompt``: an argument that is not a
        string is given as its JSON. An unknown prompt, or one missing a required argument,
        raises :class:`~oxmcp.McpError` (invalid params)."""
        given = {
            key: value if isinstance(value, str) else json.dumps(value) for key, value in (arguments or {}).items()
        }
        return GetPromptResult.model_validate(await self._native.get_prompt(name, given))

    @property
    def fastmcp(self) -> FastMCP:
        """The FastMCP server the request is served by."""
        from .server import FastMCP

        if not isinstance(self._server, FastMCP):
            raise RuntimeError("this context's request is not served by a FastMCP server")
        return self._server.serving or self._server

    async def enable_components(self, *, match_all: bool = False, **criteria: Unpack[Criteria]) -> None:
        """Shows what matches every criterion given to this session, over the server's
        rules (``mcp.disable``); rules add up, the last that matches deciding. The lists
        it is in are announced as changed."""
        await self._add_visibility(True, match_all, criteria)

    async def disable_components(self, *, match_all: bool = False, **criteria: Unpack[Criteria]) -> None:
        """Hides what matches every criterion given from this session, as
        :meth:`enable_components` shows it."""
        await self._add_visibility(False, match_all, criteria)

    async def reset_visibility(self) -> None:
        """Drops this session's visibility rules: the server's alone apply again."""
        await self._save_visibility([], None)

    async def visibility_rules(self) -> list[Visibility]:
        """The visibility rules of this request, in order: the server's, then its session's
        (looked up only once some session of the server has rules of its own)."""
        from .transforms.visibility import Visibility

        server = self.fastmcp
        if not server._session_rules:
            return server.visibility
        rules = await self.get_state(_VISIBILITY_KEY)
        return [*server.visibility, *(Visibility.from_rule(rule) for rule in rules or ())]

    async def _add_visibility(self, enabled: bool, match_all: bool, criteria: Criteria) -> None:
        # Imported here: the transforms' tools import this module.
        from .transforms.visibility import Visibility

        rule = Visibility(enabled, match_all=match_all, **criteria)
        rules = await self.get_state(_VISIBILITY_KEY) or []
        await self._save_visibility([*rules, rule.to_rule()], rule.components)

    async def _save_visibility(self, rules: list[dict[str, Any]], components: Iterable[Kind] | None) -> None:
        server = self.fastmcp
        await self.set_state(_VISIBILITY_KEY, rules)
        server._session_rules = True
        server._intercept()
        for listed in sorted({_LIST_OF[kind] for kind in components or _LIST_OF}):
            await self.notify_session_list_changed(listed)

    @property
    def transport(self) -> Literal["stdio", "sse", "streamable-http"] | None:  # type: ignore[override]
        """How the server is served, in FastMCP's words: ``"stdio"``, ``"sse"`` or
        ``"streamable-http"``; None for a client in this process."""
        carried = super().transport
        if carried == "memory" or carried == "other":
            return None
        return carried

    async def send_notification(self, notification: Any) -> None:
        """Sends ``notification``, the official SDK's model of it, as FastMCP's: a list
        change to this session's client (every client in 2026-07-28, where a session is a
        request), a log message, progress or a resource's update
        (:meth:`oxmcp.context.Session.send_notification`)."""
        await self.session.send_notification(notification)

    # FastMCP's logging methods take the message first and name their arguments its way.
    async def log(  # type: ignore[override]
        self,
        message: str,
        level: LogLevel | None = None,
        logger_name: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """Sends a log message at `level` (default info), unless the server's
        ``client_log_level`` is above it."""
        level = level or "info"
        lowest = getattr(self._server, "client_log_level", None)
        if lowest is not None and _LEVELS.index(level) < _LEVELS.index(lowest):
            return
        await super().log(level, {"msg": message, "extra": extra}, logger_name)

    async def debug(self, message: str, logger_name: str | None = None, extra: Mapping[str, Any] | None = None) -> None:
        """A debug message."""
        await self.log(message, "debug", logger_name, extra)

    async def info(self, message: str, logger_name: str | None = None, extra: Mapping[str, Any] | None = None) -> None:
        """An info message."""
        await self.log(message, "info", logger_name, extra)

    async def warning(
        self, message: str, logger_name: str | None = None, extra: Mapping[str, Any] | None = None
    ) -> None:
        """A warning."""
        await self.log(message, "warning", logger_name, extra)

    async def error(self, message: str, logger_name: str | None = None, extra: Mapping[str, Any] | None = None) -> None:
        """An error."""
        await self.log(message, "error", logger_name, extra)


__all__ = ["Context"]

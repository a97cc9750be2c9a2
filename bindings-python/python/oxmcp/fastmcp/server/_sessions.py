"""The state a server keeps across the calls of one caller, as FastMCP's sessions keep it
(:mod:`oxmcp.fastmcp.server.sessions` is the public module; this one holds what the
conventions need to inject a ``session: UserSession`` without importing the providers).

A session's state is one JSON object under one key of the server's state store
(``FastMCP(session_state_store=...)``, else this process), as FastMCP keeps it:
``session:<SHA-256 of the caller>:<id>`` (``anon`` in place of the hash when the request
carries no token), its values under ``state`` and, for a session ``create_session`` made,
the time it was made under ``_created``; no TTL of its own (the store's retention is)."""

from __future__ import annotations

import hashlib
import inspect
import json
import time
from collections.abc import Callable
from types import UnionType
from typing import Annotated, Any, Final, Union, cast, get_args, get_origin

from uncalled_for import Provider

from .._wrapping import wrapped
from ..exceptions import FastMCPError
from .context import state_of
from .dependencies import get_access_token, get_server

#: The description a ``SessionId`` parameter is listed with (FastMCP's words: agents read it).
SESSION_ID_DESCRIPTION: Final[str] = (
    "Session identifier. Use a tool to create a session, then pass the resulting "
    "id here to persist state across calls in the same session."
)
#: Where a session's values are, within what is stored under its key.
_VALUES: Final[str] = "state"
#: What says ``create_session`` made the session (a caller's own bucket has none).
_CREATED: Final[str] = "_created"
#: The id of a caller's own bucket (``UserSession``); ``create_session``'s ids are UUIDs.
_CALLERS_OWN: Final[str] = "_user"


class SessionAuthError(FastMCPError):
    """A ``session: UserSession`` was asked for on a request that carries no token."""

    def __init__(
        self,
        message: str = (
            "Injected `session: UserSession` requires an authenticated principal, "
            "but this request is unauthenticated. Use a `session_id: SessionId` "
            "argument for cross-call state on unauthenticated connections."
        ),
    ) -> None:
        super().__init__(message)


class InvalidSession(FastMCPError):
    """A session id that no ``create_session`` of this caller made (or one ended): the
    same words whether it was never made or is another caller's."""

    def __init__(self, message: str = "Invalid or unknown session.") -> None:
        super().__init__(message)


def current_principal() -> str | None:
    """The caller of the request whose handler runs, as FastMCP names one: its token's
    client id, issuer and subject, as compact JSON; None without a token."""
    token = get_access_token()
    if token is None:
        return None
    issuer = token.claims.get("iss")
    principal = [token.client_id, None if issuer is None else str(issuer), token.subject]
    return json.dumps(principal, separators=(",", ":"))


def session_storage_key(principal: str | None, session_id: str) -> str:
    """The key a session's state is stored under: the caller's hash (of fixed length,
    with no ``:`` of its own) walls callers off from each other, the id orders a
    caller's sessions."""
    caller = "anon" if principal is None else hashlib.sha256(principal.encode("utf-8", "surrogatepass")).hexdigest()
    return f"session:{caller}:{session_id}"


class Session:
    """One session's values: ``await get(key, default)``, ``set(key, value)`` (JSON
    values), ``delete(key)``, ``clear()`` (the session stays), ``end()`` (it is gone).
    ``id`` is the id ``create_session`` gave, None for a caller's own bucket."""

    def __init__(self, *, store: Any, principal: str | None, session_id: str, public_id: str | None = None) -> None:
        self._store = store
        self._key = session_storage_key(principal, session_id)
        self._public_id = public_id

    @property
    def id(self) -> str | None:
        """The id ``create_session`` gave; None for an injected ``UserSession``."""
        return self._public_id

    async def _stored(self) -> dict[str, Any] | None:
        stored = await self._store.get(self._key)
        return dict(stored) if isinstance(stored, dict) else None

    async def _store_values(self, stored: dict[str, Any], values: dict[str, Any]) -> None:
        await self._store.put(self._key, {**stored, _VALUES: values}, ttl=None)

    @staticmethod
    def _values_of(stored: dict[str, Any] | None) -> dict[str, Any]:
        values = None if stored is None else stored.get(_VALUES)
        return dict(values) if isinstance(values, dict) else {}

    async def _exists(self) -> bool:
        """Whether ``create_session`` made this session (and it was not ended)."""
        stored = await self._stored()
        return stored is not None and _CREATED in stored

    async def _create(self) -> None:
        stored = await self._stored() or {}
        await self._store_values({**stored, _CREATED: time.time()}, self._values_of(stored))

    async def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default``."""
        return self._values_of(await self._stored()).get(key, default)

    async def set(self, key: str, value: Any) -> None:
        """Keeps ``value`` (JSON) under ``key``."""
        stored = await self._stored() or {}
        await self._store_values(stored, {**self._values_of(stored), key: value})

    async def delete(self, key: str) -> None:
        """Forgets ``key``."""
        stored = await self._stored()
        values = self._values_of(stored)
        if stored is not None and key in values:
            del values[key]
            await self._store_values(stored, values)

    async def clear(self) -> None:
        """Forgets every value; the session stays (its id still resolves)."""
        stored = await self._stored()
        if stored is not None:
            await self._store_values(stored, {})

    async def end(self) -> None:
        """Ends the session: its id no longer resolves."""
        await self._store.delete(self._key)


class UserSession(Session):
    """The caller's own session, injected into a ``session: UserSession`` parameter (left
    out of the schema); a request without a token gets :class:`SessionAuthError`
    (``UserSession | None``: None)."""


class _SessionIdMarker:
    """Marks a ``SessionId`` parameter."""


#: An argument naming a session ``create_session`` made: text, listed with
#: :data:`SESSION_ID_DESCRIPTION`; ``await get_session(session_id)`` resolves it.
SessionId = Annotated[str, _SessionIdMarker()]


def is_session_id(annotation: Any) -> bool:
    """Whether a parameter's annotation is :data:`SessionId`."""
    return get_origin(annotation) is Annotated and any(
        isinstance(extra, _SessionIdMarker) for extra in get_args(annotation)[1:]
    )


def named_session(session_id: str) -> Session:
    """The caller's session ``session_id`` names, on the server whose handler runs (made
    or not: ``get_session`` checks)."""
    return Session(
        store=state_of(get_server()), principal=current_principal(), session_id=session_id, public_id=session_id
    )


def callers_session() -> UserSession | None:
    """The caller's own session on the server whose handler runs; None without a token."""
    principal = current_principal()
    if principal is None:
        return None
    return UserSession(store=state_of(get_server()), principal=principal, session_id=_CALLERS_OWN)


class _CurrentSession(Provider[Session]):
    async def __aenter__(self) -> Session:
        session = callers_session()
        if session is None:
            raise SessionAuthError
        return session


class _OptionalCurrentSession(Provider["Session | None"]):
    async def __aenter__(self) -> Session | None:
        return callers_session()


def CurrentSession() -> Session:
    """The caller's own session, as a parameter's default (what ``session: UserSession``
    stands for)."""
    return cast(Session, _CurrentSession())


def OptionalCurrentSession() -> Session | None:
    """The caller's own session, or None without a token, as a parameter's default."""
    return cast("Session | None", _OptionalCurrentSession())


def with_sessions_injected(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with each ``UserSession`` parameter (or ``UserSession | None``, whose None
    default is taken as FastMCP takes it) given the caller's session as its default, for
    the dependency injection to resolve; ``fn`` itself when it has none."""
    try:
        signature = inspect.signature(fn, eval_str=True)
    except (NameError, TypeError, ValueError):
        return fn
    defaults = {
        name: default
        for name, parameter in signature.parameters.items()
        if parameter.default in (inspect.Parameter.empty, None)
        and (default := _session_default(parameter.annotation)) is not None
    }
    if not defaults:
        return fn
    injected = wrapped(fn)
    injected.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[
            parameter.replace(default=defaults[name]) if name in defaults else parameter
            for name, parameter in signature.parameters.items()
        ]
    )
    return injected


def _session_default(annotation: Any) -> Any:
    """The default a parameter annotated so is injected with, if it is a session."""
    if annotation is UserSession:
        return CurrentSession()
    if get_origin(annotation) in (Union, UnionType):
        present = [arg for arg in get_args(annotation) if arg is not type(None)]
        if present == [UserSession] and len(get_args(annotation)) == 2:
            return OptionalCurrentSession()
    return None

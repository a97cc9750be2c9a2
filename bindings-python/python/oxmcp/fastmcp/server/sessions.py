"""FastMCP's ``fastmcp.server.sessions``: state a server keeps across calls, for clients
whose requests stand alone (2026-07-28) as for any other.

- ``session: UserSession``: the caller's own session, injected (the request must carry a
  token: the caller is who it names).
- ``session_id: SessionId``: an argument naming one of the caller's sessions, made by the
  ``create_session`` tool of a :class:`SessionProvider` (``mcp.add_provider(...)``) and
  resolved with ``await get_session(session_id)`` (:mod:`oxmcp.fastmcp.server.dependencies`);
  ``end_session`` ends one.

Sessions are kept by caller: one caller's ids do not resolve for another. Without a token
every caller is the same one, and a session id is a bearer's handle: whoever has it reads
and writes the session (the ids are random UUIDs). See
:mod:`oxmcp.fastmcp.server._sessions` for how they are stored."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from ..tools.base import Tool
from ._sessions import (
    SESSION_ID_DESCRIPTION,
    CurrentSession,
    InvalidSession,
    OptionalCurrentSession,
    Session,
    SessionAuthError,
    SessionId,
    UserSession,
    current_principal,
    named_session,
    session_storage_key,
)
from .dependencies import get_session
from .providers.base import Provider


async def create_session() -> str:
    """Creates a session of the caller's and gives its id: pass it as the `session_id`
    of later calls to keep state across them."""
    session_id = str(uuid.uuid4())
    await named_session(session_id)._create()
    return session_id


async def end_session(session_id: SessionId) -> str:
    """Ends a session of the caller's: its state is gone and its id no longer resolves."""
    session = await get_session(session_id)
    await session.end()
    return "session ended"


class SessionProvider(Provider):
    """Serves the ``create_session`` and ``end_session`` tools, for a server whose tools
    take a ``session_id: SessionId`` (without it no id is made, so none resolves)."""

    def __init__(self) -> None:
        super().__init__()
        self._tools = [Tool.from_function(create_session), Tool.from_function(end_session)]

    async def _list_tools(self) -> Sequence[Tool]:
        return self._tools


__all__ = [
    "SESSION_ID_DESCRIPTION",
    "CurrentSession",
    "InvalidSession",
    "OptionalCurrentSession",
    "Session",
    "SessionAuthError",
    "SessionId",
    "SessionProvider",
    "UserSession",
    "create_session",
    "current_principal",
    "end_session",
    "session_storage_key",
]

"""The official SDK's ``mcp.server.context``: the context a low-level server's handlers
and middleware get, and the types of a middleware (``server.middleware``), under the
names those servers import."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from ..context import ServerRequestContext

#: What a request handler or a middleware may return: a model, a dict, or None (``{}``).
HandlerResult = BaseModel | dict[str, Any] | None
#: What a middleware awaits to run the rest of the chain, then the request's handler.
CallNext = Callable[[ServerRequestContext[Any]], Awaitable[HandlerResult]]

__all__ = ["CallNext", "HandlerResult", "ServerRequestContext"]

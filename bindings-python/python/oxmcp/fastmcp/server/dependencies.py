"""FastMCP's ``fastmcp.server.dependencies``: what a handler reads of its request without
a ``ctx`` parameter, called (``get_context()``, ``get_access_token()``) or injected as a
parameter's default (``ctx: Context = CurrentContext()``, resolved at each call by
``uncalled_for``, the dependency injection FastMCP uses, and left out of the schema)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from uncalled_for import FailedDependency, Provider, without_dependencies

from ... import auth
from ..._errors import ToolError
from ...context import HttpRequest
from ...server._calling import native_context, running
from ...server.auth.provider import AccessToken
from .._wrapping import wrapped
from ..exceptions import FastMCPError
from .auth.auth import fastmcp_token
from .context import Context

if TYPE_CHECKING:
    from ._sessions import Session
    from .server import FastMCP


def get_context() -> Context:
    """The context of the request whose handler runs, as a ``ctx: Context`` parameter
    gets it; ``RuntimeError`` outside a handler."""
    request = running.get()
    if request is None or request.make_context is None:
        raise RuntimeError("No active context found.")
    context: Context = request.make_context(Context, request.native)
    return context


def get_server() -> FastMCP:
    """The server whose handler runs; ``RuntimeError`` outside a handler."""
    return get_context().fastmcp


#: What ``get_http_headers()`` leaves out unless told to: what describes the connection or
#: the body rather than the caller, and credentials, which must not be forwarded as they
#: are (FastMCP's list).
_LEFT_OUT = frozenset(
    {
        "host",
        "content-length",
        "content-type",
        "connection",
        "transfer-encoding",
        "upgrade",
        "te",
        "keep-alive",
        "expect",
        "accept",
        "authorization",
        "cookie",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "mcp-session-id",
    }
)


def get_http_request() -> HttpRequest:
    """The HTTP request that carried the request whose handler runs (its ``headers``,
    ``url``, ``client``, ``query_params`` and ``cookies``, as Starlette's ``Request`` names
    them); ``RuntimeError`` outside a handler or over stdio."""
    request = get_context().request_context.request
    if request is None:
        raise RuntimeError("No active HTTP request found.")
    return request


def get_http_headers(include_all: bool = False, include: set[str] | None = None) -> dict[str, str]:
    """The headers of the HTTP request whose handler runs, by lowercase name; empty outside
    one. Unless ``include_all``, what describes the connection and credentials
    (``authorization``, ``cookie``...) are left out, but for the names in ``include``."""
    context = native_context()
    headers = None if context is None else context.http_headers
    left_out = set() if include_all else _LEFT_OUT - {name.lower() for name in include or ()}
    return {name: value for name, value in (headers or {}).items() if name not in left_out}


def get_access_token() -> AccessToken | None:
    """The verified token of the request whose handler runs (FastMCP's ``AccessToken``:
    ``token``, ``client_id``, ``scopes``, ``expires_at``, ``resource``, ``claims``), or
    None: outside a handler, over stdio, or on a server without ``auth``."""
    context = native_context()
    fields = None if context is None else context.access_token
    return None if fields is None else fastmcp_token(auth.AccessToken(**fields))


async def get_session(session_id: str) -> Session:
    """The session ``session_id`` names, made by ``create_session`` for the caller of the
    request whose handler runs (:mod:`oxmcp.fastmcp.server.sessions`); ``InvalidSession``
    when there is none (never made, ended, or another caller's: the same words for each)."""
    from ._sessions import InvalidSession, named_session

    session = named_session(session_id)
    if not await session._exists():
        raise InvalidSession
    return session


class _CurrentContext(Provider[Context]):
    async def __aenter__(self) -> Context:
        return get_context()


class _OptionalCurrentContext(Provider["Context | None"]):
    async def __aenter__(self) -> Context | None:
        try:
            return get_context()
        except RuntimeError:
            return None


class _CurrentFastMCP(Provider["FastMCP"]):
    async def __aenter__(self) -> FastMCP:
        return get_server()


class _CurrentAccessToken(Provider[AccessToken]):
    async def __aenter__(self) -> AccessToken:
        token = get_access_token()
        if token is None:
            raise RuntimeError(
                "No access token found. Ensure authentication is configured and the request is authenticated."
            )
        return token


class _CurrentHeaders(Provider[dict[str, str]]):
    async def __aenter__(self) -> dict[str, str]:
        # Credentials too: this gives the headers to the handler, not to what it forwards.
        return get_http_headers(include={"authorization", "cookie"})


class _CurrentRequest(Provider[HttpRequest]):
    async def __aenter__(self) -> HttpRequest:
        return get_http_request()


class _TokenClaim(Provider[str]):
    def __init__(self, name: str) -> None:
        self.name = name

    async def __aenter__(self) -> str:
        token = await _CurrentAccessToken().__aenter__()
        value = token.claims.get(self.name)
        if value is None:
            raise RuntimeError(f"Claim {self.name!r} not found in the access token.")
        return str(value)


class Progress(Provider["Progress"]):
    """The progress of the call, as a parameter's default (``progress: Progress =
    Progress()``), as FastMCP's: a count towards a total, with a message. Each increment
    is sent to the client as a progress notification (when it asked for them), and the
    message of a call that runs as a task is the task's status, which ``tasks/get``
    shows. Each call gets its own."""

    def __init__(self) -> None:
        self._context: Context | None = None
        self._current: int | None = None
        self._total = 1
        self._message: str | None = None

    async def __aenter__(self) -> Progress:
        progress = Progress()
        progress._context = get_context()
        return progress

    @property
    def current(self) -> int | None:
        """The count so far (None before the first increment)."""
        return self._current

    @property
    def total(self) -> int:
        """The count that completes the work (1 unless set)."""
        return self._total

    @property
    def message(self) -> str | None:
        """What the work is doing now."""
        return self._message

    async def set_total(self, total: int) -> None:
        """Sets the count that completes the work (at least 1)."""
        if total < 1:
            raise ValueError("Total must be at least 1")
        self._total = total

    async def increment(self, amount: int = 1) -> None:
        """Counts ``amount`` (at least 1) more done, and tells the client."""
        if amount < 1:
            raise ValueError("Amount must be at least 1")
        self._current = (self._current or 0) + amount
        await self._in_call().report_progress(self._current, self._total, self._message)

    async def set_message(self, message: str | None) -> None:
        """Says what the work is doing now: sent with the next increment, and the task's
        status at once when the call runs as a task."""
        self._message = message
        context = self._in_call()
        if message is not None and context.is_task:
            await context.task_status(message)

    def _in_call(self) -> Context:
        if self._context is None:
            raise RuntimeError("Progress must be used as a dependency: progress: Progress = Progress()")
        return self._context


# Typed as what they give, as FastMCP types them, so that `ctx: Context = CurrentContext()`
# type-checks; each is a dependency the call resolves.


def CurrentContext() -> Context:
    """The request's :class:`Context`, as a parameter's default."""
    return cast(Context, _CurrentContext())


def OptionalCurrentContext() -> Context | None:
    """The request's :class:`Context`, or None outside a request, as a parameter's default."""
    return cast("Context | None", _OptionalCurrentContext())


def CurrentFastMCP() -> FastMCP:
    """The server, as a parameter's default."""
    return cast("FastMCP", _CurrentFastMCP())


def CurrentAccessToken() -> AccessToken:
    """The request's verified token, as a parameter's default (the call fails without one)."""
    return cast(AccessToken, _CurrentAccessToken())


def CurrentHeaders() -> dict[str, str]:
    """The headers of the request's HTTP request as ``get_http_headers`` gives them, with
    ``authorization`` and ``cookie`` (empty over stdio), as a parameter's default."""
    return cast(dict[str, str], _CurrentHeaders())


def CurrentRequest() -> HttpRequest:
    """The request's HTTP request, as a parameter's default (the call fails without one)."""
    return cast(HttpRequest, _CurrentRequest())


def TokenClaim(name: str) -> str:
    """The claim ``name`` of the request's verified token, as text, as a parameter's default."""
    return cast(str, _TokenClaim(name))


def without_injected_parameters(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with its dependencies (parameters whose default is a dependency, or whose
    ``Annotated`` metadata provides one) resolved at each call and gone from its signature,
    the others' annotations evaluated as the function's module reads them; ``fn`` itself
    when it has none."""
    if without_dependencies(fn) is fn:
        return fn
    wrapper = without_dependencies(_refusing_failed_dependencies(fn))
    try:
        evaluated = inspect.signature(fn, eval_str=True)
    except NameError:
        evaluated = inspect.signature(fn)
    shown: inspect.Signature = wrapper.__signature__  # type: ignore[attr-defined]
    wrapper.__signature__ = shown.replace(  # type: ignore[attr-defined]
        parameters=[evaluated.parameters.get(p.name, p) for p in shown.parameters.values()],
        return_annotation=evaluated.return_annotation,
    )
    return wrapper


def _refusing_failed_dependencies(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (its signature kept), failing as FastMCP's handlers fail when a dependency of
    theirs could not be resolved (``TokenClaim`` without a token): FastMCP's own errors as
    they are, any other naming the parameter."""

    def refuse_failed(kwargs: dict[str, Any]) -> None:
        for name, value in kwargs.items():
            if isinstance(value, FailedDependency):
                if isinstance(value.error, ToolError | FastMCPError):
                    raise value.error
                raise RuntimeError(f"Failed to resolve dependency {name!r} for {fn.__name__}") from value.error

    return wrapped(fn, before=refuse_failed)


__all__ = [
    "CurrentAccessToken",
    "CurrentContext",
    "CurrentFastMCP",
    "CurrentHeaders",
    "CurrentRequest",
    "OptionalCurrentContext",
    "Progress",
    "TokenClaim",
    "get_access_token",
    "get_context",
    "get_http_headers",
    "get_http_request",
    "get_server",
    "get_session",
    "without_injected_parameters",
]

"""The per-request context a handler receives when it declares a parameter of type
:class:`Context`."""

from __future__ import annotations

import base64
import enum
import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, NoReturn, get_args, get_origin, overload
from urllib.parse import SplitResult, parse_qsl, urlsplit

from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import TypeVar

from . import _native
from ._official import official_input_responses, to_official
from .auth import AccessToken
from .types import (
    ContentBlock,
    CreateMessageResult,
    ElicitResult,
    ListRootsResult,
    LoggingLevel,
    Root,
    SamplingMessage,
    Tool,
)

if TYPE_CHECKING:
    from .server import Server

LogLevel = LoggingLevel
Data = TypeVar("Data")
LifespanT = TypeVar("LifespanT", default=Any)
#: The official SDK's second parameter of a context (its request's type), taken so that
#: handlers annotated ``Context[AppState, Any]`` run; oxmcp's requests are of one type.
RequestT = TypeVar("RequestT", default=Any)


@functools.cache
def _content_block() -> TypeAdapter[Any]:
    """Reads a content block as its model; built on first use, not at import (it builds
    the schemas of every content type)."""
    return TypeAdapter(ContentBlock)


class Headers(Mapping[str, str]):
    """An HTTP request's headers, looked up by name whatever its case (``x-api-key`` is
    ``X-API-Key``); a repeated header's values are joined with ", "."""

    __slots__ = ("_headers",)

    def __init__(self, headers: Mapping[str, str]) -> None:
        self._headers = {name.lower(): value for name, value in headers.items()}

    def __getitem__(self, name: str) -> str:
        return self._headers[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._headers)

    def __len__(self) -> int:
        return len(self._headers)

    def __repr__(self) -> str:
        return f"Headers({self._headers!r})"


class Address(NamedTuple):
    """Where an HTTP request came from (Starlette's ``request.client``)."""

    host: str
    port: int


class URL(str):
    """An HTTP request's URL: the text, with its parts as Starlette's ``request.url``
    names them."""

    __slots__ = ()

    @property
    def _parts(self) -> SplitResult:
        return urlsplit(self)

    @property
    def scheme(self) -> str:
        return self._parts.scheme

    @property
    def netloc(self) -> str:
        return self._parts.netloc

    @property
    def hostname(self) -> str | None:
        return self._parts.hostname

    @property
    def port(self) -> int | None:
        return self._parts.port

    @property
    def path(self) -> str:
        return self._parts.path

    @property
    def query(self) -> str:
        return self._parts.query


@dataclass(frozen=True)
class HttpRequest:
    """The HTTP POST that carried an MCP request, as handlers read it (the official SDK's
    ``ctx.request_context.request``, FastMCP's ``get_http_request()``): what Starlette's
    ``Request`` tells of it, less its body (the MCP message itself)."""

    headers: Headers
    url: URL
    """The URL the client posted to, as the ``Host`` header names the server (``http``:
    a proxy that ended TLS in front of the server is not taken at its word)."""
    client: Address | None = None
    """The peer's address: the client's, or that of the proxy in front of the server."""
    method: str = "POST"

    @property
    def query_params(self) -> dict[str, str]:
        """The query's parameters (the last value of a repeated one)."""
        return dict(parse_qsl(self.url.query, keep_blank_values=True))

    @property
    def cookies(self) -> dict[str, str]:
        """The cookies the ``Cookie`` header sends."""
        jar = SimpleCookie()
        jar.load(self.headers.get("cookie", ""))
        return {name: morsel.value for name, morsel in jar.items()}


@dataclass(frozen=True)
class RequestContext(Generic[LifespanT]):
    """The request as the official SDK's ``ctx.request_context`` shows it."""

    request_id: int | str | None
    lifespan_context: LifespanT
    """What the server's ``lifespan`` yielded (``None`` without one)."""
    request: HttpRequest | None = None
    """The HTTP request that carried it (None over stdio and in process)."""
    meta: dict[str, Any] | None = None
    """The request's ``_meta``, as sent."""
    session: Session | None = None
    """The session the request came on, as the official SDK shows it."""
    protocol_version: str | None = None
    """The protocol version the request was made in."""


@dataclass(frozen=True)
class ElicitationResult(Generic[Data]):
    """What the user did with an elicitation: ``action`` is ``"accept"`` (then ``data``
    holds the answer), ``"decline"`` or ``"cancel"``."""

    action: Literal["accept", "decline", "cancel"]
    data: Data | None = None

    @property
    def accepted(self) -> bool:
        """Whether the user accepted and answered."""
        return self.action == "accept"


@dataclass(frozen=True)
class AcceptedElicitation(ElicitationResult[Data]):
    """The user accepted: ``data`` holds the answer (None for a URL's)."""

    action: Literal["accept", "decline", "cancel"] = "accept"


@dataclass(frozen=True)
class DeclinedElicitation(ElicitationResult[None]):
    """The user declined to answer."""

    action: Literal["accept", "decline", "cancel"] = "decline"


@dataclass(frozen=True)
class CancelledElicitation(ElicitationResult[None]):
    """The user dismissed the question."""

    action: Literal["accept", "decline", "cancel"] = "cancel"


def _elicited(action: str, data: Any = None) -> ElicitationResult[Any]:
    """What the user did, as the class of it (for ``isinstance`` and ``match``)."""
    if action == "accept":
        return AcceptedElicitation(data=data)
    return DeclinedElicitation() if action == "decline" else CancelledElicitation()


class Context(Generic[LifespanT, RequestT]):
    """What a handler knows about its request, and how it talks back to the client.

    Declare a parameter annotated ``Context`` in a tool, resource or prompt function to
    receive it. Progress, log messages and cancellation work in both protocol eras; so
    do :meth:`elicit`, :meth:`sample` and :meth:`list_roots`, which ask the client.
    When the client cancels the request, the handler's task is cancelled
    (``asyncio.CancelledError`` is raised at its current ``await``).
    """

    __slots__ = ("_lifespan", "_native", "_server")

    def __init__(self, native: _native.Context, lifespan: Any = None, server: Server[Any] | None = None) -> None:
        self._native = native
        self._lifespan = lifespan
        self._server = server

    @property
    def session(self) -> Session:
        """The official SDK's ``ctx.session``, for handlers written for it:
        ``create_message`` asks the client's model (as :meth:`sample` does)."""
        return Session(self)

    @property
    def lifespan_context(self) -> LifespanT:
        """What the server's ``lifespan`` yielded (``None`` without one)."""
        lifespan: LifespanT = self._lifespan
        return lifespan

    @property
    def request_context(self) -> RequestContext[LifespanT]:
        """The request id, what the server's ``lifespan`` yielded and the HTTP request, as
        the official SDK shows them (``ctx.request_context.lifespan_context``,
        ``ctx.request_context.request.headers``)."""
        return RequestContext(
            self._native.request_id,
            self._lifespan,
            self.http_request,
            self._native.meta,
            self.session,
            self._native.protocol_version,
        )

    @property
    def http_request(self) -> HttpRequest | None:
        """The HTTP POST that carried the request (its headers, URL and client address);
        None over stdio and in process."""
        target = self._native.http_target
        headers = self.headers
        if target is None or headers is None:
            return None
        path, peer = target
        url = URL(f"http://{headers.get('host', 'localhost')}{path}")
        return HttpRequest(headers, url, None if peer is None else Address(*peer))

    @property
    def request_id(self) -> int | str | None:
        """The JSON-RPC id of the request; None in a notification's handler."""
        return self._native.request_id

    @property
    def headers(self) -> Headers | None:
        """The headers of the HTTP request that carried the request (an API key, a tenant,
        a trace id to read or forward; never proof of who the caller is), as the official
        SDK's ``ctx.headers``; None over stdio and in process."""
        headers = self._native.http_headers
        return None if headers is None else Headers(headers)

    @property
    def session_id(self) -> str | None:
        """The session the request belongs to: a legacy HTTP session's ``Mcp-Session-Id``,
        or an id that stays the same over a stdio connection; None where each request
        stands alone (2026-07-28 over HTTP, a stateless endpoint)."""
        return self._native.session_id

    @property
    def transport(self) -> Literal["stdio", "streamable-http", "sse", "memory", "other"]:
        """What carries the request: ``"stdio"``, ``"streamable-http"``, ``"sse"`` (the
        2024-11-05 revision's HTTP), ``"memory"`` (a client in this process) or ``"other"``."""
        return self._native.transport

    @property
    def client_id(self) -> str | None:
        """The ``client_id`` the request's ``_meta`` gives, as the official SDK reads it."""
        client_id = (self.meta or {}).get("client_id")
        return client_id if isinstance(client_id, str) else None

    @property
    def protocol_version(self) -> str:
        """The protocol version of the request, e.g. ``"2025-11-25"``."""
        return self._native.protocol_version

    @property
    def era(self) -> Literal["legacy", "modern"]:
        """The protocol era of the request."""
        return self._native.era

    @property
    def client_info(self) -> dict[str, Any] | None:
        """Who the client says it is (``name``, ``version``, ...), when it said."""
        return self._native.client_info

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """What the client declared it can do."""
        return self._native.client_capabilities

    @property
    def access_token(self) -> AccessToken | None:
        """The caller's verified token, on a server with ``auth`` over HTTP; None
        otherwise (stdio carries no tokens)."""
        token = self._native.access_token
        return None if token is None else AccessToken(**token)

    @property
    def meta(self) -> dict[str, Any] | None:
        """The request's ``_meta``."""
        return self._native.meta

    @property
    def input_responses(self) -> dict[str, Any] | None:
        """The answers the client sent with this retry, by the keys of
        :meth:`input_required` (wire dicts; the official SDK's models on servers ported
        from it or from FastMCP); None on a first run."""
        responses = self._native.input_responses
        if responses is None or not self._official_models:
            return responses
        return official_input_responses(responses)

    @property
    def _official_models(self) -> bool:
        """Whether the server's handlers get the official SDK's models (a server ported
        from it or from FastMCP)."""
        return self._server is not None and self._server._conventions.official_models

    @property
    def request_state(self) -> str | None:
        """The ``state`` given to :meth:`input_required` last time, checked unaltered."""
        return self._native.request_state

    def input_required(self, requests: dict[str, dict[str, Any]], *, state: str | None = None) -> NoReturn:
        """Ends this run with an ``input_required`` result (2026-07-28, explicit multi
        round-trip style): ``requests`` maps keys to wire input requests such as
        ``{"method": "elicitation/create", "params": {...}}``; the client retries with
        :attr:`input_responses` under the same keys, and ``state`` comes back as
        :attr:`request_state` (sealed: the client cannot alter it). :meth:`elicit`,
        :meth:`sample` and :meth:`list_roots` do this for you; this is for handlers that
        name their requests and keep their own state."""
        raise self._native.input_required(requests, state)

    @property
    def is_cancelled(self) -> bool:
        """Whether the client cancelled the request."""
        return self._native.cancelled

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Reports progress; sent only when the client asked for it. Values must increase."""
        await self._native.progress(progress, total, message)

    report_progress = progress

    async def close_sse_stream(self) -> None:
        """Ends the SSE stream this request's messages go on while the request goes on
        (SEP-1699's polling): the client reconnects once the stream's ``retry`` has passed
        and resumes with ``Last-Event-ID``, missing nothing. Only a legacy-era POST's stream
        in an HTTP session ends; elsewhere nothing happens."""
        await self._native.close_stream()

    async def task_status(self, message: str) -> None:
        """Says what the task this call runs as is doing now (its status message, which
        ``tasks/get`` shows); a call that is not a task has no status to set."""
        await self._native.task_status(message)

    async def begin_task(self) -> None:
        """Where a tool declared with ``asks_before_task=True`` becomes a task: its
        questions so far were answered in place (2026-07-28 rounds); the task runs the
        function again with those answers, so keep what comes before free of side effects.
        Anywhere else it returns at once."""
        await self._native.begin_task()

    @property
    def is_task(self) -> bool:
        """Whether this call runs as a task (``@server.tool(task=...)``)."""
        return self._native.is_task

    def notify_list_changed(self, kind: Literal["tools", "resources", "prompts"]) -> None:
        """Tells every client that the list of ``kind`` changed: for lists the server
        computes (registering and removing tools, resources and prompts tells clients by
        itself)."""
        self._native.notify_list_changed(kind)

    async def notify_session_list_changed(self, kind: Literal["tools", "resources", "prompts"]) -> None:
        """Tells this request's client, and no other, that the list of ``kind`` changed:
        what this session is shown changed. In the 2026-07-28 era, which has no sessions,
        every client is told."""
        await self._native.notify_session_list_changed(kind)

    async def notify_tools_changed(self) -> None:
        """Tells every client the list of tools changed (the official SDK's name)."""
        self.notify_list_changed("tools")

    async def notify_prompts_changed(self) -> None:
        """Tells every client the list of prompts changed (the official SDK's name)."""
        self.notify_list_changed("prompts")

    async def notify_resources_changed(self) -> None:
        """Tells every client the list of resources changed (the official SDK's name)."""
        self.notify_list_changed("resources")

    async def notify_resource_updated(self, uri: str) -> None:
        """Tells the clients subscribed to ``uri`` that it changed."""
        if self._server is None:
            raise RuntimeError("only a server's handler can tell its clients a resource changed")
        self._server.notify_resource_updated(str(uri))

    async def log(self, level: LogLevel, data: Any, logger: str | None = None) -> None:
        """Sends a log message, if the client wants messages of this level."""
        await self._native.log(level, data, logger)

    async def debug(self, data: Any, logger: str | None = None) -> None:
        """Sends a debug log message."""
        await self.log("debug", data, logger)

    async def info(self, data: Any, logger: str | None = None) -> None:
        """Sends an info log message."""
        await self.log("info", data, logger)

    async def warning(self, data: Any, logger: str | None = None) -> None:
        """Sends a warning log message."""
        await self.log("warning", data, logger)

    async def error(self, data: Any, logger: str | None = None) -> None:
        """Sends an error log message."""
        await self.log("error", data, logger)

    @overload
    async def elicit(self, message: str, schema: type[Data]) -> ElicitationResult[Data]: ...

    @overload
    async def elicit(self, message: str, schema: dict[str, Any]) -> ElicitationResult[dict[str, Any]]: ...

    @overload
    async def elicit(
        self,
        message: str,
        *,
        response_type: type[Data],
        response_title: str | None = None,
        response_description: str | None = None,
    ) -> ElicitationResult[Data]: ...

    @overload
    async def elicit(
        self,
        message: str,
        *,
        response_type: list[Any] | dict[str, Any],
        response_title: str | None = None,
        response_description: str | None = None,
    ) -> ElicitationResult[Any]: ...

    async def elicit(
        self,
        message: str,
        schema: type[Any] | dict[str, Any] | None = None,
        *,
        response_type: Any = None,
        response_title: str | None = None,
        response_description: str | None = None,
    ) -> ElicitationResult[Any]:
        """Asks the client's user to fill in a form: ``schema`` is a pydantic model, a
        dataclass or a TypedDict (an accepted answer comes back as one), or a JSON Schema
        dict (the answer as a dict). As in FastMCP, ``response_type`` may also be one
        value, asked for as a form with one field ``value`` (titled ``response_title``,
        described by ``response_description``) and given back unwrapped: a ``str``,
        ``int``, ``float`` or ``bool``, a ``Literal`` or an ``Enum``, a list of strings to
        choose one from, ``list[...]`` of choices to pick several of, a dict of choices to
        their ``{"title": ...}``, or a list of one such dict (or of one list) to pick
        several of."""
        if schema is not None and response_type is not None:
            raise TypeError("elicit takes a schema or a response_type, not both")
        if schema is not None:
            return await self._elicit_form(message, _ElicitedForm.of_schema(schema))
        form = _ElicitedForm.of_response_type(response_type, response_title, response_description)
        return await self._elicit_form(message, form)

    async def _elicit_form(self, message: str, form: _ElicitedForm) -> ElicitationResult[Any]:
        """Asks the client's user to fill in ``form``; an accepted answer read as it says."""
        answer = await self._native.elicit({"mode": "form", "message": message, "requestedSchema": form.schema})
        content = answer.get("content")
        if answer["action"] != "accept" or content is None:
            return _elicited(answer["action"])
        return _elicited("accept", form.read(content))

    async def elicit_url(self, message: str, url: str, elicitation_id: str) -> ElicitationResult[None]:
        """Asks the client's user to complete something at `url` out of band (a sign-in, a
        payment): the result says whether they accepted, declined or cancelled."""
        params = {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}
        answer = await self._native.elicit(params)
        return _elicited(answer["action"])

    async def sample(
        self,
        messages: str | Sequence[SamplingMessage | dict[str, Any]],
        *,
        max_tokens: int = 512,
        system_prompt: str | None = None,
        temperature: float | None = None,
        stop_sequences: list[str] | None = None,
        model_preferences: dict[str, Any] | None = None,
        tools: Sequence[Tool | dict[str, Any]] | None = None,
        tool_choice: Literal["auto", "required", "none"] | None = None,
    ) -> CreateMessageResult:
        """Asks the client's model for a completion; a str is one user message. With
        ``tools`` (a client that declares sampling with tools) the model may answer with
        tool uses; the conversation then goes on with a user message of their results,
        and ``tool_choice`` says whether it must use one."""
        if isinstance(messages, str):
            messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
        params: dict[str, Any] = {
            "messages": [m.to_wire() if isinstance(m, SamplingMessage) else m for m in messages],
            "maxTokens": max_tokens,
        }
        optional = {
            "systemPrompt": system_prompt,
            "temperature": temperature,
            "stopSequences": stop_sequences,
            "modelPreferences": model_preferences,
            "tools": None if tools is None else [t.to_wire() if isinstance(t, Tool) else t for t in tools],
            "toolChoice": None if tool_choice is None else {"mode": tool_choice},
        }
        params.update({key: value for key, value in optional.items() if value is not None})
        return CreateMessageResult.model_validate(await self._native.sample(params))

    async def read_resource(self, uri: str) -> list[ReadResourceContents]:
        """Reads a resource of this server, as a client would get it (its handler runs with
        this request's context), as FastMCP's and the official SDK's ``ctx.read_resource``
        do: each of its contents as text or bytes. An unknown URI raises
        :class:`~oxmcp.McpError` (resource not found)."""
        answer = await self._native.read_resource(uri)
        return [
            ReadResourceContents(
                content=part["text"] if "text" in part else base64.b64decode(part.get("blob", "")),
                mime_type=part.get("mimeType"),
                uri=part["uri"],
            )
            for part in answer["contents"]
        ]

    async def list_roots(self) -> list[Root]:
        """The client's roots."""
        answer = await self._native.list_roots()
        return [Root.model_validate(root) for root in answer["roots"]]

    async def notify_elicitation_complete(self, elicitation_id: str) -> None:
        """Tells the client the user completed the URL-mode elicitation
        ``elicitation_id`` (``notifications/elicitation/complete``, 2025-11-25), so that
        it may retry what waited for it. It goes on the session, so it may come after the
        request that asked has ended (keep the context for it). Nothing is sent in
        2026-07-28, which has no such notification."""
        await self._native.notify_elicitation_complete(elicitation_id)


class ServerRequestContext(Context[LifespanT, RequestT]):
    """The context a low-level server's handlers get first (the official SDK's
    ``mcp.server.ServerRequestContext``): a :class:`Context`, under that name. The
    official SDK's middleware (``server.middleware``) gets one whose ``method`` and
    ``params`` (as sent) are the request's; a middleware that sets ``ctx.params`` before
    ``call_next(ctx)`` passes those on."""

    __slots__ = ("method", "params")

    def __init__(
        self,
        native: _native.Context,
        lifespan: Any = None,
        server: Server[Any] | None = None,
        method: str = "",
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(native, lifespan, server)
        self.method = method
        self.params = params


@dataclass(frozen=True)
class ReadResourceContents:
    """One of the contents :meth:`Context.read_resource` gives: text or bytes, its MIME
    type, and its URI."""

    content: str | bytes
    mime_type: str | None = None
    uri: str | None = None


#: The list each ``notifications/*/list_changed`` method says changed.
_LIST_CHANGED: dict[str, Literal["tools", "resources", "prompts"]] = {
    "notifications/tools/list_changed": "tools",
    "notifications/resources/list_changed": "resources",
    "notifications/prompts/list_changed": "prompts",
}


class Session:
    """What the official SDK's ``ctx.session`` offers that oxmcp serves: sampling, pings,
    and telling clients a list changed."""

    __slots__ = ("_context",)

    def __init__(self, context: Context[Any]) -> None:
        self._context = context

    async def create_message(
        self,
        messages: Sequence[BaseModel | dict[str, Any]],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        temperature: float | None = None,
        stop_sequences: list[str] | None = None,
        model_preferences: BaseModel | dict[str, Any] | None = None,
    ) -> CreateMessageResult:
        """Asks the client's model for a completion: :meth:`Context.sample`, with messages
        and preferences of either SDK's types; a single content block of the answer is a
        model (``result.content.text``), as the official SDK gives it."""
        result = await self._context.sample(
            [_wire(message) for message in messages],
            max_tokens=max_tokens,
            system_prompt=system_prompt,
            temperature=temperature,
            stop_sequences=stop_sequences,
            model_preferences=None if model_preferences is None else _wire(model_preferences),
        )
        try:
            result = result.model_copy(update={"content": _content_block().validate_python(result.content)})
        except ValidationError:
            pass
        return to_official(result)

    async def elicit_form(
        self, message: str, requested_schema: dict[str, Any], related_request_id: int | str | None = None
    ) -> ElicitResult:
        """Asks the client's user to fill in the form ``requested_schema`` describes; the
        answer as the ``elicitation/create`` result (``action``, ``content``).
        ``related_request_id`` is taken: the question goes with this context's request."""
        params = {"mode": "form", "message": message, "requestedSchema": requested_schema}
        return to_official(ElicitResult.model_validate(await self._context._native.elicit(params)))

    elicit = elicit_form

    async def elicit_url(
        self, message: str, url: str, elicitation_id: str, related_request_id: int | str | None = None
    ) -> ElicitResult:
        """Asks the client's user to complete something at ``url`` out of band; the answer
        as the ``elicitation/create`` result."""
        params = {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}
        return to_official(ElicitResult.model_validate(await self._context._native.elicit(params)))

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Reports this request's progress (:meth:`Context.progress`)."""
        await self._context.progress(progress, total, message)

    async def send_log_message(
        self, level: LogLevel, data: Any, logger: str | None = None, related_request_id: int | str | None = None
    ) -> None:
        """Sends a log message (:meth:`Context.log`)."""
        await self._context.log(level, data, logger)

    async def send_resource_updated(self, uri: str) -> None:
        """Tells the clients subscribed to ``uri`` that it changed."""
        await self._context.notify_resource_updated(str(uri))

    async def send_notification(self, notification: Any, related_request_id: int | str | None = None) -> None:
        """Sends ``notification`` (a model of either SDK's, or its wire dict): a list change
        to this session's client (every client in 2026-07-28), a log message or this
        request's progress on the request's stream, a resource's update to its
        subscribers. ``related_request_id`` is taken: what is sent goes with the request
        the context is of. Other notifications are refused (``TypeError``)."""
        wire = (
            notification.model_dump(by_alias=True, exclude_none=True, mode="json")
            if isinstance(notification, BaseModel)
            else dict(notification)
        )
        method, params = wire.get("method"), wire.get("params") or {}
        kind = _LIST_CHANGED.get(method) if isinstance(method, str) else None
        if kind is not None:
            await self._context.notify_session_list_changed(kind)
        elif method == "notifications/message":
            await self._context.log(params["level"], params.get("data"), params.get("logger"))
        elif method == "notifications/progress":
            await self._context.progress(params["progress"], params.get("total"), params.get("message"))
        elif method == "notifications/resources/updated":
            await self._context.notify_resource_updated(params["uri"])
        else:
            raise TypeError(f"oxmcp sends no {method!r} notification from a handler")

    async def send_tool_list_changed(self) -> None:
        """Tells this session's client the list of tools changed (every client, in
        2026-07-28)."""
        await self._context.notify_session_list_changed("tools")

    async def send_resource_list_changed(self) -> None:
        """Tells this session's client the list of resources changed (every client, in
        2026-07-28)."""
        await self._context.notify_session_list_changed("resources")

    async def send_prompt_list_changed(self) -> None:
        """Tells this session's client the list of prompts changed (every client, in
        2026-07-28)."""
        await self._context.notify_session_list_changed("prompts")

    async def send_ping(self) -> None:
        """Pings the client on the session, which may outlive the request; returns once it
        answers, raises :class:`~oxmcp.McpError` once the session is gone or it does not
        answer in time. Nothing is sent in 2026-07-28, which has no sessions."""
        await self._context._native.ping()

    async def send_elicit_complete(self, elicitation_id: str, related_request_id: int | str | None = None) -> None:
        """The official SDK's name for :meth:`Context.notify_elicitation_complete`
        (``related_request_id`` is accepted and not needed: it goes on the session)."""
        await self._context.notify_elicitation_complete(elicitation_id)

    async def list_roots(self) -> ListRootsResult:
        """The client's roots as the ``roots/list`` result, as the official SDK's
        ``ctx.session.list_roots()`` gives them."""
        return to_official(ListRootsResult(roots=await self._context.list_roots()))


def _wire(value: BaseModel | dict[str, Any]) -> dict[str, Any]:
    """A model (oxmcp's or the official SDK's) as the wire has it."""
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    return value


#: Why an elicitation needs a response type (FastMCP's words).
_NO_RESPONSE_TYPE = (
    "ctx.elicit() requires a response_type. The empty-schema form-mode request produced by "
    "response_type=None was ambiguous under the MCP spec and caused some clients to render an "
    "empty, non-functional form. Pass a type describing the data you expect back — use `bool` "
    "for a confirmation."
)


@dataclass(frozen=True)
class _ElicitedForm:
    """The form an elicitation asks for, and how an accepted answer is read."""

    schema: dict[str, Any]
    adapter: TypeAdapter[Any] | None
    """What validates an answer; None for a JSON Schema given as it is."""
    wrapped: bool
    """Whether the answer is one value, in the field ``value``."""

    @classmethod
    def of_schema(cls, schema: Any) -> _ElicitedForm:
        """The form of a pydantic model, a dataclass or a TypedDict (an answer read as
        one), or of a JSON Schema dict (an answer read as it is)."""
        if isinstance(schema, dict):
            return cls(schema, None, False)
        adapter = TypeAdapter(schema)
        return cls(_form_schema(adapter.json_schema()), adapter, False)

    @classmethod
    def of_response_type(cls, asked: Any, title: str | None = None, description: str | None = None) -> _ElicitedForm:
        """The form of FastMCP's ``response_type``, as FastMCP makes it: one value in the
        field ``value`` (a scalar type, a ``Literal`` or an ``Enum``; a list of strings
        to choose one from; ``list[...]`` of choices to pick several of; a dict of
        choices to their ``{"title": ...}``, or a list of one such dict, or of one list,
        to pick several of), whose ``title`` and ``description`` may be given; else as
        :meth:`of_schema` makes it."""
        if asked is None:
            raise TypeError(_NO_RESPONSE_TYPE)
        if isinstance(asked, dict):
            if not asked:
                raise ValueError("Dict response_type cannot be empty.")
            form = cls._one_value({"type": "string", "oneOf": _titled(asked)}, Literal[tuple(asked)])
        elif isinstance(asked, list) and len(asked) == 1 and isinstance(asked[0], (list, dict)) and asked[0]:
            choices = asked[0]
            if isinstance(choices, dict):
                items: dict[str, Any] = {"anyOf": _titled(choices)}
            elif all(isinstance(choice, str) for choice in choices):
                items = {"type": "string", "enum": choices}
            else:
                raise ValueError(f"Invalid list response_type format. Received: {asked}")
            form = cls._one_value({"type": "array", "items": items}, list[Literal[tuple(choices)]])  # type: ignore[misc]
        elif isinstance(asked, list):
            if not asked or not all(isinstance(choice, str) for choice in asked):
                raise ValueError(f"Invalid list response_type format. Received: {asked}")
            choice: Any = Literal[tuple(asked)]
            form = cls._one_value(_value_schema(choice), choice)
        elif asked in (str, int, float, bool) or get_origin(asked) in (Literal, list) or _is_enum(asked):
            form = cls._one_value(_value_schema(asked), asked)
        elif title is not None or description is not None:
            raise TypeError(
                "response_title and response_description are only supported when response_type is a "
                "scalar, Literal, Enum, or the dict/list shorthand forms. For BaseModel or dataclass "
                "response types, use Field(title=..., description=...) on the individual fields."
            )
        else:
            return cls.of_schema(asked)
        value = form.schema["properties"]["value"]
        value.update({key: given for key, given in (("title", title), ("description", description)) if given})
        return form

    @classmethod
    def _one_value(cls, value: dict[str, Any], read_as: Any) -> _ElicitedForm:
        """A form of one field ``value`` with schema ``value``, its answer read as ``read_as``."""
        schema = {"type": "object", "properties": {"value": value}, "required": ["value"]}
        return cls(schema, TypeAdapter(read_as), True)

    def read(self, content: dict[str, Any]) -> Any:
        if self.adapter is None:
            return content
        return self.adapter.validate_python(content["value"] if self.wrapped else content)


def _is_enum(asked: Any) -> bool:
    return isinstance(asked, type) and issubclass(asked, enum.Enum)


def _titled(choices: dict[str, Any]) -> list[dict[str, Any]]:
    """Choices given as ``{value: {"title": ...}}`` as the schema lists titled ones."""
    return [{"const": value, "title": shown.get("title", value)} for value, shown in choices.items()]


def _value_schema(asked: Any) -> dict[str, Any]:
    """The schema of the field ``value`` of type ``asked``, as pydantic writes a model's
    field (titled ``Value``), an enum inline (titled by its class); a list only of
    choices to pick."""
    if _is_enum(asked):
        return TypeAdapter(asked).json_schema()
    if get_origin(asked) is list:
        (item,) = get_args(asked)
        items = TypeAdapter(item).json_schema()
        if "enum" not in items:
            raise TypeError(
                "Elicitation schema field 'value' is an array, but arrays are only allowed when items are "
                "enums (for multi-select). Only enum arrays are supported in elicitation schemas."
            )
        return {"type": "array", "items": items, "title": "Value"}
    return {**TypeAdapter(asked).json_schema(), "title": "Value"}


def _form_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A model's JSON Schema as a form the spec allows (each property a primitive): an
    optional field (``T | None``) as ``T``, not required, without a None default (as the
    official SDK renders it); an enum inline, not a reference (as FastMCP renders it).
    A field no form can hold (a nested model, a list of free text) is refused."""
    definitions = schema.get("$defs", {})
    properties = {name: _primitive(name, prop, definitions) for name, prop in schema.get("properties", {}).items()}
    return {key: value for key, value in schema.items() if key != "$defs"} | {"properties": properties}


def _primitive(name: str, prop: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    """Property ``name`` of a form, its optionality and enum references resolved."""
    choices = prop.get("anyOf")
    if isinstance(choices, list) and {"type": "null"} in choices and len(choices) == 2:
        (kept,) = [choice for choice in choices if choice != {"type": "null"}]
        prop = {key: value for key, value in prop.items() if key != "anyOf"} | kept
        if "default" in prop and prop["default"] is None:
            del prop["default"]
    prop = _inline(prop, definitions)
    if prop.get("type") == "array" and isinstance(prop.get("items"), dict):
        prop = prop | {"items": _inline(prop["items"], definitions)}
    items = prop.get("items", {})
    if prop.get("type") in ("string", "number", "integer", "boolean") or (
        prop.get("type") == "array" and ("enum" in items or "anyOf" in items)
    ):
        return prop
    raise TypeError(
        f"Elicitation schema field {name!r} rendered as {prop!r}, which is not a valid PrimitiveSchemaDefinition"
    )


def _inline(prop: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    """``prop`` with its reference to an enum's definition replaced by the definition."""
    ref = prop.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return prop
    definition: dict[str, Any] = definitions.get(ref.removeprefix("#/$defs/"), {})
    if "enum" not in definition:
        return prop
    return definition | {key: value for key, value in prop.items() if key != "$ref"}

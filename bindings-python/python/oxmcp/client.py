"""The client: ``async with Client.stdio([...])`` for a server process,
``Client.http(url)`` for a Streamable HTTP endpoint, ``Client(server)`` for a server in
this process."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import ssl
from collections.abc import Awaitable, Callable, Sequence
from os import PathLike
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, NamedTuple

from . import _native
from ._convert import jsonable
from ._version import __version__
from .auth import OAuth
from .server import Server
from .types import (
    CallToolResult,
    Completion,
    CreateMessageRequest,
    CreateMessageResult,
    ElicitRequest,
    ElicitResult,
    GetPromptResult,
    Implementation,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    LoggingLevel,
    Prompt,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    Root,
    Skill,
    Task,
    Tool,
)

Era = Literal["auto", "legacy", "modern"]
SamplingHandler = Callable[[CreateMessageRequest], Awaitable[CreateMessageResult | dict[str, Any]]]
ElicitationHandler = Callable[[ElicitRequest], Awaitable[ElicitResult | dict[str, Any]]]
RootsHandler = Callable[[], Awaitable[Sequence[Root | str]]]
NotificationHandler = Callable[[str, Any], Awaitable[None] | None]
ProgressHandler = Callable[[float, float | None, str | None], Awaitable[None] | None]
TokenSource = Callable[[], str | Awaitable[str | None] | None]


class Reconnect(NamedTuple):
    """How a broken SSE stream is reconnected: wait ``initial`` seconds (or the
    server's ``retry:``, up to ``max``), doubling up to ``max``, for at most ``attempts``
    tries in a row that bring no event."""

    initial: float = 0.25
    max: float = 5.0
    attempts: int = 4


class Client:
    """A connection to an MCP server; use it as an async context manager.

    >>> async with Client.stdio(["python", "server.py"]) as client:   # doctest: +SKIP
    ...     result = await client.call_tool("add", {"a": 1, "b": 2})
    >>> async with Client.http("http://127.0.0.1:8000/mcp") as client:   # doctest: +SKIP
    ...     tools = await client.list_tools()

    ``era`` picks the protocol era: ``"auto"`` (probe the 2026-07-28 era, fall back to
    the handshake), ``"legacy"`` or ``"modern"``. The handlers answer the server's
    requests (sampling, elicitation, roots) and receive its notifications. Cancelling
    the task awaiting a call cancels the request on the server.

    The limits hold a hostile server back (None keeps the default): ``max_list_pages``
    pages followed by the ``list_*`` methods (100), ``max_server_requests`` of the
    server's requests answered at once (16; more are refused), ``max_sampling_per_round``
    sampling requests in one 2026-07-28 ``input_required`` round (8), ``max_input_rounds``
    ``input_required`` rounds of one request (8).

    ``cache_lists`` keeps a full listing (``list_tools()``...) while the server says it is
    fresh (its ``ttlMs``, 2026-07-28) and has not said the list changed (default on); off,
    every listing asks the server.

    ``tasks`` declares the 2026-07-28 tasks extension (default on): a tool call the server
    answers with a task is followed to its result (polled, what it asks answered by the
    handlers, cancelled with the call), so ``call_tool`` returns what the tool returned.
    ``sampling_tools`` declares sampling with tools: the sampling handler may get
    ``tools`` and answer with ``tool_use`` content. ``elicitation_url`` declares URL-mode
    elicitation: the elicitation handler may get a ``url`` to send the user to.
    """

    def __init__(
        self,
        server: Server | None = None,
        *,
        name: str = "oxmcp-python",
        version: str = __version__,
        era: Era = "auto",
        timeout: float | None = 60.0,
        sampling_handler: SamplingHandler | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        roots_handler: RootsHandler | None = None,
        notification_handler: NotificationHandler | None = None,
        max_list_pages: int | None = None,
        max_server_requests: int | None = None,
        max_sampling_per_round: int | None = None,
        tasks: bool = True,
        sampling_tools: bool = False,
        elicitation_url: bool = False,
        cache_lists: bool = True,
        max_input_rounds: int | None = None,
    ) -> None:
        self._server = server
        self._command: list[str] | None = None
        self._stdio: dict[str, Any] = {}
        self._http: dict[str, Any] | None = None
        self._config = _native.ClientConfig(
            name,
            version,
            era,
            timeout,
            _sampling(sampling_handler) if sampling_handler else None,
            _elicitation(elicitation_handler) if elicitation_handler else None,
            _roots(roots_handler) if roots_handler else None,
            _callback(notification_handler) if notification_handler else None,
            max_list_pages,
            max_server_requests,
            max_sampling_per_round,
            tasks,
            sampling_tools,
            elicitation_url,
            cache_lists,
            max_input_rounds,
        )
        self._native: _native.Client | None = None
        # An in-process server's lifespan, held while connected.
        self._serving: contextlib.AsyncExitStack | None = None

    @classmethod
    def stdio(
        cls,
        command: Sequence[str],
        *,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        quiet: bool = False,
        max_message_size: int | None = None,
        **options: Any,
    ) -> Client:
        """A client of the server that ``command`` starts (program and arguments), over its
        stdin and stdout. ``env`` adds variables; ``quiet`` discards its stderr;
        ``max_message_size`` bounds one message from the server, in bytes (4 MiB). The
        other options are the constructor's."""
        client = cls(**options)
        client._command = list(command)
        client._stdio = {"env": env, "cwd": cwd, "quiet": quiet, "max_message_size": max_message_size}
        return client

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        bearer_token: str | TokenSource | None = None,
        connect_timeout: float | None = None,
        legacy_sse_fallback: bool = True,
        request_timeout: float | None = None,
        max_message_size: int | None = None,
        reconnect: Reconnect | None = None,
        auth: OAuth | None = None,
        verify: ssl.SSLContext | bool | str | PathLike[str] | None = None,
        **options: Any,
    ) -> Client:
        """A client of the Streamable HTTP endpoint at ``url`` (e.g.
        ``http://127.0.0.1:8000/mcp``); an old server's HTTP+SSE endpoint works too unless
        ``legacy_sse_fallback=False``. ``headers`` go with every HTTP request;
        ``bearer_token`` is a token, or a function (sync or async) asked before each
        request, sent as ``Authorization: Bearer ...`` (nothing when it returns None).
        ``connect_timeout`` bounds opening a connection and ``request_timeout`` one HTTP
        request until its answer is complete (or its stream's headers arrive), in seconds;
        ``max_message_size`` bounds one message from the server, in bytes (4 MiB);
        ``reconnect`` paces the reconnection of broken SSE streams; ``auth`` signs in to a
        protected server with OAuth (see :class:`oxmcp.auth.OAuth`). ``verify`` says whose
        certificates an https server may present, as httpx's ``verify`` does: ``True`` (or
        None) what the platform trusts, a CA bundle's path (a PEM file, or a directory of
        them) or an ``ssl.SSLContext``'s loaded CAs only those, ``False`` anything (only
        for a server under test: the traffic is then open to whoever sits between). The
        other options are the constructor's."""
        client = cls(**options)
        headers = dict(headers or {})
        token = None
        if isinstance(bearer_token, str):
            headers["Authorization"] = f"Bearer {bearer_token}"
        elif bearer_token is not None:
            token = _token(bearer_token)
        client._http = {
            "url": url,
            "headers": headers,
            "bearer_token": token,
            "connect_timeout": connect_timeout,
            "legacy_sse_fallback": legacy_sse_fallback,
            "request_timeout": request_timeout,
            "max_message_size": max_message_size,
            "reconnect": reconnect,
            "auth": auth._native if auth else None,
            **_tls_trust(verify),
        }
        return client

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def connect(self) -> None:
        """Connects and settles the protocol era (``async with`` does this)."""
        if self._native is not None:
            raise RuntimeError("the client is already connected")
        if self._server is not None:
            serving = contextlib.AsyncExitStack()
            await serving.enter_async_context(self._server._living())
            try:
                self._native = await _native.Client.connect_in_process(self._server._native, self._config)
            except BaseException:
                await serving.aclose()
                raise
            self._serving = serving
        elif self._command is not None:
            self._native = await _native.Client.connect_stdio(self._command, self._config, **self._stdio)
        elif self._http is not None:
            self._native = await _native.Client.connect_http(config=self._config, **self._http)
        else:
            raise ValueError("give a Server, or use Client.stdio([...]) or Client.http(url)")

    async def closed(self) -> None:
        """Returns once the connection is over: the server went away (its process exited,
        its pipe or stream ended) or :meth:`close` was called; at once when not connected.
        Over Streamable HTTP, where each request goes out on its own, only :meth:`close`
        ends it."""
        if self._native is not None:
            await self._native.closed()

    async def close(self) -> None:
        """Closes the connection; a server process is asked to exit, then stopped; an
        HTTP session is ended."""
        if self._native is not None:
            native, self._native = self._native, None
            await native.close()
        if self._serving is not None:
            serving, self._serving = self._serving, None
            await serving.aclose()

    @property
    def connected(self) -> bool:
        """Whether the client is connected (between :meth:`connect` and :meth:`close`)."""
        return self._native is not None

    @property
    def _connection(self) -> _native.Client:
        if self._native is None:
            raise RuntimeError("the client is not connected: use `async with client:`")
        return self._native

    @property
    def protocol_version(self) -> str:
        """The protocol version in use, e.g. ``"2026-07-28"``."""
        return str(self._connection.server_details()["protocolVersion"])

    @property
    def server_info(self) -> Implementation | None:
        """Who the server says it is."""
        info = self._connection.server_details()["serverInfo"]
        return Implementation.model_validate(info) if info else None

    @property
    def capabilities(self) -> dict[str, Any]:
        """What the server can do."""
        return dict(self._connection.server_details()["capabilities"])

    @property
    def instructions(self) -> str | None:
        """The server's guidance for the model."""
        instructions = self._connection.server_details()["instructions"]
        return str(instructions) if instructions is not None else None

    async def list_tools(self) -> list[Tool]:
        """Every tool."""
        return [Tool.model_validate(tool) for tool in await self._connection.list_tools()]

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        progress_handler: ProgressHandler | None = None,
        meta: dict[str, Any] | None = None,
    ) -> CallToolResult:
        """Calls a tool. A tool's own failure is a result with ``is_error``; a protocol
        error raises :class:`~oxmcp.McpError`. ``progress_handler(progress, total,
        message)`` receives progress notifications; ``meta`` goes in the request's
        ``_meta``. ``timeout`` (seconds) overrides the client's."""
        on_progress = _callback(progress_handler) if progress_handler else None
        result = await self._connection.call_tool(name, jsonable(arguments), timeout, on_progress, meta)
        return CallToolResult.model_validate(result)

    async def call_tool_as_task(self, name: str, arguments: dict[str, Any] | None = None) -> ToolTask:
        """Calls a tool as a task, when the server runs it as one, and gives a
        :class:`ToolTask` to poll, wait for, read or cancel::

            task = await client.call_tool_as_task("build", {"target": "release"})
            print((await task.status()).status)      # "working"
            result = await task.result()              # waits for the end

        In 2026-07-28 the server decides (for clients that declare the tasks extension, as
        this one does unless ``tasks=False``); in 2025-11-25 the call asks for a task when
        the server runs tool calls as tasks. A server that answers in place gives a
        ``ToolTask`` whose ``id`` is None and whose ``result()`` is that answer.
        :meth:`call_tool` follows tasks on its own: use it unless you want the handle."""
        return ToolTask(await self._connection.call_tool_as_task(name, jsonable(arguments)))

    def tool_task(self, task_id: str) -> ToolTask:
        """A handle on a task an earlier call made (of this connection, or of another one
        of the same caller: say, before the app restarted)."""
        return ToolTask(self._connection.tool_task(task_id))

    async def list_resources(self) -> list[Resource]:
        """Every static resource."""
        return [Resource.model_validate(r) for r in await self._connection.list_resources()]

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        """Every resource template."""
        return [ResourceTemplate.model_validate(t) for t in await self._connection.list_resource_templates()]

    async def read_resource(
        self,
        uri: str,
        *,
        timeout: float | None = None,
        progress_handler: ProgressHandler | None = None,
        meta: dict[str, Any] | None = None,
    ) -> ReadResourceResult:
        """Reads a resource (``timeout``, ``progress_handler`` and ``meta`` as for
        :meth:`call_tool`). One that does not exist raises
        :class:`~oxmcp.ResourceNotFoundError`."""
        on_progress = _callback(progress_handler) if progress_handler else None
        result = await self._connection.read_resource(uri, timeout, on_progress, meta)
        return ReadResourceResult.model_validate(result)

    async def subscribe_resource(self, uri: str) -> None:
        """Asks for ``notifications/resources/updated`` of ``uri``."""
        await self._connection.subscribe_resource(uri)

    async def unsubscribe_resource(self, uri: str) -> None:
        """Stops updates of ``uri``."""
        await self._connection.unsubscribe_resource(uri)

    async def list_prompts(self) -> list[Prompt]:
        """Every prompt."""
        return [Prompt.model_validate(p) for p in await self._connection.list_prompts()]

    async def list_tools_page(self, cursor: str | None = None) -> ListToolsResult:
        """One page of tools: the first, or the one ``cursor`` names (a page's
        ``next_cursor``). :meth:`list_tools` follows the cursors for you."""
        return ListToolsResult.model_validate(await self._connection.list_page("tools", cursor))

    async def list_resources_page(self, cursor: str | None = None) -> ListResourcesResult:
        """One page of static resources (see :meth:`list_tools_page`)."""
        return ListResourcesResult.model_validate(await self._connection.list_page("resources", cursor))

    async def list_resource_templates_page(self, cursor: str | None = None) -> ListResourceTemplatesResult:
        """One page of resource templates (see :meth:`list_tools_page`)."""
        page = await self._connection.list_page("resource_templates", cursor)
        return ListResourceTemplatesResult.model_validate(page)

    async def list_prompts_page(self, cursor: str | None = None) -> ListPromptsResult:
        """One page of prompts (see :meth:`list_tools_page`)."""
        return ListPromptsResult.model_validate(await self._connection.list_page("prompts", cursor))

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, str] | None = None,
        *,
        timeout: float | None = None,
        progress_handler: ProgressHandler | None = None,
        meta: dict[str, Any] | None = None,
    ) -> GetPromptResult:
        """Renders a prompt with its arguments (``timeout``, ``progress_handler`` and
        ``meta`` as for :meth:`call_tool`)."""
        on_progress = _callback(progress_handler) if progress_handler else None
        result = await self._connection.get_prompt(name, arguments, timeout, on_progress, meta)
        return GetPromptResult.model_validate(result)

    async def complete(
        self,
        argument: str,
        value: str,
        *,
        prompt: str | None = None,
        template: str | None = None,
        context: dict[str, str] | None = None,
    ) -> Completion:
        """Suggests values for ``argument`` of a ``prompt`` (by name) or of a resource
        ``template`` (by URI template), given its partial ``value``."""
        if (prompt is None) == (template is None):
            raise ValueError("give exactly one of prompt= and template=")
        reference = {"type": "ref/prompt", "name": prompt} if prompt else {"type": "ref/resource", "uri": template}
        return Completion.model_validate(await self._connection.complete(reference, argument, value, context))

    async def set_log_level(self, level: LoggingLevel) -> None:
        """The lowest level of log messages the server should send."""
        await self._connection.set_log_level(level)

    async def ping(self) -> None:
        """Checks that the server answers."""
        await self._connection.ping()

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        progress_handler: ProgressHandler | None = None,
    ) -> dict[str, Any]:
        """Sends a request of ``method`` (an extension's, or any the typed methods do not
        cover) and returns its result as a dict; a JSON-RPC error raises
        :class:`~oxmcp.McpError` (``timeout`` and ``progress_handler`` as for
        :meth:`call_tool`)."""
        on_progress = _callback(progress_handler) if progress_handler else None
        result: dict[str, Any] = await self._connection.request(method, params, timeout, on_progress)
        return result

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Sends notification ``method`` with ``params``."""
        await self._connection.notify(method, params)

    async def list_skills(self) -> list[Skill]:
        """Every skill the server offers (the skills extension), with the size and digest
        of each of its files; no skill file is read. A server that does not offer skills
        raises :class:`~oxmcp.ProtocolError`."""
        return [Skill.model_validate(skill) for skill in await self._connection.list_skills()]

    async def get_skill(self, uri: str) -> Skill:
        """The skill whose ``SKILL.md`` is at ``uri`` (``skills/get``), listed or not. A URI
        that is not a skill's raises the server's -32602 error (:class:`~oxmcp.McpError`)."""
        return Skill.model_validate(await self._connection.get_skill(uri))

    async def load_skill(self, skill: Skill) -> str:
        """Loads ``skill``: the text of its ``SKILL.md``, once the bytes have the size and
        digest the skill lists and the front matter matches, field by field. A mismatch
        raises :class:`~oxmcp.ProtocolError` (verification failed): do not use the skill.
        Its other files are read when needed, with :meth:`read_skill_file`."""
        return await self._connection.load_skill(skill.to_wire())

    async def read_skill_file(self, skill: Skill, uri: str) -> bytes:
        """The bytes of file ``uri`` of ``skill``, once they match what the skill lists for
        it; a file it does not list, or a mismatch, raises :class:`~oxmcp.ProtocolError`."""
        return await self._connection.read_skill_file(skill.to_wire(), uri)

    async def listen(
        self,
        *,
        tools_list_changed: bool = False,
        prompts_list_changed: bool = False,
        resources_list_changed: bool = False,
        resource_subscriptions: Sequence[str] = (),
    ) -> Subscription:
        """Opens a ``subscriptions/listen`` stream (2026-07-28; a legacy server sends list
        changes unasked) for the notifications named; they reach the
        ``notification_handler`` until the subscription is closed. Returns once the server
        acknowledged it::

            async with await client.listen(tools_list_changed=True):
                ...  # notifications/tools/list_changed arrive meanwhile
        """
        wanted = {
            "toolsListChanged": tools_list_changed or None,
            "promptsListChanged": prompts_list_changed or None,
            "resourcesListChanged": resources_list_changed or None,
            "resourceSubscriptions": list(resource_subscriptions) or None,
        }
        native = await self._connection.listen({key: value for key, value in wanted.items() if value is not None})
        return Subscription(native)

    async def send_roots_list_changed(self) -> None:
        """Tells the server the roots ``roots_handler`` gives changed, so that it asks again
        (``notifications/roots/list_changed``, legacy era; a 2026-07-28 server asks for
        the roots within each request, so nothing is sent)."""
        await self._connection.send_roots_list_changed()


class Subscription:
    """An open ``subscriptions/listen`` stream (see :meth:`Client.listen`); close it, or
    use it as an async context manager, to end it."""

    __slots__ = ("_native",)

    def __init__(self, native: _native.Subscription) -> None:
        self._native = native

    @property
    def acknowledged(self) -> dict[str, Any]:
        """What the server agreed to send, as the wire says it (``toolsListChanged``,
        ``resourceSubscriptions``…): what it asked for less what the server does not offer.
        Empty once closed."""
        return self._native.acknowledged

    def close(self) -> None:
        """Ends the stream."""
        self._native.close()

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()


class ToolTask:
    """A tool call the server runs as a task; see :meth:`Client.call_tool_as_task`.
    What the task asks for while it runs goes to the client's elicitation, sampling and
    roots handlers."""

    def __init__(self, native: _native.ToolTask) -> None:
        self._native = native

    @property
    def id(self) -> str | None:
        """The task's id; None when the server answered the call in place."""
        return self._native.id

    async def status(self) -> Task | None:
        """The task as the server shows it now; None when the call was answered in place."""
        return _task(await self._native.status())

    async def wait(self) -> Task | None:
        """Waits until the task ends, and gives it as it ended."""
        return _task(await self._native.wait())

    async def result(self) -> CallToolResult:
        """What the tool returned, once the task ended (waiting for it). A task that
        failed raises :class:`~oxmcp.McpError`; one that was cancelled,
        :class:`asyncio.CancelledError`."""
        return CallToolResult.model_validate(await self._native.result())

    async def cancel(self) -> None:
        """Asks the server to stop the task; a task that ended stays as it ended."""
        await self._native.cancel()


def _task(wire: dict[str, Any] | None) -> Task | None:
    return Task.model_validate(wire) if wire is not None else None


def _callback(handler: Callable[..., Any]) -> Callable[..., None]:
    """A callback the native layer calls on the loop: sync handlers run there, async
    ones become tasks."""
    tasks: set[asyncio.Task[Any]] = set()

    def call(*args: Any) -> None:
        outcome = handler(*args)
        if inspect.isawaitable(outcome):
            task = asyncio.ensure_future(outcome)
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    return call


def _token(source: TokenSource) -> Callable[[], Awaitable[str | None]]:
    async def token() -> str | None:
        value = source()
        return await value if inspect.isawaitable(value) else value

    return token


def _sampling(handler: SamplingHandler) -> Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]:
    async def answer(params: dict[str, Any]) -> dict[str, Any]:
        result = await handler(CreateMessageRequest.model_validate(params))
        return CreateMessageResult.model_validate(result).to_wire()

    return answer


def _elicitation(handler: ElicitationHandler) -> Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]:
    async def answer(params: dict[str, Any]) -> dict[str, Any]:
        result = await handler(ElicitRequest.model_validate(params))
        return ElicitResult.model_validate(result).to_wire()

    return answer


def _roots(handler: RootsHandler) -> Callable[[], Awaitable[dict[str, Any]]]:
    async def answer() -> dict[str, Any]:
        roots = [Root(uri=r) if isinstance(r, str) else r for r in await handler()]
        return {"roots": [root.to_wire() for root in roots]}

    return answer


def _tls_trust(verify: ssl.SSLContext | bool | str | PathLike[str] | None) -> dict[str, Any]:
    """The native connection's ``tls_roots`` and ``tls_insecure`` for httpx's ``verify``."""
    if verify is None or verify is True:
        return {}
    if verify is False:
        return {"tls_insecure": True}
    if isinstance(verify, ssl.SSLContext):
        if verify.verify_mode == ssl.CERT_NONE:
            return {"tls_insecure": True}
        return {"tls_roots": verify.get_ca_certs(binary_form=True) or None}
    bundle = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    path = Path(verify)
    for file in sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path]:
        bundle.load_verify_locations(cafile=file)
    return {"tls_roots": bundle.get_ca_certs(binary_form=True)}

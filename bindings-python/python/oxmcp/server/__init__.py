"""The server: decorators that turn Python functions into tools, resources and prompts,
served by the Rust core over stdio, Streamable HTTP, or in memory to an in-process
:class:`Client`."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import inspect
import logging
import signal
import socket
import sys
import threading
import typing
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Generator, Iterable, Mapping, Sequence
from os import PathLike
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar, overload

from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import TypedDict, TypeIs, Unpack

from .. import _native, types
from .._conventions import (
    Conventions,
    OfficialConventions,
    completion_failure,
    crashed_resource,
    crashed_tool,
    request_failure,
)
from .._errors import (
    McpError,
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedResourceError,
    UnexpectedToolError,
)
from .._native import INTERNAL_ERROR, INVALID_PARAMS
from .._official import to_official
from .._resource_security import DEFAULT_RESOURCE_SECURITY, ResourceSecurity
from .._schema import (
    EMPTY,
    FunctionSpec,
    Output,
    inspect_function,
    json_coercer,
    lax_arguments,
    string_coercer,
    template_coercer,
)
from ..auth import TokenVerifier, native_verifier, resource_server
from ..context import Context, LifespanT
from ..context import ServerRequestContext as ServerRequestContext
from ..types import Annotations, ToolAnnotations
from ._calling import Call, Failure, native_callable, raise_answer, result_object
from ._low_level import HANDLERS, LowLevelHandler, LowLevelHandlers, low_level_handler
from ._mounting import Components, _Registration
from .extension import Extension, add_extension
from .request_state import RequestStateSecurity
from .stdio import StdioStream
from .subscriptions import ListenHandler

if TYPE_CHECKING:
    from ..asgi import HttpApp
    from ..client import Client
    from ..prompts import Prompt
    from ..resources import Resource

Handler = TypeVar("Handler", bound=Callable[..., Any])
ContextT = TypeVar("ContextT", bound=Context[Any])
#: What makes the context a handler gets, of the type it annotates, from the native one.
ContextMaker = Callable[[type[Context[Any]], Any], Context[Any]]
#: Whether a tool runs as a task: never, when the client asks for one (2025-11-25) or
#: supports the tasks extension (2026-07-28), or only as one.
TaskSupport = Literal["forbidden", "optional", "required"]
Completer = Callable[..., Iterable[str] | Awaitable[Iterable[str]]]
Wire = dict[str, Any]
#: A handler's keyword arguments and the native context.
Arguments = tuple[dict[str, Any], Any]

#: Runs an intercepted request's method, with the params as sent (no argument) or others,
#: and gives its result.
NextMethod = Callable[..., Awaitable[Wire]]


@dataclasses.dataclass(frozen=True)
class InterceptedRequest:
    """A request an interceptor sees (:meth:`Server.intercept`): its method, its params
    as sent (None when it has none), its context."""

    method: str
    params: Wire | None
    ctx: Context[Any]


#: What runs around every request a server serves (:meth:`Server.intercept`).
Interceptor = Callable[[InterceptedRequest, NextMethod], Awaitable[Wire]]

#: What makes the client of the server a server proxies (:meth:`Server.proxy`).
UpstreamFactory = Callable[[], "Client | Awaitable[Client]"]

_log = logging.getLogger("oxmcp")
#: How long a proxy waits before trying again to reach its server, at first and at most.
_REACH_FIRST_DELAY = 1.0
_REACH_LONGEST_DELAY = 30.0


class Server(Generic[LifespanT]):
    """An MCP server.

    >>> server = Server("demo", version="1.0.0")
    >>> @server.tool()
    ... async def add(a: int, b: int) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b

    ``server.run()`` serves stdio, ``server.run(transport="http", port=8000)`` Streamable
    HTTP; ``Client(server)`` talks to it in the same process.
    Definitions may be added and removed while the server runs: clients are told.
    """

    #: How functions are listed and their values and failures worded: the official SDK's
    #: way, but for a tool's meant failure (its text alone, as in every binding).
    _conventions: Conventions = Conventions()
    #: What keeps the server's components for the core (FastMCP's keep versions).
    _components_type: ClassVar[type[Components]] = Components

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        *,
        instructions: str | None = None,
        title: str | None = None,
        description: str | None = None,
        website_url: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        page_size: int | None = None,
        max_in_flight: int | None = None,
        max_subscriptions: int | None = None,
        end_grace: float | None = None,
        client_request_timeout: float | None = None,
        mask_error_details: bool = False,
        auth: TokenVerifier | Any | None = None,
        token_verifier: Any = None,
        task_store: str | PathLike[str] | None = None,
        task_ttl: float | None = None,
        task_poll_interval: float | None = None,
        max_tasks: int | None = None,
        store: str | None = None,
        skills: str | PathLike[str] | None = None,
        declare: Iterable[Literal["tools", "resources", "prompts", "completions"]] = (),
        lifespan: Callable[[Server], contextlib.AbstractAsyncContextManager[Any]] | None = None,
        resource_security: ResourceSecurity = DEFAULT_RESOURCE_SECURITY,
        cache_ttl: float | None = None,
        cache_scope: Literal["public", "private"] | None = None,
        request_state_security: RequestStateSecurity | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        **handlers: Unpack[LowLevelHandlers],
    ) -> None:
        """``page_size`` splits list results into pages of at most that many items (default:
        one page). Bounds on each client (over stdio, in a legacy HTTP session):
        ``max_in_flight`` requests at once (default 256; past it a request gets an error at
        once), ``max_subscriptions`` resources subscribed to (default 1024), and
        ``end_grace`` seconds for its requests in flight to finish once its input ended,
        e.g. stdin closed (default 5; then they are cancelled), and
        ``client_request_timeout`` seconds for a legacy client to answer an elicitation,
        sampling or roots request (default 300). ``mask_error_details`` sends a generic
        message instead of what any handler's failure says, a ``ToolError``'s too (the
        detail is logged); without it a tool's unexpected exception is answered as the
        official SDK answers it, ``Error executing tool <name>`` alone.

        ``auth`` makes the server an OAuth resource server over HTTP: every request needs a
        token the verifier accepts (:class:`~oxmcp.auth.JWTVerifier`,
        :class:`~oxmcp.auth.IntrospectionVerifier`, or an object with ``async def
        verify(token) -> AccessToken | None``), meant for the server's URL; handlers read it
        from ``ctx.access_token``. :class:`HttpOptions` name the ``resource_url``, the
        ``authorization_servers`` and the ``required_scopes``. A server ported from the
        official SDK gives its ``token_verifier`` and ``auth=AuthSettings(...)`` instead:
        the settings name the resource URL, the authorization server and the required
        scopes (:class:`~oxmcp.auth.OfficialVerifier`); one ported from FastMCP gives its
        provider (:mod:`oxmcp.fastmcp.server.auth`).

        Tools declared with ``task=`` run as tasks: they are kept ``task_ttl`` seconds
        (default 3600), clients are asked to poll every ``task_poll_interval`` seconds
        (default 0.5), at most ``max_tasks`` are kept (default 10,000). They live in memory,
        or with ``task_store`` in that SQLite file: a restarted server still gives the
        results of tasks that finished, and reports those it was running as failed.

        ``cache_ttl`` (seconds) lets 2026-07-28 clients keep the lists and read resources
        that long (``ttlMs``), ``cache_scope`` (``"private"`` by default, or ``"public"``)
        says who may keep them (``cacheScope``, SEP-2549); without it results are fresh
        each time, lists public and reads private.

        ``store`` (default: the ``OXMCP_STORE`` environment variable), a ``redis://`` URL,
        makes replicas behind a load balancer one server: tasks, list changes and resource
        updates, and the key that seals ``requestState`` are shared through that Redis.
        ``request_state_security`` (:class:`~oxmcp.server.request_state.RequestStateSecurity`,
        as in the official SDK) gives the keys that seal ``requestState`` instead, and how
        long it stays valid.

        ``experimental_capabilities`` are declared in ``capabilities.experimental``, by name.

        ``skills`` is a directory of Agent Skills to serve (the skills extension, SEP-2640):
        each directory below it with a ``SKILL.md`` (YAML front matter with ``name``, the
        directory's name, and ``description``) is a skill. Each ``SKILL.md`` is listed as a
        resource, every file is read at ``skill://<path>/<file>``, and clients list the
        skills with the digest and size of each file (``Client.list_skills``).

        The server tells clients what it has when they ask: tools, resources or prompts once
        one is registered, completions once a completion handler is. ``declare`` names
        capabilities to declare before anything is registered for them, for a server that
        adds them while clients are connected (a client of 2025-11-25 or earlier reads the
        capabilities once, at its handshake).

        ``lifespan(server)``, an async context manager, is entered when the server starts
        serving (stdio or HTTP) and left when it stops; what it yields reaches handlers as
        ``ctx.request_context.lifespan_context``, as in the official SDK.

        The official SDK's low-level handlers (``on_list_tools``, ``on_call_tool``,
        ``on_list_prompts``, ``on_get_prompt``, ``on_list_resources``,
        ``on_list_resource_templates``, ``on_read_resource``) list and serve what is not
        registered with the decorators: each is called with a
        :class:`~oxmcp.context.ServerRequestContext` and the request's params, and returns
        the method's result. Lists give the registered definitions first, then the
        handler's pages; a name or URI nothing registered has goes to the handler.
        ``on_completion(ctx, params)`` completes the arguments that have no completion of
        their own (those of the prompts and templates the handlers list too),
        ``on_roots_list_changed(ctx, params)`` hears a legacy client's roots change and
        ``on_progress(ctx, params)`` the progress a client reports.
        ``on_subscribe_resource``, ``on_unsubscribe_resource`` and ``on_set_logging_level``
        are told of those legacy requests before the core acts on them (the core keeps the
        subscriptions and the log level; a handler that raises refuses the request).
        ``await server.run(read, write, server.create_initialization_options())`` within
        ``oxmcp.server.stdio.stdio_server()`` serves stdio, as there."""
        info = _definition(
            {
                "name": name,
                "version": version,
                "title": title,
                "description": description,
                "websiteUrl": website_url,
                "icons": icons,
            }
        )
        self.name = name
        self._lifespan = lifespan
        self._lifespan_state: Any = None
        # Whatever serves the server (stdio, HTTP, in-process clients) shares one lifespan.
        self._living_users = 0
        self._lifespan_exit = contextlib.AsyncExitStack()
        self._http_apps: list[HttpApp] = []
        #: The official SDK's middleware (``server.middleware.append(fn)``): each
        #: ``async (ctx, call_next) -> result`` around every request but the handshake,
        #: the first outermost, from when the server starts serving.
        self.middleware: list[Any] = []
        #: The HTTP routes of its own (:meth:`custom_route`), served beside the endpoint.
        self._custom_routes: list[Any] = []
        #: What its templates' variables are checked against, unless a template says.
        self._resource_security = resource_security
        # The official SDK's settings and FastMCP's providers name what the HTTP options
        # would: they are the defaults.
        verifier, self._auth_http_options = resource_server(auth, token_verifier)
        self._native = _native.Server(
            info,
            instructions,
            page_size,
            max_in_flight,
            max_subscriptions,
            end_grace,
            client_request_timeout,
            mask_error_details,
            native_verifier(verifier) if verifier is not None else None,
            task_store,
            task_ttl,
            task_poll_interval,
            max_tasks,
            store,
            skills,
            self._conventions.skill_listing,
            self._conventions.listed_meta(None),
            [*declare, *(["resources"] if "on_subscriptions_listen" in handlers else [])],
            self._conventions.unknown_tool_error,
            self._conventions.unknown_resource_error,
            self._conventions.unknown_prompt_error,
            cache_ttl,
            cache_scope,
            *_request_state_options(request_state_security),
            experimental_capabilities,
        )
        self._components = self._components_type(self._native)
        #: The servers mounted on this one, with their namespaces: it enters their
        #: lifespans and serves what they proxy.
        self._mounted: list[tuple[Server[Any], str | None]] = []
        #: The servers this one is mounted on, with its namespace there: they serve its skills.
        self._mounted_on: list[tuple[Server[Any], str | None]] = []
        #: The client whose server this one proxies, connected while this one serves (or
        #: what makes it, called when this one first serves).
        self._upstream: Client | UpstreamFactory | None = None
        for keyword, fn in handlers.items():
            if keyword == "on_subscriptions_listen" and isinstance(fn, ListenHandler):
                fn.serve(self)
                continue
            served = HANDLERS.get(keyword)
            if served is None:
                raise TypeError(f"Server() got an unexpected keyword argument {keyword!r}")
            handler = low_level_handler(typing.cast(LowLevelHandler, fn), served, self._lifespan_context)
            if served.role == "completer":
                self._native.set_completer(handler)
            elif served.role == "notification":
                self._native.add_notification_handler(served.method, _logging_failures(handler, served.method))
            elif served.role == "told":
                self._native.add_request_handler(served.method, handler)
            else:
                self._native.serve_from_catalog(served.method, handler)

    # Tools

    @overload
    def tool(self, fn: Handler, /) -> Handler: ...

    @overload
    def tool(
        self,
        name_: str | None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        scopes: list[str] | None = None,
        task: TaskSupport = "forbidden",
        asks_before_task: bool = False,
    ) -> Callable[[Handler], Handler]: ...

    def tool(
        self,
        fn_or_name: Any = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        scopes: list[str] | None = None,
        task: TaskSupport = "forbidden",
        asks_before_task: bool = False,
    ) -> Any:
        """Registers a function as a tool: ``@server.tool``, ``@server.tool()``,
        ``@server.tool("name", ...)`` or ``@server.tool(name="name", ...)``.

        Parameters become the input schema (``Annotated[int, Field(description=...)]``
        documents one); the docstring, the description; the return annotation, the output
        schema (objects as they are, anything else as ``{"result": ...}``; text and content
        stay unstructured). ``structured_output=False`` turns the output schema off.
        ``input_schema`` replaces the generated input schema (the arguments still reach
        the parameters of the same names); ``output_schema`` (an object's) the generated
        output schema, the value returned then being the structured content as it is.
        ``scopes`` are those a caller's token must grant to call it, on a server with
        ``auth`` over HTTP (a call without them gets ``403 insufficient_scope``, from which
        clients step up). ``task`` (``"optional"`` or
        ``"required"``) runs it as a task: a 2025-11-25 call that asks for one and any
        2026-07-28 call from a client with the tasks extension get a task to poll while the
        same function runs in the background (``ctx.progress``, ``ctx.log``, ``ctx.elicit``
        work as in a plain call); a ``"required"`` one refuses other calls. With
        ``asks_before_task=True`` the function's questions come first, answered in place,
        and the call becomes a task where it calls ``await ctx.begin_task()``.
        """

        def register(fn: Handler) -> Handler:
            self.add_tool(
                fn,
                name=name or (None if callable(fn_or_name) else fn_or_name),
                title=title,
                description=description,
                annotations=annotations,
                icons=icons,
                meta=meta,
                structured_output=structured_output,
                input_schema=input_schema,
                output_schema=output_schema,
                scopes=scopes,
                task=task,
                asks_before_task=asks_before_task,
            )
            return fn

        return register(fn_or_name) if callable(fn_or_name) else register

    def add_tool(self, fn: Callable[..., Any], **options: Unpack[ToolOptions]) -> None:
        """Adds a tool, with :meth:`tool`'s options; connected clients are told the list
        changed.

        A name is registered once: ``remove_tool`` first to replace it. What the function
        returns becomes the result by the core's rules, the same in every language: text,
        content (``Image``, ``TextContent``…), lists of them, or data (sent as its JSON
        text, and as ``structuredContent`` when the return annotation gives an output
        schema, wrapped as ``{"result": …}`` unless it is an object).
        """
        registration = tool_registration(self._conventions, self._context, fn, **options)
        self._components.add(registration.kind, registration.definition, *registration.rest, titled=registration.titled)

    def remove_tool(self, name: str) -> bool:
        """Removes a tool; returns whether it existed."""
        return self._components.remove("tool", name)

    # Listing and mounting

    async def list_tools(self) -> list[types.Tool]:
        """The tools registered, those of mounted servers included, as a client gets them
        listed (what low-level handlers list is not among them)."""
        return [types.Tool.model_validate(d) for d in self._components.definitions("tool")]

    async def list_resource_templates(self) -> list[types.ResourceTemplate]:
        """The resource templates registered, as :meth:`list_tools` gives the tools."""
        return [types.ResourceTemplate.model_validate(d) for d in self._components.definitions("template")]

    async def list_prompts(self) -> list[types.Prompt]:
        """The prompts registered, as :meth:`list_tools` gives the tools."""
        return [types.Prompt.model_validate(d) for d in self._components.definitions("prompt")]

    async def _listed_resources(self) -> list[types.Resource]:
        """What ``await server.list_resources()`` gives: the resources registered."""
        return [types.Resource.model_validate(d) for d in self._components.definitions("resource")]

    # Calling the server from its own code

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        """Calls one of the server's tools as a client in this process would (the official
        SDK's ``await mcp.call_tool(name, arguments)``, in tests and in code that composes
        tools): through everything a request goes through here, interceptors and
        conventions included, within the server's lifespan. As the official SDK's, every
        failure of the tool raises :class:`~oxmcp.ToolError` with what the client reads (an
        unknown tool, arguments refused, the tool's own failure), a crash
        :class:`~oxmcp.UnexpectedToolError`."""
        async with self._own_client() as client:
            try:
                result = await client.call_tool(name, arguments)
            except McpError as error:
                if error.code != INVALID_PARAMS:
                    raise
                raise ToolError(error.message) from error
        if result.is_error:
            text = " ".join(block.text for block in result.content if isinstance(block, types.TextContent))
            raise (UnexpectedToolError if text == crashed_tool(name) else ToolError)(text)
        return result.model_copy(update={"is_error": False})

    async def read_resource(self, uri: str) -> list[types.ResourceContents]:
        """Reads one of the server's resources as :meth:`call_tool` calls a tool: its
        contents. One that does not exist raises :class:`~oxmcp.ResourceNotFoundError`, a
        ``ResourceError``'s failure :class:`~oxmcp.ResourceError`, a crash
        :class:`~oxmcp.UnexpectedResourceError`."""
        async with self._own_client() as client:
            try:
                return (await client.read_resource(str(uri))).contents
            except McpError as error:
                if error.code != INTERNAL_ERROR or error.data != {"uri": str(uri)}:
                    raise
                crashed = error.message in crashed_resource(str(uri))
                raise (UnexpectedResourceError if crashed else ResourceError)(error.message) from error

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> types.GetPromptResult:
        """Renders one of the server's prompts as :meth:`call_tool` calls a tool."""
        async with self._own_client() as client:
            return await client.get_prompt(name, arguments)

    @contextlib.asynccontextmanager
    async def _own_client(self) -> AsyncIterator[Client]:
        """A client of this server in this process, connected for one request in the
        2026-07-28 era (no handshake to make)."""
        from ..client import Client

        async with Client(self, era="modern") as client:
            yield client

    def mount(
        self, server: Server[Any], namespace: str | None = None, tool_names: dict[str, str] | None = None
    ) -> None:
        """Serves ``server``'s tools, resources, templates and prompts here too, as FastMCP's
        ``mount`` does: with a ``namespace``, tool and prompt names get ``namespace_`` in
        front and URIs ``namespace/`` after their scheme (``weather://forecast`` is
        ``weather://ns/forecast``); ``tool_names`` renames tools first. What ``server``
        adds or removes later is added or removed here; its handlers run as they would
        there, and its lifespan is entered with this server's. A name this server has
        already keeps what has it: its own, or the first mounted server's. What
        ``server`` proxies (:meth:`proxy`) is served here too, under the namespace
        (``tool_names`` does not rename it), after this server's own proxy; what its
        low-level handlers and listers serve is not. Its skills are served here too, those
        it has and those it is given later, under the namespace (``skill://ns/review/SKILL.md``)."""
        server._components.mount(self._components, namespace, tool_names)
        self._mounted.append((server, namespace))
        server._mounted_on.append((self, namespace))
        server._share_skills()

    def _share_skills(self) -> None:
        """Serves the skills this server has on the servers it is mounted on, under their
        namespaces, and so on up (a skill at a URI one serves already keeps what it has)."""
        for parent, namespace in self._mounted_on:
            parent._native.add_skills_of(self._native, namespace)
            parent._share_skills()

    def proxy(self, upstream: Client | UpstreamFactory) -> None:
        """Serves what the server ``upstream`` connects to offers, after this server's own:
        its tools, prompts, resources and templates, listed page by page and forwarded
        through the client, and its completions. A forwarded call's progress comes back as
        it arrives, its caller cancelling cancels it, and the other server's errors come
        back as it answered them. ``upstream`` is connected while this server serves,
        unless it is connected already (then it stays so). What a 2026-07-28 server asks
        (elicitation, sampling, roots) goes to the caller, in either era. A server of an
        earlier revision asks a caller of such a revision, on its session, when its question
        can be related to that caller's call (it came on the call's Streamable HTTP stream;
        over stdio, the call is the only one pending); otherwise (a 2026-07-28 caller's
        call, or several pending over stdio) ``upstream``'s handlers answer (a server asks
        only what they say they answer). Log messages the other server sends about a call
        reach its caller at the caller's level, and the list changes it tells reach every
        client.

        ``upstream`` may be a function that makes the client (or an ``async`` one), called
        when this server first serves. A server that cannot be reached then is tried
        again, less and less often (from 1 s up to every 30 s), while this one serves the
        rest; once it answers, what it offers is served and clients are told the lists
        changed."""
        self._upstream = upstream

    # Resources

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        annotations: Annotations | dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        completions: dict[str, Completer] | None = None,
        scopes: list[str] | None = None,
        security: ResourceSecurity | None = None,
    ) -> Callable[[Handler], Handler]:
        """Registers a function as a resource at ``uri``, or as a resource template when
        ``uri`` has ``{variables}`` (the function's parameters, by name).

        Return str (text), bytes (a blob), resource contents, or data (sent as JSON).
        ``completions`` maps template variables to ``complete(value, context)`` functions;
        ``scopes`` are those a caller's token must grant to read it (as for tools);
        ``security`` checks a template's variables before the function is called (by
        default the server's ``resource_security``: a value that climbs out of a path, an
        absolute path or a NUL byte is answered as a resource that does not exist).
        """

        def register(fn: Handler) -> Handler:
            # The base's: a subclass's `add_resource` may take other things first.
            Server.add_resource(
                self,
                fn,
                uri,
                name=name,
                title=title,
                description=description,
                mime_type=mime_type,
                annotations=annotations,
                icons=icons,
                meta=meta,
                completions=completions,
                scopes=scopes,
                security=security,
            )
            return fn

        return register

    @overload
    def add_resource(self, resource: Resource, /) -> None: ...

    @overload
    def add_resource(
        self,
        fn: Callable[..., Any],
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        annotations: Annotations | dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        completions: dict[str, Completer] | None = None,
        scopes: list[str] | None = None,
        security: ResourceSecurity | None = None,
    ) -> None: ...

    def add_resource(
        self,
        fn: Callable[..., Any] | Resource,
        uri: str | None = None,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        annotations: Annotations | dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        completions: dict[str, Completer] | None = None,
        scopes: list[str] | None = None,
        security: ResourceSecurity | None = None,
    ) -> None:
        """Adds a resource or resource template, its URI (template) registered once: a
        function at ``uri`` (as :meth:`resource` registers it), or a
        :class:`~oxmcp.resources.Resource` (``TextResource``, ``FileResource``...), read at
        each request, its ``_meta`` sent with its contents (as the official SDK's
        ``add_resource``). A function's ``meta`` is listed, and given to each content it
        reads that has none of its own, as both Python SDKs do."""
        if _is_resource(fn):
            self.resource(fn.uri, **fn.listed())(fn.reader())
            return
        if uri is None:
            raise TypeError("add_resource: a function needs the URI it is read at")
        fn = self._conventions.injected(fn)
        spec = inspect_function(fn)
        conventions = self._conventions
        definition = _definition(
            {
                "name": name or spec.name,
                "title": title,
                "description": description
                if _is_resource(getattr(fn, "__self__", None))
                else conventions.resource_description(description, spec),
                "mimeType": conventions.resource_mime_type(mime_type, spec),
                "annotations": annotations,
                "icons": icons,
                "_meta": conventions.listed_meta(meta),
            }
        )
        variables = _native.uri_template_variables(uri)
        value = conventions.resource_value()
        if not variables:
            if spec.parameters:
                raise TypeError(f"resource {uri}: a static resource takes no parameters (besides a Context)")

            def no_arguments(uri: str, variables: dict[str, str], native_ctx: _native.Context) -> Arguments:
                return {}, native_ctx

            self._components.add(
                "resource",
                {**definition, "uri": uri},
                _handler(fn, spec, no_arguments, self._context, value, _read_failure(conventions)),
                scopes,
                conventions.contents_meta(meta),
            )
            return
        _check_template_parameters(uri, variables, spec)
        coercers = {p.name: template_coercer(p.annotation) for p in spec.parameters}

        screening = security or self._resource_security
        not_found = conventions.unknown_resource_error or "Resource not found: {uri}"

        def variables_of(uri: str, variables: dict[str, str], native_ctx: _native.Context) -> Arguments:
            if screening.refuses(variables):
                raise ResourceNotFoundError(uri, not_found.format(uri=uri))
            return _coerce_strings(variables, spec, coercers, f"resource {uri}"), native_ctx

        self._components.add(
            "template",
            {**definition, "uriTemplate": uri},
            _handler(fn, spec, variables_of, self._context, value, _read_failure(conventions, True)),
            _completers(completions),
            scopes,
            conventions.contents_meta(meta),
        )

    def add_skills(self, directory: str | PathLike[str]) -> None:
        """Serves the Agent Skills under ``directory`` besides those the server has (as
        ``skills=`` does): their files are read now, clients are told the resource list
        changed; a skill at a URI the server already serves keeps what it has. An invalid
        skill, or a skill file's URI that another resource has, raises ``ValueError`` and
        adds nothing. The servers it is mounted on serve them too."""
        self._native.add_skills(directory)
        self._share_skills()

    def add_skill(self, path: str, files: Mapping[str, str | bytes]) -> None:
        """Serves the skill at ``path`` below ``skill://`` (``"ops/deploy"``, its last
        segment the skill's name) whose files are ``files`` (text or bytes by their path in
        the skill, ``SKILL.md`` among them), as :meth:`add_skills` serves one read from a
        directory."""
        given = [(file, content.encode() if isinstance(content, str) else content) for file, content in files.items()]
        self._native.add_skill(path, given)
        self._share_skills()

    def remove_resource(self, uri: str) -> bool:
        """Removes a resource, or a template by its URI template; returns whether it existed."""
        return self._components.remove(resource_kind(uri), uri)

    def notify_resource_updated(self, uri: str) -> None:
        """Tells clients subscribed to ``uri`` that it changed."""
        self._native.notify_resource_updated(uri)

    # Prompts

    @overload
    def prompt(self, fn: Handler, /) -> Handler: ...

    @overload
    def prompt(
        self,
        name_: str | None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        completions: dict[str, Completer] | None = None,
        scopes: list[str] | None = None,
    ) -> Callable[[Handler], Handler]: ...

    def prompt(
        self,
        fn_or_name: Any = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        completions: dict[str, Completer] | None = None,
        scopes: list[str] | None = None,
    ) -> Any:
        """Registers a function as a prompt: ``@server.prompt``, ``@server.prompt()``,
        ``@server.prompt("name", ...)`` or ``@server.prompt(name="name", ...)``.

        Parameters become the prompt's arguments (required unless they have a default).
        Return text (one user message), :class:`~oxmcp.types.PromptMessage` values, or a list.
        ``completions`` maps argument names to ``complete(value, context)`` functions;
        ``scopes`` are those a caller's token must grant to get it (as for tools).
        """

        def register(fn: Handler) -> Handler:
            # The base's: a subclass's `add_prompt` may take other things first.
            Server.add_prompt(
                self,
                fn,
                name=name or (None if callable(fn_or_name) else fn_or_name),
                title=title,
                description=description,
                icons=icons,
                meta=meta,
                completions=completions,
                scopes=scopes,
            )
            return fn

        return register(fn_or_name) if callable(fn_or_name) else register

    def add_prompt(
        self,
        fn: Callable[..., Any] | Prompt,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        completions: dict[str, Completer] | None = None,
        scopes: list[str] | None = None,
    ) -> None:
        """Adds a prompt, its name registered once: a function (as :meth:`prompt` registers
        it) or a :class:`~oxmcp.prompts.Prompt` (``Prompt.from_function(fn, ...)``, as the
        official SDK's ``add_prompt``)."""
        from ..prompts import Prompt

        if isinstance(fn, Prompt):
            self.prompt(**fn.listed() | _drop_none({"completions": completions, "scopes": scopes}))(fn.fn)
            return
        fn = self._conventions.injected(fn)
        spec = inspect_function(fn)
        described = self._conventions.argument_description
        arguments = [
            _drop_none({"name": p.name, "description": described(spec, p), "required": p.required})
            for p in spec.parameters
        ]
        definition = _definition(
            {
                "name": name or spec.name,
                "title": title,
                "description": self._conventions.description(description, spec),
                "arguments": arguments or None,
                "icons": icons,
                "_meta": self._conventions.listed_meta(meta),
            }
        )
        coercers = {p.name: string_coercer(p.annotation) for p in spec.parameters}

        def arguments_of(arguments: dict[str, str], native_ctx: _native.Context) -> Arguments:
            return _coerce_strings(arguments, spec, coercers, f"prompt {definition['name']}"), native_ctx

        failure = _failure_of(self._conventions.prompt_failure, definition["name"])
        handler = _handler(fn, spec, arguments_of, self._context, failure=failure)
        self._components.add("prompt", definition, handler, _completers(completions), scopes)

    def remove_prompt(self, name: str) -> bool:
        """Removes a prompt; returns whether it existed."""
        return self._components.remove("prompt", name)

    # Completion

    @overload
    def completion(self, fn: Handler, /) -> Handler: ...

    @overload
    def completion(self, fn: None = None, /) -> Callable[[Handler], Handler]: ...

    def completion(self, fn: Callable[..., Any] | None = None, /) -> Any:
        """Registers the server's completion handler, as the official SDK's
        ``@mcp.completion()`` (and FastMCP's ``@mcp.completion``)::

            @server.completion()
            async def complete(ref, argument, context):
                if isinstance(ref, PromptReference) and argument.name == "language":
                    return Completion(values=["python", "rust"])
                return None

        It completes the arguments of prompts and resource templates that have no
        completer of their own (``completions=`` of :meth:`prompt` and :meth:`resource`):
        ``ref`` is a :class:`~oxmcp.types.PromptReference` or
        :class:`~oxmcp.types.ResourceTemplateReference`, ``argument`` a
        :class:`~oxmcp.types.CompletionArgument`, ``context`` a
        :class:`~oxmcp.types.CompletionContext` or None, each of the type the function
        annotates (the official SDK's ``mcp.types`` ones too; those of the official SDK,
        when it is installed, for what it leaves unannotated on a server of its
        conventions: ``MCPServer``, either ``FastMCP``). It returns a
        :class:`~oxmcp.types.Completion`, a list of values, or None (no values)."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._native.set_completer(_completer(fn, self._conventions.official_models))
            return fn

        return register if fn is None else register(fn)

    def list_resources(self) -> ResourceListing:
        """Awaited, the resources registered (``await server.list_resources()``, as
        :meth:`list_tools` gives the tools); called with a function, registers what lists
        the resources not registered up front (the files of a directory, the rows of a
        table), page by page, as the official SDK's low-level ``@server.list_resources()``::

            @server.list_resources()
            async def files(cursor: str | None) -> tuple[list[Resource], str | None]:
                page, next_cursor = await catalog.page(cursor)
                return [Resource(uri=f"file:///{name}", name=name) for name in page], next_cursor

        The function gets the cursor (None for the first page; else the one it gave last)
        and, in a parameter annotated :class:`Context`, the context. It returns the page's
        resources (:class:`~oxmcp.types.Resource` or dicts), with the next page's cursor as
        a pair, or a ``resources/list`` result. ``resources/list`` gives the registered
        resources first; a resource template usually reads what it lists."""
        return ResourceListing(self)

    def intercept(self, interceptor: Interceptor) -> None:
        """Runs ``interceptor(request, call_next)`` around every request but the handshake
        from now on (replacing the one before; FastMCP's middleware is one): ``request``
        has the ``method``, the ``params`` as sent (``_meta`` too) and the ``ctx``;
        ``await call_next()`` runs the method (``call_next(params)`` with other params) and
        gives its result, or raises the :class:`~oxmcp.McpError` it answered with. What the
        interceptor returns (a dict) is the result, what it raises the error: logging,
        timing, rate limits, a list filtered, a call's arguments rewritten. It runs in the
        core's dispatcher, in both eras; what it passes on unchanged is sent as the method
        gave it.

        ::

            async def timed(request, call_next):
                started = time.perf_counter()
                try:
                    return await call_next()
                finally:
                    print(request.method, time.perf_counter() - started, file=sys.stderr)

            server.intercept(timed)
        """

        async def run(method: str, params: Any, native: _native.Context, call_next: NextMethod) -> Any:
            request = InterceptedRequest(method, params, self._context(Context, native))
            return await interceptor(request, call_next)

        self._native.set_interceptor(run)

    #: Whether ``middleware`` holds the official SDK's middleware (FastMCP's is its own).
    _runs_official_middleware: ClassVar[bool] = True

    def _run_official_middleware(self) -> None:
        """Runs ``self.middleware`` around each request, as the official SDK's server does."""
        chain = self.middleware

        async def run(method: str, params: Any, native: _native.Context, call_next: NextMethod) -> Any:
            async def through(index: int, ctx: ServerRequestContext[Any]) -> Any:
                if index == len(chain):
                    return await call_next(ctx.params)
                return result_object(await chain[index](ctx, functools.partial(through, index + 1)))

            return await through(0, ServerRequestContext(native, self._lifespan_state, self, method, params))

        self._native.set_interceptor(run)

    def request_handler(self, method: str) -> Callable[[Handler], Handler]:
        """Answers requests of ``method``, one the protocol does not define (an
        extension's)::

            @server.request_handler("weather/forecast")
            async def forecast(params: Forecast, ctx: Context) -> dict[str, Any]:
                return {"city": params.city, "forecast": "sunny"}

        The function's parameter gets the request's params as the type it annotates (a
        pydantic model, a dataclass, a dict; params that do not fit are -32602), and a
        parameter annotated :class:`Context` the context. It returns the result: a dict or
        a pydantic model. A method of the protocol cannot be taken over."""

        def register(fn: Handler) -> Handler:
            failure = _failure_of(request_failure, method)
            self._native.add_request_handler(method, _method_handler(fn, method, self._context, failure=failure))
            return fn

        return register

    def notification_handler(self, method: str) -> Callable[[Handler], Handler]:
        """Acts on notifications of ``method``: an extension's, or
        ``notifications/roots/list_changed``, which a client of 2025-11-25 or older sends
        when its roots change::

            @server.notification_handler("notifications/roots/list_changed")
            async def roots_changed(params: dict[str, Any] | None, ctx: Context) -> None:
                roots = await ctx.list_roots()

        The function takes the params and the context as :meth:`request_handler`'s does;
        the context is the session's (``ctx.request_id`` is None), so what it asks of the
        client goes on the session. What it returns is dropped, and what it raises is
        logged (a notification has no answer)."""

        def register(fn: Handler) -> Handler:
            handler = _logging_failures(_method_handler(fn, method, self._context), method)
            self._native.add_notification_handler(method, handler)
            return fn

        return register

    def add_request_handler(self, method: str, params_type: type[Any], handler: Callable[..., Any]) -> None:
        """The official SDK's way to answer requests of ``method``: ``handler(ctx, params)``
        gets the params checked as ``params_type`` (-32602 when they do not fit), as
        :meth:`request_handler` serves it."""
        self.request_handler(method)(_taking_params(params_type, handler))

    def add_notification_handler(self, method: str, params_type: type[Any], handler: Callable[..., Any]) -> None:
        """The official SDK's way to act on notifications of ``method``: ``handler(ctx,
        params)``, as :meth:`notification_handler` serves it."""
        self.notification_handler(method)(_taking_params(params_type, handler))

    def add_extension(self, extension: Extension) -> None:
        """Adds an :class:`~oxmcp.server.extension.Extension`: declares it with its
        settings, registers its tools and resources, serves its methods, and runs its
        ``intercept_tool_call`` around every tool call (the first added outermost)."""
        add_extension(self, extension)

    def extension(self, id: str, settings: dict[str, Any] | None = None) -> None:
        """Declares extension ``id`` in the capabilities 2026-07-28 clients see, with its
        settings (``{}`` for none); its methods are served by :meth:`request_handler`."""
        self._native.declare_extension(id, settings or {})

    # Serving

    async def serve_stdio(self) -> None:
        """Serves stdin and stdout until stdin closes, on the running asyncio loop.

        While it serves, ``print()`` goes to stderr: stdout carries only protocol messages.
        """
        # The lifespan's prints must not reach stdout either.
        with contextlib.redirect_stdout(sys.stderr):
            async with self._living():
                await self._native.serve_stdio()

    async def start_http(self, host: str = "127.0.0.1", port: int = 8000, **options: Unpack[HttpOptions]) -> HttpServer:
        """Starts serving Streamable HTTP (both protocol eras on one endpoint) on the
        running asyncio loop and returns once the port is bound; ``port=0`` picks a free
        one (read it from the returned :class:`HttpServer`). Close it when done::

            http = await server.start_http(port=0)
            print(http.url)          # http://127.0.0.1:54321/mcp
            ...
            await http.close()

        Listen on ``127.0.0.1`` (the default) unless a proxy guards the server. The
        options are those of :class:`HttpOptions`.
        """
        config = _native.HttpConfig(**{**self._auth_http_options, **options})
        return HttpServer(await self._native.start_http(host, port, config))

    async def serve_http(
        self, host: str = "127.0.0.1", port: int = 8000, *, announce: bool = False, **options: Unpack[HttpOptions]
    ) -> None:
        """Serves Streamable HTTP on the running loop until cancelled, then closes the
        listener. ``announce`` tells the URL on stderr once listening; the other
        arguments are those of :meth:`start_http`."""
        async with self._living(), await self.start_http(host, port, **options) as http:
            if announce:
                _announce(http.url)
            await http.wait()

    def http_app(
        self,
        path: str | None = None,
        *,
        transport: Literal["http", "streamable-http", "sse"] = "http",
        middleware: Sequence[Any] = (),
        host: str | None = None,
        **options: Any,
    ) -> HttpApp:
        """The Streamable HTTP endpoint as an ASGI application, to mount in Starlette or
        FastAPI next to other routes (``app.mount("/", server.http_app())``), or to run
        alone (``uvicorn module:app``); it serves at ``path`` (default ``/mcp``) within
        wherever it is mounted, as :meth:`run` would with ``transport="http"``. Give the
        parent app ``lifespan=mcp_app.lifespan`` (or enter it in the parent's lifespan) so
        that the endpoint shuts down with the app; without it, the endpoint starts on the
        first request and stays up.

        ``transport="sse"`` adds the 2024-11-05 ``/sse`` and ``/messages`` endpoints;
        ``middleware`` wraps the app in Starlette ``Middleware`` entries; ``host``, the
        address the app is served on, accepts any ``Host`` header when it is not a loopback
        address (a remote server), as the official SDK does; the other options are those of
        :class:`HttpOptions`, under their names or the official SDK's (``stateless_http``,
        ``streamable_http_path``, ``transport_security``, ``retry_interval``,
        ``custom_starlette_routes`` served beside the endpoint, and a low-level server's
        ``auth`` and ``token_verifier``, which this app checks; an
        ``event_store`` is taken and not needed: the core keeps each stream's events for
        resumption itself)."""
        from ..asgi import HttpApp

        if path is not None:
            options["path"] = path
        if transport == "sse":
            options.setdefault("legacy_sse", True)
        routes = options.pop("custom_starlette_routes", ())
        auth, token_verifier = options.pop("auth", None), options.pop("token_verifier", None)
        if auth is None and token_verifier is None:
            config = _native.HttpConfig(**{**self._auth_http_options, **_http_options(options, host)})
        else:
            # A low-level server's auth, given with the app as the official SDK takes it.
            verifier, auth_options = resource_server(auth, token_verifier)
            endpoint_verifier = None if verifier is None else native_verifier(verifier)
            config = _native.HttpConfig(**{**auth_options, **_http_options(options, host)}, verifier=endpoint_verifier)
        app = HttpApp(self, config, middleware, [*self._custom_routes, *routes])
        self._http_apps.append(app)
        return app

    def custom_route(
        self, path: str, methods: Sequence[str], name: str | None = None, include_in_schema: bool = True
    ) -> Callable[[Handler], Handler]:
        """Registers an HTTP route of the server's own beside its endpoint (a health check,
        a webhook), as the official SDK's and FastMCP's ``@mcp.custom_route`` do: an
        ``async def`` taking a Starlette ``Request`` and returning a ``Response``, served by
        :meth:`http_app` and by :meth:`run` over HTTP (through uvicorn, which Starlette's
        routing needs)."""

        def register(fn: Handler) -> Handler:
            from starlette.routing import Route

            self._custom_routes.append(
                Route(path, endpoint=fn, methods=list(methods), name=name, include_in_schema=include_in_schema)
            )
            return fn

        return register

    def streamable_http_app(self, **options: Any) -> HttpApp:
        """The official SDK's name for :meth:`http_app`, with its options
        (``streamable_http_path``, ``json_response``, ``stateless_http``, ``host``)."""
        return self.http_app(**options)

    def sse_app(self, **options: Any) -> HttpApp:
        """The endpoint with the 2024-11-05 HTTP+SSE transport (``/sse`` and ``/messages``),
        as an ASGI application: :meth:`http_app` with ``transport="sse"``."""
        return self.http_app(transport="sse", **options)

    @property
    def session_manager(self) -> SessionManager:
        """What the official SDK's apps enter in their lifespan (``async with
        mcp.session_manager.run():``): the lifespans of the ASGI apps made so far."""
        if not self._http_apps:
            raise RuntimeError("the session manager exists once an app was made: call streamable_http_app() first")
        return SessionManager(self._http_apps)

    @contextlib.asynccontextmanager
    async def _living(self) -> AsyncIterator[None]:
        """Within the lifespans of the server and of the servers mounted on it, and
        connected to the server it proxies: entered by the first that serves the server,
        left when the last one stops."""
        if self._living_users == 0 and self.middleware and self._runs_official_middleware:
            self._run_official_middleware()
        if self._lifespan is None and not self._mounted and self._upstream is None:
            yield
            return
        if self._living_users == 0:
            # The lifespan first: it may mount servers (a proxy of a server it starts).
            if self._lifespan is not None:
                self._lifespan_state = await self._lifespan_exit.enter_async_context(self._lifespan(self))
            for server, _ in self._mounted:
                await self._lifespan_exit.enter_async_context(server._living())
            if callable(self._upstream):
                made = self._upstream()
                self._upstream = await made if inspect.isawaitable(made) else made
            if (upstream := self._upstream) is not None and not upstream.connected:
                self._lifespan_exit.push_async_callback(upstream.close)
                try:
                    await upstream.connect()
                except Exception:
                    # The server it proxies is down: the rest is served all the same (a
                    # gateway's other servers), what it proxies once it answers.
                    _log.exception("server %r: the server it proxies cannot be reached; trying again", self.name)
                keeping = asyncio.ensure_future(self._keep_connected(upstream))
                self._lifespan_exit.callback(keeping.cancel)
            if proxies := self._proxies():
                self._native.serve_proxies(proxies)
        self._living_users += 1
        try:
            yield
        finally:
            self._living_users -= 1
            if self._living_users == 0:
                self._lifespan_state = None
                await self._lifespan_exit.aclose()

    async def _keep_connected(self, upstream: Client) -> None:
        """Keeps ``upstream``, the client of the server this one proxies, connected while
        this one serves: tries again, less and less often, while that server cannot be
        reached, or once it went away (meanwhile what it offered is not served); serves
        what it offers here and on the servers this one is mounted on once it answers."""
        while True:
            if upstream.connected:
                await upstream.closed()
                _log.warning("server %r: the server it proxies went away; trying to reach it again", self.name)
                await upstream.close()
                self._offer_proxies()
            delay = _REACH_FIRST_DELAY
            while not upstream.connected:
                await asyncio.sleep(delay)
                try:
                    await upstream.connect()
                except Exception as error:
                    _log.debug("server %r: the server it proxies still cannot be reached: %s", self.name, error)
                    delay = min(delay * 2, _REACH_LONGEST_DELAY)
            _log.info("server %r: the server it proxies answers; serving what it offers", self.name)
            self._offer_proxies()

    def _offer_proxies(self) -> None:
        """Serves what this server and those mounted on it proxy, here and on the servers
        it is mounted on, and so on up."""
        self._native.serve_proxies(self._proxies())
        for parent, _ in self._mounted_on:
            parent._offer_proxies()

    def _proxies(self) -> list[tuple[_native.Client, list[str]]]:
        """What this server proxies, and what the servers mounted on it proxy, with the
        namespaces their names go under (the outermost first: the server's own namespace
        transforms, then the mounts'); their clients connected (one that could not be is
        left out)."""
        own: list[tuple[_native.Client, list[str]]] = []
        if self._upstream is not None and not callable(self._upstream) and self._upstream.connected:
            own.append((self._upstream._connection, []))
        proxied = own + [
            (client, [namespace, *namespaces] if namespace is not None else namespaces)
            for server, namespace in self._mounted
            for client, namespaces in server._proxies()
        ]
        outer = self._components.namespaces()
        return [(client, [*outer, *namespaces]) for client, namespaces in proxied]

    def _lifespan_context(self) -> Any:
        return self._lifespan_state

    def _context(self, context_type: type[ContextT], native: _native.Context) -> ContextT:
        """The context of type ``context_type`` a handler of this server gets."""
        return context_type(native, self._lifespan_state, self)

    def create_initialization_options(self, *_: Any, **__: Any) -> dict[str, Any]:
        """Who the server is, as a low-level server written for the official SDK passes it
        to :meth:`run` (which needs nothing from it: the core answers the handshake)."""
        return {"server_name": self.name}

    @overload
    def run(self, transport: Literal["stdio", "http", "streamable-http", "sse"] = "stdio", **options: Any) -> None: ...

    @overload
    def run(
        self,
        read_stream: StdioStream,
        write_stream: StdioStream,
        initialization_options: Any = None,
        /,
        *,
        raise_exceptions: bool = False,
    ) -> Coroutine[Any, Any, None]: ...

    def run(self, transport: Any = "stdio", *streams: Any, **options: Any) -> Any:
        """Serves until Ctrl-C: stdio (the default; also until stdin closes), or
        Streamable HTTP with ``transport="http"`` (or ``"streamable-http"``) and the options
        of :meth:`serve_http` (``host``, ``port``, ``path``, ...), telling its URL on
        stderr; ``"sse"`` adds the 2024-11-05 ``/sse`` and ``/messages`` endpoints.

        The first Ctrl-C stops serving and lets requests in flight finish (over HTTP, up to
        the ``shutdown_timeout``); a second one cancels them and stops at once.

        Given the streams of ``oxmcp.server.stdio.stdio_server()`` (a low-level server
        written for the official SDK), it returns the coroutine that serves stdio."""
        if isinstance(transport, StdioStream):
            options.pop("raise_exceptions", None)
            if options or not 1 <= len(streams) <= 2 or not isinstance(streams[0], StdioStream):
                raise TypeError("run(read_stream, write_stream, initialization_options) takes stdio_server()'s streams")
            return self.serve_stdio()
        if streams:
            raise TypeError("run() takes the transport, or stdio_server()'s streams")
        serving = self._serving(transport, options)
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_until_interrupted(serving))

    async def run_async(
        self, transport: Literal["stdio", "http", "streamable-http", "sse"] = "stdio", **options: Any
    ) -> None:
        """:meth:`run` in the event loop that awaits it (FastMCP's ``await mcp.run_async()``):
        serves until cancelled (or, over stdio, until stdin closes)."""
        await self._serving(transport, options)

    async def run_stdio_async(self, **options: Any) -> None:
        """Serves stdio in the event loop that awaits it (FastMCP's ``show_banner`` and
        ``log_level`` taken and left aside)."""
        await self.run_async("stdio", **options)

    async def run_http_async(
        self, transport: Literal["http", "streamable-http", "sse"] = "http", **options: Any
    ) -> None:
        """Serves Streamable HTTP (``"sse"``: with the 2024-11-05 endpoints) in the event loop
        that awaits it, with :meth:`run`'s options."""
        await self.run_async(transport, **options)

    async def run_streamable_http_async(self) -> None:
        """Serves Streamable HTTP with the default options (the official SDK's name)."""
        await self.run_async("http")

    async def _serve_app(self, transport: Any, host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
        """Serves :meth:`http_app` (the endpoint and the server's own routes) with uvicorn,
        on a socket bound first so that the URL told is the one served (port 0: any)."""
        try:
            import uvicorn
        except ImportError as error:
            raise ImportError(
                "a server with custom routes is served over HTTP by uvicorn: pip install uvicorn"
            ) from error
        app = self.http_app(transport=transport, host=host, **options)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.create_server((host.strip("[]"), port), family=family) as bound:
            url_host = f"[{host.strip('[]')}]" if family == socket.AF_INET6 else host
            _announce(f"http://{url_host}:{bound.getsockname()[1]}{app.path}")
            server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_level="warning"))
            serving = asyncio.ensure_future(server.serve(sockets=[bound]))
            try:
                await asyncio.shield(serving)
            except asyncio.CancelledError:
                # Stopped (Ctrl-C): uvicorn ends its requests and the app's lifespan first.
                server.should_exit = True
                await serving

    def _serving(self, transport: str, options: dict[str, Any]) -> Coroutine[Any, Any, None]:
        """What serves ``transport`` with :meth:`run`'s ``options``, FastMCP's ``show_banner``
        and ``log_level`` left aside (no banner is shown; logging is the application's)."""
        options = {key: value for key, value in options.items() if key not in ("show_banner", "log_level")}
        if transport in ("http", "streamable-http", "sse") and self._custom_routes:
            return self._serve_app(transport, **options)
        if transport in ("http", "streamable-http", "sse"):
            if transport == "sse":
                options.setdefault("legacy_sse", True)
            return self.serve_http(announce=True, **_http_options(options))
        if transport == "stdio":
            if options:
                raise TypeError(f"the stdio transport takes no options: {', '.join(options)}")
            return self.serve_stdio()
        raise ValueError(f"unknown transport {transport!r}; use 'stdio', 'http', 'streamable-http' or 'sse'")


class MCPServer(Server[LifespanT]):
    """The official SDK's server (``from mcp.server.mcpserver import MCPServer``): its servers
    run on oxmcp with the import line changed to ``from oxmcp import MCPServer``, and their
    clients read what the official SDK's would, a tool's meant failure worded ``Error
    executing tool <name>: <its text>`` too. ``extensions`` are added as
    :meth:`add_extension` adds them."""

    _conventions = OfficialConventions()

    def __init__(self, *args: Any, extensions: Sequence[Extension] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for extension in extensions:
            self.add_extension(extension)


FastMCP = MCPServer
"""The official SDK 1.x's name for a server (``from mcp.server.fastmcp import FastMCP``);
FastMCP's own is :class:`oxmcp.fastmcp.FastMCP`."""


class ResourceListing:
    """What :meth:`Server.list_resources` gives: awaited, the resources registered (the
    way FastMCP's servers list them); called with a function, registers it as the lister of
    the resources not registered (the way the official low-level server's decorator
    does)."""

    __slots__ = ("_server",)

    def __init__(self, server: Server[Any]) -> None:
        self._server = server

    def __await__(self) -> Generator[Any, None, list[types.Resource]]:
        return self._registered().__await__()

    async def _registered(self) -> list[types.Resource]:
        return await self._server._listed_resources()

    def __call__(self, fn: Handler) -> Handler:
        server = self._server
        failure = _failure_of(request_failure, "resources/list")
        lister = _method_handler(fn, "resources/list", server._context, _page, failure)
        server._native.serve_from_catalog("resources/list", lister)
        return fn


class ToolOptions(TypedDict, total=False):
    """:meth:`Server.add_tool`'s options."""

    name: str | None
    title: str | None
    description: str | None
    annotations: ToolAnnotations | dict[str, Any] | None
    icons: list[dict[str, Any]] | None
    meta: dict[str, Any] | None
    structured_output: bool | None
    input_schema: dict[str, Any] | None
    output_schema: dict[str, Any] | None
    scopes: list[str] | None
    task: TaskSupport
    asks_before_task: bool
    #: The arguments converted as pydantic's lax mode does (``"5"`` for an ``int`` is 5),
    #: not checked by the core against the input schema (FastMCP's default).
    lax_arguments: bool
    #: The arguments given to the function whole, as its one parameter ``arguments`` (a
    #: dict, checked against ``input_schema`` unless ``lax_arguments``): a tool whose
    #: arguments a schema says rather than the function's parameters.
    raw_arguments: bool


class HttpOptions(TypedDict, total=False):
    """Settings of the Streamable HTTP endpoint; each left out keeps its default."""

    path: str
    """The endpoint's path (default ``/mcp``)."""
    allowed_origins: list[str]
    """``Origin`` values allowed to call (default: pages from loopback hosts); requests
    without ``Origin`` (not from a browser) always pass."""
    allowed_hosts: list[str]
    """``Host`` names accepted, against DNS rebinding (default ``localhost``, ``127.0.0.1``,
    ``[::1]``, or any name when listening on a non-loopback address such as ``0.0.0.0``);
    an empty list accepts any: only behind a proxy that checks it."""
    stateless: bool
    """Serve the legacy era without sessions: no ``Mcp-Session-Id``, no GET stream."""
    json_response: bool
    """Answer every request with one JSON object, never an SSE stream (notifications sent
    during a request are then dropped)."""
    session_idle_timeout: float
    """Seconds an idle legacy session lives (default 30 minutes)."""
    new_session_timeout: float
    """Seconds a legacy session lives when its client sends nothing after ``initialize``
    (default 30)."""
    max_sessions: int
    """The most sessions at once, legacy and ``/sse`` together (default 10,000; past it
    ``initialize`` gets 503)."""
    body_limit: int
    """The largest request body in bytes (default 4 MiB; larger gets 413)."""
    header_read_timeout: float
    """Seconds a client may take to send a request's headers; also closes a kept-alive
    connection idle that long (default 10)."""
    body_read_timeout: float
    """Seconds a client may take to send a request's body (default 30; past it 408)."""
    max_connections: int
    """The most connections open at once (default 1024; more wait in the listen backlog)."""
    max_in_flight: int
    """The most requests in flight at once outside sessions: every modern-era request, and
    legacy ones when ``stateless`` (default 1024; past it a request gets an error at once).
    Each session's own bound is the server's ``max_in_flight``."""
    event_bytes_kept: tuple[int, int]
    """Bytes of SSE events kept for resumption, ``(per_session, total)`` (default 8 MiB and
    256 MiB; past them the oldest go first, or events are sent but not kept)."""
    shutdown_timeout: float
    """Seconds :meth:`HttpServer.close` lets requests in flight finish before it cancels
    them (default 10)."""
    sse_retry: float
    """Seconds a client whose SSE stream the server ended (``ctx.close_sse_stream()``)
    waits before it reconnects, the streams' ``retry`` (default 1; the official SDK's
    ``retry_interval`` is this in milliseconds)."""
    legacy_sse: bool
    """Also serve the deprecated HTTP+SSE transport of 2024-11-05 at ``/sse`` and
    ``/messages``."""
    cors_origins: list[str]
    """Origins given CORS headers (for browser clients)."""
    resource_url: str
    """With ``Server(auth=...)``: the endpoint's public URL, what tokens must be meant for
    (default: the URL it is bound to; its path must be the endpoint's)."""
    authorization_servers: list[str]
    """With ``auth``: the issuers clients are sent to for tokens (default: the verifier's)."""
    required_scopes: list[str]
    """With ``auth``: the scopes every request's token must grant (default none)."""
    scope_implies: dict[str, list[str]]
    """With ``auth``: scope hierarchies, each scope with those it implies, e.g.
    ``{"notes": ["notes:read", "notes:write"]}``."""
    list_only_permitted: bool
    """With ``auth``: list only the tools, resources and prompts the caller's scopes
    permit (default off: everything is listed, and calling one without its scopes gets
    ``403 insufficient_scope`` naming them, so that the client can step up). Such lists are
    marked ``cacheScope: "private"``."""
    dpop_nonces: bool
    """With ``auth``: DPoP proofs must carry the nonce the server hands out (RFC 9449 §9;
    default off)."""
    check_audience: bool
    """With ``auth``: a token must name ``resource_url`` in its audience (default on, as
    the MCP spec asks). Turn it off only for a verifier that checks the audience itself."""


class SessionManager:
    """The official SDK's ``mcp.session_manager``: ``run()`` is the lifespan of the
    server's ASGI apps."""

    __slots__ = ("_apps",)

    def __init__(self, apps: list[HttpApp]) -> None:
        self._apps = apps

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """Within it the apps serve; leaving it ends their sessions."""
        async with contextlib.AsyncExitStack() as stack:
            for app in self._apps:
                await stack.enter_async_context(app.lifespan())
            yield


def _announce(url: str) -> None:
    """Tells on stderr where the server serves Streamable HTTP."""
    print(f"oxmcp: serving Streamable HTTP at {url}", file=sys.stderr, flush=True)


async def _until_interrupted(serving: Awaitable[None]) -> None:
    """Awaits `serving`, which Ctrl-C cancels: once to stop gracefully, again to stop
    waiting for what is left. Ctrl-C is taken as a signal the loop handles, not as a
    ``KeyboardInterrupt`` raised wherever the loop happens to be (in a handler's task,
    whose end nobody would then read)."""
    loop = asyncio.get_running_loop()
    me = asyncio.current_task()
    if me is None or threading.current_thread() is not threading.main_thread():
        await serving
        return
    loop.add_signal_handler(signal.SIGINT, me.cancel)
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await serving
    finally:
        loop.remove_signal_handler(signal.SIGINT)


def _http_options(options: dict[str, Any], host: str | None = None) -> dict[str, Any]:
    """:class:`HttpOptions` from the keywords of :meth:`Server.run` and
    :meth:`Server.http_app`, which may use the official SDK's names. A ``host`` that is not
    a loopback address serves remote clients: any ``Host`` header is accepted unless
    ``allowed_hosts`` says otherwise (the official SDK's rule; the core's listener applies
    the same when bound)."""
    aliases = {"stateless_http": "stateless", "streamable_http_path": "path"}
    options = {aliases.get(name, name): value for name, value in options.items()}
    security = options.pop("transport_security", None)
    if security is not None:
        options = {**security.http_options(), **options}
    if (retry_ms := options.pop("retry_interval", None)) is not None:
        options["sse_retry"] = retry_ms / 1000
    # The core keeps every stream's events for resumption itself (``event_bytes_kept``).
    options.pop("event_store", None)
    if host is not None and host not in _LOOPBACK_HOSTS:
        options.setdefault("allowed_hosts", [])
    return options


_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


class HttpServer:
    """A running Streamable HTTP listener, from :meth:`Server.start_http`; ``async with``
    closes it."""

    __slots__ = ("_native",)

    def __init__(self, native: _native.HttpServer) -> None:
        self._native = native

    @property
    def url(self) -> str:
        """The endpoint's URL, e.g. ``http://127.0.0.1:8000/mcp``."""
        return self._native.url

    @property
    def host(self) -> str:
        """The address the listener is bound to."""
        return self._native.host

    @property
    def port(self) -> int:
        """The port the listener is bound to (the chosen one, for port 0)."""
        return self._native.port

    async def wait(self) -> None:
        """Waits until the listener is closed."""
        await self._native.wait()

    async def close(self) -> None:
        """Stops serving: the listener closes, streams that only wait for events end,
        requests in flight may finish until ``shutdown_timeout``, then they are cancelled
        and every connection is closed. Returns once all of that is done."""
        await self._native.close()

    async def __aenter__(self) -> HttpServer:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


def _request_state_options(
    security: RequestStateSecurity | None,
) -> tuple[list[bytes] | None, str | None, float | None]:
    """The keys, audience and TTL the core seals ``requestState`` with, from ``security``
    (None: the core's own keys and TTL)."""
    if security is None:
        return None, None, None
    if not isinstance(security, RequestStateSecurity):
        raise TypeError(
            "request_state_security: oxmcp seals requestState in its core and needs the keys; "
            "import RequestStateSecurity from oxmcp.server.request_state (the same arguments)"
        )
    return security.keys, security.audience, security.ttl


def resource_kind(uri: str) -> Literal["resource", "template"]:
    """Whether ``uri`` names a resource or, with variables, a resource template."""
    return "template" if _native.uri_template_variables(uri) else "resource"


def tool_registration(
    conventions: Conventions, context: ContextMaker, fn: Callable[..., Any], **options: Unpack[ToolOptions]
) -> _Registration:
    """What :meth:`Server.add_tool` registers: the tool's definition, made by `conventions`,
    and its handler, whose context `context` makes."""
    name, title, annotations = options.get("name"), options.get("title"), options.get("annotations")
    structured_output, output_schema = options.get("structured_output"), options.get("output_schema")
    input_schema = options.get("input_schema")
    fn = conventions.injected(fn)
    spec = inspect_function(fn)
    made = (
        conventions.output(spec.return_annotation, spec.name)
        if structured_output is not False
        else conventions.unstructured_output()
    )
    if output_schema is not None:
        if output_schema.get("type") != "object":
            raise TypeError(f'tool {spec.name}: an output schema describes an object ("type": "object")')
        made = Output(output_schema, False, None if made.wrapped else made.convert)
    schema = made.schema
    if structured_output and schema is None:
        raise TypeError(f"tool {spec.name}: structured output needs a return annotation of data, not content")
    name = name or spec.name
    annotations = _as_wire(annotations)
    definition = _definition(
        {
            "name": name,
            "title": conventions.tool_title(name, title, annotations),
            "description": conventions.description(options.get("description"), spec),
            "inputSchema": input_schema if input_schema is not None else conventions.input_schema(spec),
            "outputSchema": schema,
            "annotations": annotations,
            "icons": options.get("icons"),
            "_meta": conventions.listed_meta(options.get("meta")),
        }
    )
    output: Literal["content", "structured", "wrapped"] = (
        "content" if schema is None else "wrapped" if made.wrapped else "structured"
    )
    lax = options.get("lax_arguments", False)
    arguments_of: Callable[[Wire, _native.Context], Arguments]
    if options.get("raw_arguments", False):
        if input_schema is None:
            raise TypeError(f"tool {name}: raw_arguments needs the input_schema that says them")
        arguments_of = _whole_arguments
    else:
        arguments_of = _lax_arguments(spec, fn) if lax else _validated_arguments(spec)
    handler = _handler(fn, spec, arguments_of, context, made.convert, _failure_of(conventions.tool_failure, name))
    task, asks_before_task = options.get("task", "forbidden"), options.get("asks_before_task", False)
    return _Registration(
        "tool",
        definition,
        (handler, output, options.get("scopes"), task, asks_before_task, lax),
        titled=lambda name: conventions.tool_title(name, title, annotations),
    )


def _validated_arguments(spec: FunctionSpec) -> Callable[[Wire, _native.Context], Arguments]:
    """A tool's keyword arguments from those the core checked against its input schema:
    those of its parameters, in their annotated types."""
    coercers = {p.name: c for p in spec.parameters if (c := json_coercer(p.annotation)) is not None}
    accepted = {p.name for p in spec.parameters}

    def arguments_of(arguments: Wire, native_ctx: _native.Context) -> Arguments:
        kwargs = {
            key: coercers[key](value) if key in coercers else value
            for key, value in arguments.items()
            if key in accepted
        }
        return kwargs, native_ctx

    return arguments_of


def _whole_arguments(arguments: Wire, native_ctx: _native.Context) -> Arguments:
    """A tool's arguments as sent, as its one parameter ``arguments``."""
    return {"arguments": arguments}, native_ctx


def _lax_arguments(spec: FunctionSpec, fn: Callable[..., Any]) -> Callable[[Wire, _native.Context], Arguments]:
    """A tool's keyword arguments from those sent, unchecked by the core, converted as
    pydantic's lax mode converts them (:func:`~oxmcp._schema.lax_arguments`)."""
    checked = lax_arguments(fn, spec)

    def arguments_of(arguments: Wire, native_ctx: _native.Context) -> Arguments:
        return checked(arguments), native_ctx

    return arguments_of


def _handler(
    fn: Callable[..., Any],
    spec: FunctionSpec,
    arguments: Callable[..., Arguments],
    context: ContextMaker,
    convert: Callable[[Any], Any] | None = None,
    failure: Failure | None = None,
) -> Callable[..., Any]:
    """The function the native layer calls with its arguments (the last one the native
    context): ``arguments(*native)`` gives the keyword arguments of ``fn`` and the native
    context (of which ``context`` makes fn's); what ``fn`` returns goes to the core as it is,
    or as ``convert`` makes it; what fails, as ``failure`` words it. An ``async def`` ``fn``
    gets a coroutine function, run on the loop; a plain ``def`` gets a plain function, which
    the native layer runs on a worker thread."""

    def prepare(*native: Any) -> Call:
        kwargs, native_ctx = arguments(*native)
        if spec.context_parameter is not None:
            kwargs[spec.context_parameter] = context(spec.context_type, native_ctx)
        return (), kwargs

    return native_callable(fn, spec.is_async, prepare, convert, context, failure)


def _is_resource(value: Any) -> TypeIs[Resource]:
    """Whether ``value`` is a :class:`~oxmcp.resources.Resource`. Its module is not imported
    here: its models would cost every server's start-up 8 ms, and no value is one before
    it is imported."""
    resources = sys.modules.get("oxmcp.resources.base")
    return resources is not None and isinstance(value, resources.Resource)


def _failure_of(word: Callable[[str, Exception], Exception], name: str) -> Failure:
    """How a handler failing is answered, as ``word`` words it for ``name`` (the tool's,
    the prompt's or the argument's name, the method: the conventions' ``tool_failure``,
    ``prompt_failure``, ``completion_failure``, ``request_failure``)."""

    def failure(error: Exception, native: tuple[Any, ...]) -> Exception:
        return word(name, error)

    return failure


def _read_failure(conventions: Conventions, template: bool = False) -> Failure:
    """How a resource's (or, with ``template``, a template's) handler failing is answered,
    as ``conventions`` word it for the URI read (the first argument of the call)."""

    def failure(error: Exception, native: tuple[Any, ...]) -> Exception:
        return conventions.resource_failure(native[0], error, template=template)

    return failure


def _method_handler(
    fn: Callable[..., Any],
    method: str,
    context: ContextMaker,
    convert: Callable[[Any], Any] | None = None,
    failure: Failure | None = None,
) -> Callable[..., Any]:
    """A custom request's or a notification's handler as the native layer calls it, with
    the params and the native context: the params as the type the function's one
    parameter (beside the context) annotates; a result as a dict (or as `convert` makes
    it); what it raises, as ``failure`` words it."""
    spec = inspect_function(fn)
    if len(spec.parameters) > 1:
        raise TypeError(f"{spec.name}: a handler of {method} takes the params and a Context, nothing else")
    target = spec.parameters[0] if spec.parameters else None
    annotation = Any if target is None or target.annotation is inspect.Parameter.empty else target.annotation
    adapter: TypeAdapter[Any] = TypeAdapter(annotation)

    def arguments(params: Any, native_ctx: Any) -> Arguments:
        if target is None:
            return {}, native_ctx
        try:
            return {target.name: adapter.validate_python(params)}, native_ctx
        except ValidationError as error:
            raise McpError(INVALID_PARAMS, f"{method}: invalid params: {error.errors()[0]['msg']}") from None

    return _handler(fn, spec, arguments, context, convert or result_object, failure)


def _taking_params(params_type: type[Any], handler: Callable[..., Any]) -> Callable[..., Any]:
    """``handler(ctx, params)`` (the official SDK's order) as a method handler whose
    params are read as ``params_type``."""

    async def answer(params: Any, ctx: ServerRequestContext[Any]) -> Any:
        answered = handler(ctx, params)
        return await answered if inspect.isawaitable(answered) else answered

    answer.__signature__ = inspect.signature(answer).replace(  # type: ignore[attr-defined]
        parameters=[
            inspect.Parameter("params", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=params_type),
            inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=ServerRequestContext),
        ]
    )
    return answer


def _page(value: Any) -> Any:
    """A resource lister's page as a ``resources/list`` result: resources, or resources
    and the next cursor, or a result as it is."""
    if isinstance(value, tuple):
        resources, next_cursor = value
        return _drop_none({"resources": [result_object(r) for r in resources], "nextCursor": next_cursor})
    if isinstance(value, list):
        return {"resources": [result_object(r) for r in value]}
    return result_object(value)


def _logging_failures(run: Callable[..., Any], method: str) -> Callable[..., Any]:
    """`run`, its failures logged: nobody else hears of a notification handler's."""
    if inspect.iscoroutinefunction(run):

        async def run_on_loop(*native: Any) -> Any:
            try:
                return await run(*native)
            except Exception:
                _log.exception("the handler of %s failed", method)
                return None

        return run_on_loop

    def run_here(*native: Any) -> Any:
        try:
            return run(*native)
        except Exception:
            _log.exception("the handler of %s failed", method)
            return None

    return run_here


def _coerce_strings(values: dict[str, str], spec: FunctionSpec, coercers: dict[str, Any], what: str) -> dict[str, Any]:
    """String arguments as the annotated types; a value that does not fit is -32602. A
    parameter left out whose default is a ``Field(...)`` gets the field's default."""
    kwargs: dict[str, Any] = {
        parameter.name: default
        for parameter in spec.parameters
        if parameter.name not in values and (default := parameter.default_of_field()) is not EMPTY
    }
    for key, value in values.items():
        if key not in coercers:
            continue
        coerce = coercers[key]
        try:
            kwargs[key] = value if coerce is None else coerce(value)
        except ValidationError as error:
            raise McpError(INVALID_PARAMS, f"{what}: invalid {key!r}: {error.errors()[0]['msg']}") from None
    return kwargs


def _completers(completions: dict[str, Completer] | None) -> dict[str, Callable[..., Any]] | None:
    """Wraps completion functions (sync or async, taking ``value`` and optionally
    ``context``) as the native layer calls them."""
    if not completions:
        return None

    def wrap(name: str, complete: Completer) -> Callable[[str, dict[str, str]], Awaitable[list[str]]]:
        takes_context = len(inspect.signature(complete).parameters) > 1
        failure = _failure_of(completion_failure, name)

        async def run(value: str, context: dict[str, str]) -> list[str]:
            try:
                values = complete(value, context) if takes_context else complete(value)
                if inspect.isawaitable(values):
                    values = await values
                return list(values)
            except Exception as error:
                raise_answer(error, failure)

        return run

    return {name: wrap(name, complete) for name, complete in completions.items()}


def _completer(fn: Callable[..., Any], official: bool) -> Callable[[Wire, Any], Awaitable[Wire | None]]:
    """Wraps the server's completion function as the native layer calls it: with the
    request's params (its parts given as the models the function annotates, else oxmcp's,
    or the official SDK's when ``official``) and the native context, which the official
    SDK's function does not take."""
    defaults: list[Any] = [
        types.PromptReference | types.ResourceTemplateReference,
        types.CompletionArgument,
        types.CompletionContext | None,
    ]
    try:
        hints = typing.get_type_hints(fn)
    except (NameError, TypeError):
        hints = {}
    # A function may take fewer than the three parts: it gets the first ones.
    names = list(inspect.signature(fn).parameters)[:3]
    adapters = [TypeAdapter(hints.get(name, default)) for name, default in zip(names, defaults, strict=False)]
    unannotated = [official and name not in hints for name in names]

    async def complete(params: Wire, _native_ctx: Any) -> Wire | None:
        wire = (params["ref"], params["argument"], params.get("context"))
        try:
            parts = [adapter.validate_python(part) for adapter, part in zip(adapters, wire, strict=False)]
            completion = fn(*(to_official(part) if o else part for o, part in zip(unannotated, parts, strict=True)))
            if inspect.isawaitable(completion):
                completion = await completion
        except Exception as error:
            raise_answer(error, _failure_of(completion_failure, params["argument"].get("name", "")))
        if completion is None:
            return None
        if isinstance(completion, BaseModel):
            dumped: Wire = completion.model_dump(by_alias=True, exclude_none=True, mode="json")
            return dumped
        if isinstance(completion, dict):
            return completion
        return {"values": list(completion)}

    return complete


def _check_template_parameters(uri: str, variables: list[str], spec: FunctionSpec) -> None:
    parameters = {p.name for p in spec.parameters}
    required = {p.name for p in spec.parameters if p.required}
    if missing := required - set(variables):
        raise TypeError(f"resource template {uri}: parameters {sorted(missing)} are not URI variables")
    if unknown := set(variables) - parameters:
        raise TypeError(f"resource template {uri}: URI variables {sorted(unknown)} are not parameters")


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


def _definition(fields: dict[str, Any]) -> dict[str, Any]:
    """A definition's fields as the wire has them: those given, their models (oxmcp's, or
    the official SDK's a server written for it gives: ``ToolAnnotations``, ``Icon``) as
    JSON."""
    return {key: _as_wire(value) for key, value in fields.items() if value is not None}


def _as_wire(value: Any) -> Any:
    """A model, or a list of them, as JSON (anything else as it is)."""
    if isinstance(value, list):
        return [_as_wire(item) for item in value]
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value

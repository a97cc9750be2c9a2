"""FastMCP's ``Client`` over oxmcp's: it connects to what FastMCP's connects to (a server in
this process, a ``.py`` or ``.js`` script over stdio, an ``http(s)`` URL, a transport) and
answers as FastMCP's does: ``call_tool`` gives the tool's value as ``data`` (its structured
result, unwrapped and read through its output schema) and raises :class:`ToolError` when
the tool failed; ``read_resource`` gives the contents; ``ping`` says True. The ``*_mcp``
methods give the protocol's results as they are. Like FastMCP's, it gives the official
SDK's types (``mcp.types``) when the official SDK is installed, oxmcp's of the same name and
fields when it is not, and their fields read by their wire names too (``tool.inputSchema``)."""

from __future__ import annotations

import asyncio
import datetime
import functools
import json
import ssl
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, ParamSpec, TypeVar, cast
from urllib.parse import quote, unquote, urlsplit

from pydantic import TypeAdapter

from ... import _native, types
from ..._errors import McpError, ProtocolError
from ..._official import _official_types, from_official, read_camel_case_names, to_official, to_official_error
from ...client import Client as NativeClient
from ...client import Era, NotificationHandler, ProgressHandler, RootsHandler
from ...server import Server
from ..exceptions import ToolError
from ..skills.client import SKILLS_EXTENSION_ID
from ..skills.skill import MCPSkill, Skill
from ..utilities.json_schema_type import json_schema_to_type
from .elicitation import ElicitationHandler, create_elicitation_callback
from .logging import LogHandler, create_log_callback
from .messages import MessageHandlerT, create_message_callback
from .sampling import SamplingHandler, create_sampling_callback
from .transports import ClientTransport, StreamableHttpTransport, infer_transport

read_camel_case_names()

P = ParamSpec("P")
R = TypeVar("R")


def _official_errors(method: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """``method``, raising the official SDK's ``MCPError`` where oxmcp's client raises its
    :class:`McpError` (when the official SDK is installed), as FastMCP's client does."""

    @functools.wraps(method)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except McpError as error:
            official = to_official_error(error)
            if official is error:
                raise
            raise official from error

    return run


@dataclass
class CallToolResult:
    """A tool's result as FastMCP's client gives it: ``data`` is the tool's value (None when
    it returned content only)."""

    content: list[types.ContentBlock]
    structured_content: dict[str, Any] | None
    meta: dict[str, Any] | None
    data: Any = None
    is_error: bool = False


#: How many ``input_required`` rounds a request may take, as FastMCP's client allows.
DEFAULT_INPUT_REQUIRED_MAX_ROUNDS = 10


class Client:
    """A client as FastMCP's ``Client`` is used::

        async with Client(mcp) as client:          # or "server.py", or "http://.../mcp"
            result = await client.call_tool("add", {"a": 1, "b": 2})
            assert result.data == 3

    ``roots`` is a list of root URIs or a handler; ``sampling_handler(messages, params,
    context)``, ``elicitation_handler(message, response_type, params, context)``,
    ``log_handler(message)`` and ``message_handler`` (a function or a
    :class:`~oxmcp.fastmcp.client.messages.MessageHandler`, given the official SDK's model
    of each notification) are FastMCP's; ``progress_handler(progress, total, message)``
    hears the progress of every call that has none of its own; ``timeout`` (seconds) bounds
    each request (oxmcp's default, 60 s, when None); ``auth`` signs in to a server reached
    over HTTP: a bearer token, ``"oauth"``, or a client of :mod:`oxmcp.fastmcp.client.auth`;
    ``mode`` picks the protocol era as FastMCP's does: ``"auto"`` (the 2026-07-28 era when
    the server speaks it, else the handshake), ``"legacy"`` (the handshake), or
    ``"2026-07-28"``; ``extensions`` opts in to the skills extension
    (:class:`~oxmcp.fastmcp.skills.SkillsClientExtension`). With ``auto_initialize=False``,
    ``async with`` leaves the connection to :meth:`initialize` (oxmcp connects and
    negotiates in one step, so nothing goes to the server until then); ``init_timeout``
    bounds that step. ``verify`` says whose certificates an https server may present, as
    httpx's ``verify``: ``True``, a CA bundle's path, an ``ssl.SSLContext`` or ``False``
    (:meth:`oxmcp.Client.http`). ``sampling_capabilities`` with ``tools`` declares sampling
    with tools; ``input_required_max_rounds`` bounds a 2026-07-28 request's rounds (10);
    ``cache`` (off by default, as FastMCP's) keeps listings while the server says they
    are fresh (SEP-2549): ``True`` or a ``CacheConfig`` turns it on.
    """

    def __init__(
        self,
        transport: ClientTransport | Server | str | Path | dict[str, Any],
        *,
        roots: list[str] | RootsHandler | None = None,
        sampling_handler: SamplingHandler | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        log_handler: LogHandler | None = None,
        message_handler: MessageHandlerT | None = None,
        progress_handler: ProgressHandler | None = None,
        timeout: datetime.timedelta | float | None = None,
        client_info: types.Implementation | dict[str, Any] | None = None,
        name: str | None = None,
        auth: object = None,
        mode: str = "auto",
        extensions: Sequence[Any] = (),
        auto_initialize: bool = True,
        init_timeout: datetime.timedelta | float | None = None,
        verify: ssl.SSLContext | bool | str | None = None,
        sampling_capabilities: Any = None,
        input_required_max_rounds: int = DEFAULT_INPUT_REQUIRED_MAX_ROUNDS,
        cache: Any = None,
    ) -> None:
        era = _era(mode)
        self.mode = mode
        #: The extensions the client opted in to (:class:`~oxmcp.fastmcp.skills.SkillsClientExtension`).
        self._extensions = {getattr(extension, "identifier", None) for extension in extensions}
        self.transport = infer_transport(transport)
        if auth is not None:
            if not isinstance(self.transport, StreamableHttpTransport):
                raise ValueError("auth is for a server reached over HTTP")
            self.transport.auth = auth
        if verify is not None:
            if not isinstance(self.transport, StreamableHttpTransport):
                raise ValueError("The 'verify' parameter is only supported for HTTP transports.")
            self.transport.verify = verify
        self._init_timeout = init_timeout
        self._progress_handler = progress_handler
        options: dict[str, Any] = {
            "roots_handler": _roots(roots),
            "sampling_handler": create_sampling_callback(sampling_handler) if sampling_handler else None,
            "elicitation_handler": create_elicitation_callback(elicitation_handler) if elicitation_handler else None,
            "notification_handler": _notifications(log_handler, message_handler),
            "era": era,
            "sampling_tools": _with_tools(sampling_capabilities),
            "max_input_rounds": input_required_max_rounds,
            "cache_lists": bool(cache),
        }
        if timeout is not None:
            options["timeout"] = _seconds(timeout)
        if client_info is not None:
            # A model of either SDK's, or its wire form.
            info = types.Implementation.model_validate(
                client_info if isinstance(client_info, dict) else client_info.model_dump(by_alias=True)
            )
            options.update(name=info.name, version=info.version)
        elif name is not None:
            options["name"] = name
        self._native = self.transport.client(**options)
        self._auto_initialize = auto_initialize
        #: Whether the client is within ``async with`` while its connection waits for
        #: :meth:`initialize`.
        self._awaiting_initialize = False
        #: How many ``async with`` blocks the client is in: the first connects, the last
        #: closes, as FastMCP's client counts them.
        self._entered = 0
        self._hears_logs = log_handler is not None or message_handler is not None
        #: Each tool's output schema, by name, as listed.
        self._output_schemas: dict[str, dict[str, Any] | None] = {}
        #: What reads each tool's values, by its name and whether they come wrapped.
        self._readers: dict[tuple[str, bool], TypeAdapter[Any] | None] = {}

    async def __aenter__(self) -> Client:
        if self._entered == 0 and not self.is_connected():
            if self._auto_initialize:
                await self._connect_within(self._init_timeout)
            else:
                self._awaiting_initialize = True
        self._entered += 1
        return self

    async def _connect(self) -> None:
        await self._native.connect()
        if self._hears_logs and self._native.protocol_version >= MODERN:
            # A 2026-07-28 server sends a request's log messages only when it names a
            # level; FastMCP's handlers expect every message.
            await self._native.set_log_level("debug")

    async def _connect_within(self, timeout: datetime.timedelta | float | None) -> None:
        try:
            await asyncio.wait_for(self._connect(), None if timeout is None else _seconds(timeout))
        except TimeoutError as error:
            raise RuntimeError("the server did not answer the handshake in time") from error

    async def initialize(self, timeout: datetime.timedelta | float | None = None) -> Any:
        """The handshake of a connection made with ``auto_initialize=False`` (made now,
        within ``timeout``), or of one made already: the server's ``InitializeResult`` (the
        official SDK's when installed). ``RuntimeError`` outside ``async with``, when the
        handshake times out, or when the connection speaks the 2026-07-28 era, which has no
        handshake (``mode="legacy"`` asks for one)."""
        if not self._native.connected:
            if not self._awaiting_initialize:
                raise RuntimeError("the client is not connected: use `async with client:`")
            await self._connect_within(self._init_timeout if timeout is None else timeout)
            self._awaiting_initialize = False
        result = self.initialize_result
        if result is None:
            raise RuntimeError(
                "a 2026-07-28 connection has no initialize handshake: read protocol_version, server_info, "
                "server_capabilities and instructions, or connect with mode='legacy'"
            )
        return result

    @property
    def initialize_result(self) -> Any:
        """The server's answer to the handshake (the official SDK's ``InitializeResult``
        when installed); None before it and on a 2026-07-28 connection, which has none."""
        info = self._native.server_info if self._native.connected else None
        if info is None or self._native.protocol_version >= MODERN:
            return None
        result = types.InitializeResult(
            protocol_version=self._native.protocol_version,
            capabilities=self._native.capabilities,
            server_info=info,
            instructions=self._native.instructions,
        )
        return to_official(result)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._entered -= 1
        if self._entered == 0:
            await self.close()

    async def close(self) -> None:
        """Ends the connection."""
        self._awaiting_initialize = False
        await self._native.close()

    def is_connected(self) -> bool:
        """Whether the client is connected (within ``async with`` before :meth:`initialize`
        too, as FastMCP's is)."""
        return self._native.connected or self._awaiting_initialize

    @property
    def native(self) -> NativeClient:
        """oxmcp's client underneath, for what FastMCP's does not have."""
        return self._native

    def __class_getitem__(cls, transport: Any) -> type[Client]:
        # `Client[FastMCPTransport]`, as FastMCP's generic client is annotated.
        return cls

    @property
    def server_info(self) -> Any:
        """Who the server said it is (the official SDK's ``Implementation``), once connected."""
        info = self._native.server_info
        return None if info is None else to_official(info)

    @property
    def server_capabilities(self) -> Any:
        """What the server said it offers: the official SDK's ``ServerCapabilities`` when it
        is installed, else the JSON object."""
        official = _official_types()
        capabilities = self._native.capabilities
        return capabilities if official is None else official.ServerCapabilities.model_validate(capabilities)

    @property
    def instructions(self) -> str | None:
        """The server's instructions, if it gave any."""
        return self._native.instructions

    @property
    def protocol_version(self) -> str:
        """The protocol revision the connection speaks."""
        return self._native.protocol_version

    @_official_errors
    async def ping(self) -> bool:
        """Checks that the server answers."""
        await self._native.ping()
        return True

    @_official_errors
    async def list_tools(self) -> list[types.Tool]:
        """Every tool."""
        tools = await self._native.list_tools()
        self._output_schemas.update((tool.name, tool.output_schema) for tool in tools)
        self._readers.clear()
        return to_official(tools)

    @_official_errors
    async def list_tools_mcp(self, cursor: str | None = None) -> types.ListToolsResult:
        """One page of tools, as the protocol gives it."""
        return to_official(await self._native.list_tools_page(cursor))

    @_official_errors
    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        timeout: datetime.timedelta | float | None = None,
        progress_handler: ProgressHandler | None = None,
        raise_on_error: bool = True,
        meta: dict[str, Any] | None = None,
        version: str | None = None,
    ) -> CallToolResult:
        """Calls a tool (its ``version``, when given, of a FastMCP server's versions); its
        failure raises :class:`ToolError` (unless ``raise_on_error`` is False: then the
        result has ``is_error``)."""
        result = await self._call(name, arguments, timeout, progress_handler, _versioned(meta, version))
        if result.is_error and raise_on_error:
            first = result.content[0] if result.content else None
            raise ToolError(first.text if isinstance(first, types.TextContent) else f"Tool '{name}' returned an error")
        data = None
        if result.structured_content is not None and not result.is_error:
            data = await self._value(name, result)
        return CallToolResult(
            content=to_official(result.content),
            structured_content=result.structured_content,
            meta=result.meta,
            data=data,
            is_error=bool(result.is_error),
        )

    @_official_errors
    async def call_tool_mcp(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        timeout: datetime.timedelta | float | None = None,
        progress_handler: ProgressHandler | None = None,
        meta: dict[str, Any] | None = None,
    ) -> types.CallToolResult:
        """Calls a tool and gives its result as the protocol has it (a failure is a result)."""
        result = await self._call(name, arguments, timeout, progress_handler, meta)
        return to_official(result)

    @_official_errors
    async def list_resources(self) -> list[types.Resource]:
        """Every static resource."""
        return to_official(await self._native.list_resources())

    @_official_errors
    async def list_resources_mcp(self, cursor: str | None = None) -> types.ListResourcesResult:
        """One page of resources, as the protocol gives it."""
        return to_official(await self._native.list_resources_page(cursor))

    @_official_errors
    async def list_resource_templates(self) -> list[types.ResourceTemplate]:
        """Every resource template."""
        return to_official(await self._native.list_resource_templates())

    @_official_errors
    async def list_resource_templates_mcp(self, cursor: str | None = None) -> types.ListResourceTemplatesResult:
        """One page of resource templates, as the protocol gives it."""
        return to_official(await self._native.list_resource_templates_page(cursor))

    @_official_errors
    async def read_resource(self, uri: str | Any, *, version: str | None = None) -> list[types.ResourceContents]:
        """The contents of the resource at ``uri`` (its ``version``, when given)."""
        return to_official((await self._native.read_resource(str(uri), meta=_versioned(None, version))).contents)

    @_official_errors
    async def read_resource_mcp(self, uri: str | Any) -> types.ReadResourceResult:
        """The resource at ``uri``, as the protocol gives it."""
        return to_official(await self._native.read_resource(str(uri)))

    @_official_errors
    async def list_prompts(self) -> list[types.Prompt]:
        """Every prompt."""
        return to_official(await self._native.list_prompts())

    @_official_errors
    async def list_prompts_mcp(self, cursor: str | None = None) -> types.ListPromptsResult:
        """One page of prompts, as the protocol gives it."""
        return to_official(await self._native.list_prompts_page(cursor))

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, *, version: str | None = None
    ) -> types.GetPromptResult:
        """A prompt rendered (its ``version``, when given); arguments that are not strings
        are sent as JSON text, as FastMCP sends them."""
        return await self.get_prompt_mcp(name, arguments, version=version)

    @_official_errors
    async def get_prompt_mcp(
        self, name: str, arguments: dict[str, Any] | None = None, *, version: str | None = None
    ) -> types.GetPromptResult:
        """A prompt rendered (see :meth:`get_prompt`)."""
        texts = {key: text if isinstance(text, str) else json.dumps(text) for key, text in (arguments or {}).items()}
        return to_official(await self._native.get_prompt(name, texts or None, meta=_versioned(None, version)))

    @_official_errors
    async def complete(
        self,
        ref: types.PromptReference | types.ResourceTemplateReference | dict[str, str],
        argument: dict[str, str],
        context_arguments: dict[str, str] | None = None,
    ) -> types.Completion:
        """Suggestions for ``argument`` (``{"name", "value"}``) of the prompt or template ``ref``."""
        target = ref if isinstance(ref, dict) else from_official(ref).to_wire()
        completion = await self._native.complete(
            argument["name"],
            argument["value"],
            prompt=target.get("name") if target.get("type") == "ref/prompt" else None,
            template=target.get("uri") if target.get("type") == "ref/resource" else None,
            context=context_arguments,
        )
        return to_official(completion)

    @_official_errors
    async def set_logging_level(self, level: types.LoggingLevel) -> None:
        """The lowest level of log messages the server should send."""
        await self._native.set_log_level(level)

    async def send_roots_list_changed(self) -> None:
        """Tells the server the roots changed."""
        await self._native.send_roots_list_changed()

    @_official_errors
    async def list_skills(self) -> list[MCPSkill]:
        """Every skill the server lists (``skills/list``); RuntimeError unless the client
        opted in to the skills extension and the server offers it."""
        self._require_skills()
        return [MCPSkill.model_validate(skill.to_wire()) for skill in await self._native.list_skills()]

    @_official_errors
    async def get_skill(self, uri: str) -> MCPSkill:
        """The skill whose ``SKILL.md`` is at ``uri`` (``skills/get``), as :meth:`list_skills`."""
        self._require_skills()
        return MCPSkill.model_validate((await self._native.get_skill(uri)).to_wire())

    @_official_errors
    async def read_skill(self, uri: str) -> Skill:
        """Every file of the skill whose ``SKILL.md`` is at ``uri``, each checked against the
        size and digest the server lists for it (the skills extension's entry, else the
        skill's ``_manifest``), and the front matter against the entry's: a
        :class:`~oxmcp.fastmcp.skills.Skill`. A file that does not match, or a skill that
        is not one, raises ValueError."""
        parsed = urlsplit(uri)
        if not parsed.path.endswith("/SKILL.md") and parsed.netloc + parsed.path != "SKILL.md":
            raise ValueError(f"read_skill takes a skill's SKILL.md URI, got {uri!r}")
        entry = None
        if self._skills_unavailable() is None:
            try:
                entry = await self._native.get_skill(uri)
            except McpError as error:
                if error.code not in (_native.INVALID_PARAMS, _native.METHOD_NOT_FOUND):
                    raise
        if entry is not None and entry.resources == "dynamic":
            raise ValueError(f"Skill {uri!r} has no static manifest to read")
        listed = entry or await self._manifest_entry(uri)
        assert isinstance(listed.resources, list)
        folder = uri[: -len("SKILL.md")]
        try:
            files = {
                unquote(file.uri[len(folder) :]): await self._native.read_skill_file(listed, file.uri)
                for file in listed.resources
                if file.uri.startswith(folder)
            }
        except ProtocolError as mismatch:
            raise ValueError(str(mismatch)) from mismatch
        skill = Skill.from_files(files)
        if entry is not None and skill.frontmatter.root != entry.frontmatter:
            raise ValueError(f"Skill at {uri!r} does not match its entry's frontmatter")
        named = unquote(folder.rstrip("/").rsplit("/", 1)[-1])
        if skill.name != named:
            raise ValueError(f"Skill at {uri!r} is named {skill.name!r} in its SKILL.md")
        return skill

    async def _manifest_entry(self, uri: str) -> types.Skill:
        """The entry of the skill at ``uri`` its ``_manifest`` resource makes: each file's
        URI, digest and size (the front matter is checked once read, by name)."""
        folder = uri[: -len("SKILL.md")]
        manifest_uri = f"{folder}_manifest"
        contents = (await self._native.read_resource(manifest_uri)).contents
        try:
            [content] = contents
            assert isinstance(content, types.TextResourceContents)
            listed = json.loads(content.text)["files"]
            resources = [
                types.SkillResource(uri=folder + quote(file["path"], safe="/"), digest=file["hash"], size=file["size"])
                for file in listed
            ]
        except (AssertionError, ValueError, KeyError, TypeError) as unusable:
            raise ValueError(f"Invalid skill manifest at {manifest_uri}") from unusable
        if not resources:
            raise ValueError(f"Skill manifest at {manifest_uri} lists no files")
        return types.Skill(uri=uri, frontmatter={}, resources=resources)

    def offers_skills(self) -> bool:
        """Whether the client opted in to the skills extension and its server offers it."""
        return self._skills_unavailable() is None

    def _skills_unavailable(self) -> str | None:
        """Why the connection cannot send the skills extension's requests, None when it can."""
        if SKILLS_EXTENSION_ID not in self._extensions:
            return (
                "This client did not opt into the Skills extension; pass "
                "SkillsClientExtension() in Client(extensions=[...])"
            )
        if SKILLS_EXTENSION_ID not in (self._native.capabilities.get("extensions") or {}):
            return "The server does not advertise the Skills extension"
        return None

    def _require_skills(self) -> None:
        reason = self._skills_unavailable()
        if reason is not None:
            raise RuntimeError(reason)

    async def _call(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        timeout: datetime.timedelta | float | None,
        progress_handler: ProgressHandler | None,
        meta: dict[str, Any] | None,
    ) -> types.CallToolResult:
        """The tool's result, in oxmcp's types."""
        return await self._native.call_tool(
            name,
            arguments or {},
            timeout=None if timeout is None else _seconds(timeout),
            progress_handler=progress_handler or self._progress_handler,
            meta=meta,
        )

    async def _value(self, name: str, result: types.CallToolResult) -> Any:
        """A result's structured content as the tool's value: unwrapped from ``result`` when
        FastMCP wrapped it, read through the tool's output schema when it has one."""
        if name not in self._output_schemas:
            await self.list_tools()
        schema = self._output_schemas.get(name)
        fastmcp_meta = (result.meta or {}).get("fastmcp")
        wrapped = (isinstance(fastmcp_meta, dict) and bool(fastmcp_meta.get("wrap_result"))) or bool(
            (schema or {}).get("x-fastmcp-wrap-result")
        )
        content = result.structured_content
        if wrapped and isinstance(content, dict):
            content = content.get("result")
        reader = self._reader(name, schema, wrapped)
        if reader is None:
            return content
        try:
            return reader.validate_python(content)
        except ValueError:
            return content

    def _reader(self, name: str, schema: dict[str, Any] | None, wrapped: bool) -> TypeAdapter[Any] | None:
        """What reads the values of tool `name` (wrapped in ``result`` or not), made once
        per listing of the tools: a type made from a schema costs more than a call."""
        key = (name, wrapped)
        if key not in self._readers:
            if wrapped and schema is not None:
                schema = {**schema.get("properties", {}).get("result", {}), "$defs": schema.get("$defs", {})}
            self._readers[key] = TypeAdapter(json_schema_to_type(schema)) if schema else None
        return self._readers[key]


def _versioned(meta: dict[str, Any] | None, version: str | None) -> dict[str, Any] | None:
    """A request's ``meta`` asking for ``version`` of a FastMCP server's component, as
    FastMCP's client asks (``_meta.fastmcp.version``)."""
    if version is None:
        return meta
    meta = dict(meta or {})
    meta["fastmcp"] = {**meta.get("fastmcp", {}), "version": version}
    return meta


def _roots(roots: list[str] | RootsHandler | None) -> RootsHandler | None:
    """``roots`` as oxmcp's client's roots handler."""
    if roots is None or callable(roots):
        return roots
    listed = list(roots)

    async def answer() -> list[str]:
        return listed

    return answer


#: The first revision of the modern era, whose requests ask for log messages one by one.
MODERN = "2026-07-28"


def _era(mode: str) -> Era:
    """oxmcp's era for FastMCP's ``mode`` (``"auto"``, ``"legacy"`` or a modern revision),
    refused as FastMCP refuses it."""
    modern = [version for version, era in _native.PROTOCOL_VERSIONS.items() if era == "modern"]
    if mode in ("auto", "legacy"):
        return cast(Era, mode)
    if mode in modern:
        return "modern"
    legacy = _native.PROTOCOL_VERSIONS.get(mode) == "legacy"
    hint = f" ({mode!r} is a handshake-era version; use mode='legacy')" if legacy else ""
    raise ValueError(f"mode must be 'legacy', 'auto', or one of {modern}; got {mode!r}{hint}")


def _notifications(
    log_handler: LogHandler | None, message_handler: MessageHandlerT | None
) -> NotificationHandler | None:
    """The client's notification handler: the log handler's, then the message handler's."""
    handlers = [
        *([create_log_callback(log_handler)] if log_handler else []),
        *([create_message_callback(message_handler)] if message_handler else []),
    ]
    if len(handlers) < 2:
        return handlers[0] if handlers else None

    async def each(method: str, params: Any) -> None:
        for handler in handlers:
            heard = handler(method, params)
            if heard is not None:
                await heard

    return each


def _with_tools(capabilities: Any) -> bool:
    """Whether a sampling capability (the official SDK's model, or its wire form) says
    sampling with tools."""
    if capabilities is None:
        return False
    tools = capabilities.get("tools") if isinstance(capabilities, dict) else getattr(capabilities, "tools", None)
    return tools is not None


def _seconds(timeout: datetime.timedelta | float) -> float:
    return timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else float(timeout)


__all__ = ["CallToolResult", "Client"]

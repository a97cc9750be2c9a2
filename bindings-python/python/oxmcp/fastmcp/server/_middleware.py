"""How a FastMCP server runs its middleware: one interceptor of the core's around every
request, the legacy handshake's ``initialize`` included, which runs the chain with each
request's message and result as FastMCP's middleware sees them, and gives the core what
the chain gave; and around every notification from the client but a cancellation
(:func:`notification_interceptor`).

What a hook sees, by method:

- ``initialize``: the message is the whole :class:`~oxmcp.types.InitializeRequest` (its
  ``params``: ``client_info``, ``capabilities``, ``protocol_version``), as FastMCP gives
  it, the result an :class:`~oxmcp.types.InitializeResult`; an ``McpError`` refuses the
  client;
- ``tools/call``: the message is a :class:`~oxmcp.types.CallToolRequestParams` (``name``,
  ``arguments``), the result a :class:`~oxmcp.fastmcp.tools.ToolResult` (a call run as a
  task, or asking the client for input, gives its result as the dict the core made);
- ``resources/read`` and ``prompts/get``: :class:`~oxmcp.types.ReadResourceRequestParams`
  and :class:`~oxmcp.types.GetPromptRequestParams`, giving a
  :class:`~oxmcp.types.ReadResourceResult` and a :class:`~oxmcp.types.GetPromptResult`;
- the lists: a :class:`~oxmcp.types.PaginatedRequestParams`, giving the page's tools,
  resources, templates or prompts, each with FastMCP's ``tags`` (a tool's ``parameters``
  too); what the chain gives back is listed, in its order;
- any other method: its params and its result as dicts.

A tool that fails reaches the hooks as FastMCP's does, as a ``ToolError`` raised by
``call_next`` (its message the failure's text); a tool call that a hook fails with
``ToolError`` (or any exception but ``McpError``) is answered as the tool's own failure
would be. Elsewhere an exception is the request's error. What passes through unchanged
is sent as the method gave it (a tool's failure too)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..._errors import McpError, ToolError
from ..._native import INVALID_PARAMS
from ..._official import to_official
from ...server._mounting import Kind
from ...types import (
    CallToolRequestParams,
    CallToolResult,
    GetPromptRequestParams,
    GetPromptResult,
    InitializeRequest,
    InitializeResult,
    PaginatedRequestParams,
    Prompt,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    TextContent,
    Tool,
    WireModel,
)
from .._conventions import watched_failures
from .._prefab import renderer_at
from ..tools import ToolResult
from .context import Context, shared_request_scope
from .middleware.middleware import CallNext, MiddlewareContext, around
from .transforms.visibility import Component, Visibility, is_visible, template_matches

if TYPE_CHECKING:
    from .server import FastMCP


class _Tagged(WireModel):
    """FastMCP's ``tags`` and ``version`` of a listed definition, from its ``_meta.fastmcp``."""

    @property
    def tags(self) -> set[str]:
        return set(self._fastmcp.get("tags") or ())

    @property
    def version(self) -> str | None:
        version = self._fastmcp.get("version")
        return None if version is None else str(version)

    @property
    def _fastmcp(self) -> dict[str, Any]:
        fastmcp = (self.meta or {}).get("fastmcp")
        return fastmcp if isinstance(fastmcp, dict) else {}


class ListedTool(_Tagged, Tool):
    """A listed tool as FastMCP's middleware sees it, and as ``await mcp.list_tools()``
    gives it: FastMCP's names for its fields (``parameters``, ``output_schema``, ``tags``,
    ``version``) on the protocol's model."""

    @property
    def parameters(self) -> dict[str, Any]:
        """The input schema, under FastMCP's name."""
        return self.input_schema

    @property
    def key(self) -> str:
        """What FastMCP names the tool by among a server's components: ``tool:<name>@<version>``."""
        return f"tool:{self.name}@{self.version or ''}"

    def to_mcp_tool(self, **overrides: Any) -> Any:
        """The tool as the protocol lists it, the official SDK's ``Tool`` when it is
        installed, with ``overrides`` of its fields."""
        return to_official(Tool.model_validate(self.model_copy(update=overrides).to_wire()))


class ListedResource(_Tagged, Resource):
    """A listed resource as FastMCP's middleware sees it."""


class ListedResourceTemplate(_Tagged, ResourceTemplate):
    """A listed resource template as FastMCP's middleware sees it."""


class ListedPrompt(_Tagged, Prompt):
    """A listed prompt as FastMCP's middleware sees it."""


#: The message of each method that has a typed one.
_MESSAGES: dict[str, type[WireModel]] = {
    "tools/call": CallToolRequestParams,
    "resources/read": ReadResourceRequestParams,
    "prompts/get": GetPromptRequestParams,
    "tools/list": PaginatedRequestParams,
    "resources/list": PaginatedRequestParams,
    "resources/templates/list": PaginatedRequestParams,
    "prompts/list": PaginatedRequestParams,
}

#: Each list method's member, the type of its items and what they are.
LISTS: dict[str, tuple[str, type[WireModel], Kind]] = {
    "tools/list": ("tools", ListedTool, "tool"),
    "resources/list": ("resources", ListedResource, "resource"),
    "resources/templates/list": ("resourceTemplates", ListedResourceTemplate, "template"),
    "prompts/list": ("prompts", ListedPrompt, "prompt"),
}

#: What a ToolResult says of a tool's result.
_TOOL_RESULT_MEMBERS = frozenset({"content", "structuredContent", "isError", "_meta"})

#: The single results of the methods that have a typed one (tools/call's is a ToolResult).
RESULTS: dict[str, type[WireModel]] = {
    "resources/read": ReadResourceResult,
    "prompts/get": GetPromptResult,
    "initialize": InitializeResult,
}


class _Run:
    """One request through the chain: what the method gave, kept by the typed result made
    of it, so that a result passed on unchanged is sent as it was."""

    def __init__(self, method: str, shown: Callable[[dict[str, Any]], bool] | None = None) -> None:
        self.method = method
        #: Which of a list's items are listed (all without it).
        self.shown = shown
        self.given: list[tuple[Any, dict[str, Any]]] = []

    def typed(self, result: dict[str, Any], failure: Exception | None = None) -> Any:
        """The method's result as the chain sees it; a tool's failure raised as FastMCP's
        is: the ``failure`` the tool raised (its cause what the tool's code raised), else a
        ``ToolError`` with the failure's text."""
        method = self.method
        if method == "tools/call" and result.get("isError"):
            if failure is None:
                texts = [block.get("text", "") for block in result.get("content") or [] if block.get("type") == "text"]
                failure = ToolError("\n".join(texts))
            self.given.append((failure, result))
            raise failure
        if method == "tools/call":
            typed: Any = tool_result(result)
        elif method in LISTS:
            member, item_type, _ = LISTS[method]
            typed = []
            for item in result.get(member) or []:
                if self.shown is not None and not self.shown(item):
                    continue
                listed = item_type.model_validate(item)
                self.given.append((listed, item))
                typed.append(listed)
        elif method in RESULTS:
            typed = RESULTS[method].model_validate(result)
        else:
            typed = result
        self.given.append((typed, result))
        return typed

    def wire(self, returned: Any) -> Any:
        """What the chain gave, as the core takes it."""
        if self.method in LISTS and isinstance(returned, Sequence) and not isinstance(returned, str | dict):
            member, _, _ = LISTS[self.method]
            page = next((wire for typed, wire in self.given if isinstance(typed, list)), {})
            return {**page, member: [self._item(item) for item in returned]}
        if isinstance(returned, ToolResult):
            # What the method gave besides the ToolResult's own members stays.
            kept = {k: v for k, v in (self._sent(returned) or {}).items() if k not in _TOOL_RESULT_MEMBERS}
            wire = returned.to_result().to_wire()
            if not returned.is_error:
                wire.pop("isError", None)
            return {**kept, **wire}
        return returned.to_wire() if isinstance(returned, WireModel) else returned

    def failure(self, error: ToolError) -> dict[str, Any] | None:
        """The result a tool's failure came from, when the chain let it through."""
        return self._sent(error)

    def _item(self, item: Any) -> Any:
        sent = self._sent(item)
        if sent is not None:
            return sent
        return item.to_wire() if isinstance(item, WireModel) else item

    def _sent(self, typed: Any) -> dict[str, Any] | None:
        return next((wire for made, wire in self.given if made is typed), None)


def tool_result(result: dict[str, Any]) -> Any:
    """A complete tool result as a ToolResult (its content the official SDK's models when it
    is installed, as FastMCP's); a task's or an input request's as it is."""
    if result.get("resultType", "complete") != "complete" or "content" not in result:
        return result
    parsed = CallToolResult.model_validate(result)
    return ToolResult(
        content=to_official(parsed.content),
        structured_content=parsed.structured_content,
        meta=parsed.meta,
    )


def _failed_call(server: FastMCP, name: str, error: Exception) -> dict[str, Any]:
    """A tool call a hook failed, answered as the tool's failure would be."""
    text = str(server._conventions.tool_failure(name, error))
    return CallToolResult(content=[TextContent(text=text)], is_error=True).to_wire()


def _refuse_hidden(server: FastMCP, method: str, message: Any, rules: list[Visibility]) -> None:
    """Raises what FastMCP answers for an unknown target of ``message`` when the rules hide
    its tool, prompt, resource or template."""
    kind: Kind
    if method == "tools/call":
        kind, found = "tool", server._components.definition("tool", message.name)
        unknown: Exception = ToolError(f"Unknown tool: {message.name!r}")
    elif method == "prompts/get":
        kind, found = "prompt", server._components.definition("prompt", message.name)
        unknown = McpError(INVALID_PARAMS, f"Unknown prompt: {message.name!r}")
    elif method == "resources/read":
        uri = str(message.uri)
        kind, found = "resource", server._components.definition("resource", uri)
        if found is None:
            templates = server._components.definitions("template")
            kind, found = "template", next((t for t in templates if template_matches(t["uriTemplate"], uri)), None)
        unknown = McpError(INVALID_PARAMS, f"Resource not found: {uri!r}", {"uri": uri})
    else:
        return
    if found is not None and not is_visible(
        rules, Component.listed(kind, found), server._components.enabled(kind, found)
    ):
        raise unknown
    if kind == "resource" and found is not None and not _rendering(server, rules, found["uri"]):
        raise unknown


def _rendering(server: FastMCP, rules: list[Visibility], uri: str) -> bool:
    """Whether the resource at ``uri`` is served as far as the Prefab renderers go: one is
    while a tool the rules show names it as its UI, as FastMCP serves them; any other
    resource is."""
    if renderer_at(uri) is None:
        return True
    for tool in server._components.definitions("tool"):
        ui = (tool.get("_meta") or {}).get("ui")
        if isinstance(ui, dict) and ui.get("resourceUri") == uri:
            enabled = server._components.enabled("tool", tool)
            if is_visible(rules, Component.listed("tool", tool), enabled):
                return True
    return False


def interceptor(server: FastMCP) -> Callable[..., Any]:
    """The core's interceptor that runs ``server.middleware``, outermost first, and within
    it applies ``server``'s and the session's visibility rules."""

    async def intercept(method: str, params: Any, native_ctx: Any, call_next: Any) -> Any:
        with shared_request_scope(native_ctx):
            return await intercepted(method, params, native_ctx, call_next)

    async def intercepted(method: str, params: Any, native_ctx: Any, call_next: Any) -> Any:
        message = _message(method, params)
        # As the message was, to tell whether a hook changed it in place (its arguments).
        sent = _params(message)
        fastmcp_context = server._context(Context, native_ctx)
        rules = await fastmcp_context.visibility_rules()
        listed = LISTS.get(method)
        shown = None
        if listed is not None and (rules or (listed[2] == "tool" and (server.transforms or server._hiding_tools))):
            kind = listed[2]

            def shown(item: dict[str, Any]) -> bool:
                hidden = kind == "tool" and not server._lists_tool(item["name"])
                enabled = server._components.enabled(kind, item)
                return (
                    not hidden
                    and is_visible(rules, Component.listed(kind, item), enabled)
                    and (kind != "resource" or _rendering(server, rules, item["uri"]))
                )

        run = _Run(method, shown)
        key = native_ctx.request_key

        async def the_method(context: MiddlewareContext[Any]) -> Any:
            if rules or server._hiding_tools:
                _refuse_hidden(server, method, context.message, rules)
            given = _params(context.message)
            changed = context.message is not message or given != sent
            if method != "tools/call":
                return run.typed(await call_next(given if changed else None))
            watched_failures[key] = None
            try:
                result = await call_next(given if changed else None)
            finally:
                failure = watched_failures.pop(key, None)
            return run.typed(result, failure)

        chain: CallNext[Any, Any] = the_method
        for middleware in reversed(server.middleware):
            chain = around(middleware, chain)
        context = MiddlewareContext(message=message, fastmcp_context=fastmcp_context, method=method)
        try:
            return run.wire(await chain(context))
        except McpError:
            raise
        except Exception as error:
            if method != "tools/call":
                raise
            sent = run.failure(error) if isinstance(error, ToolError) else None
            if sent is not None:
                return sent
            return _failed_call(server, params.get("name", "") if isinstance(params, dict) else "", error)

    return intercept


def _message(method: str, params: Any) -> Any:
    """A request's message as FastMCP's middleware gets it: its params as their model (the
    whole ``initialize`` request, as FastMCP gives it), else as sent."""
    if method == "initialize":
        return InitializeRequest.model_validate({"params": params or {}})
    message_type = _MESSAGES.get(method)
    return message_type.model_validate(params or {}) if message_type is not None else params


def _params(message: Any) -> Any:
    """The params a message a hook passes on stands for."""
    if isinstance(message, InitializeRequest):
        message = message.params
    return message.to_wire() if isinstance(message, WireModel) else message


def notification_interceptor(server: FastMCP) -> Callable[..., Any]:
    """The core's interceptor of the client's notifications (a cancellation aside) that
    runs ``server.middleware`` around each, as FastMCP runs it: ``on_message``, then
    ``on_notification``, given the notification's params as its ``message``; the end of
    the chain runs the server's handler of the notification, if it has one (a hook that
    does not call ``call_next`` drops the notification)."""

    async def notified(method: str, params: Any, native_ctx: Any, handler: Any) -> None:
        async def the_handler(context: MiddlewareContext[Any]) -> None:
            await handler.run()

        chain: CallNext[Any, Any] = the_handler
        for middleware in reversed(server.middleware):
            chain = around(middleware, chain)
        context = MiddlewareContext(
            message=params,
            fastmcp_context=server._context(Context, native_ctx),
            type="notification",
            method=method,
        )
        await chain(context)

    return notified

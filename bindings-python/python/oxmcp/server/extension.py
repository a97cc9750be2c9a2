"""Extensions of a server (SEP-2133), as the official SDK's ``mcp.server.extension``
writes them: an :class:`Extension` subclass names its ``identifier`` and contributes
settings (declared under ``capabilities.extensions``), tools, resources, request methods
the protocol does not define, and a wrapper around tool calls::

    class Catalog(Extension):
        identifier = "com.example/catalog"

        def tools(self) -> Sequence[ToolBinding]:
            return [ToolBinding(fn=suggest)]

    server = MCPServer("shop", extensions=[Catalog()])  # or server.add_extension(Catalog())

What the protocol carries stays the core's: these are the server's tools, resources,
request handlers, capabilities and interceptor."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from .. import _native
from .._errors import McpError
from .._native import INVALID_PARAMS, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY
from .._official import to_official
from ..context import Context, ServerRequestContext
from ..types import CallToolRequestParams

if TYPE_CHECKING:
    from ..resources import Resource
    from . import Server

__all__ = [
    "Extension",
    "MethodBinding",
    "ResourceBinding",
    "ToolBinding",
    "read_client_extension_settings",
    "require_client_extension",
    "validate_extension_identifier",
]

#: What a method binding's handler is: given the request's context and its checked
#: params, it returns the result (a model or a dict; None for an empty one).
ExtensionRequestHandler = Callable[[ServerRequestContext[Any], Any], Awaitable[BaseModel | dict[str, Any] | None]]
#: What a tool-call interceptor awaits to run the rest: the inner interceptors, then the tool.
ToolCallNext = Callable[[ServerRequestContext[Any]], Awaitable[Any]]

#: An extension's identifier: a reverse-DNS prefix (labels that start with a letter and
#: end with a letter or digit), ``/``, and a name, as the spec's ``_meta`` keys are named.
_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_IDENTIFIER = re.compile(rf"{_LABEL}(?:\.{_LABEL})*/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")


def validate_extension_identifier(identifier: Any, *, owner: str) -> None:
    """``TypeError`` unless ``identifier`` is a ``vendor-prefix/name`` text."""
    if not isinstance(identifier, str) or not _IDENTIFIER.fullmatch(identifier):
        raise TypeError(
            f"{owner}.identifier must be a `vendor-prefix/name` string "
            f"(reverse-DNS prefix required), got {identifier!r}"
        )


@dataclass(frozen=True)
class MethodBinding:
    """A request method an extension serves: its params are checked against
    ``params_type`` (a pydantic model; -32602 when they do not fit), then ``handler`` answers;
    with ``protocol_versions``, only requests of those protocol versions (any other is
    answered as an unknown method). A method the protocol defines is refused."""

    method: str
    params_type: type[BaseModel]
    handler: ExtensionRequestHandler
    protocol_versions: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if self.method in _native.PROTOCOL_REQUESTS:
            raise ValueError(
                f"MethodBinding cannot bind spec method {self.method!r}; extension "
                "methods are additive. Use intercept_tool_call or middleware to wrap core behaviour."
            )
        if self.protocol_versions is not None and not self.protocol_versions:
            raise ValueError(
                f"MethodBinding for {self.method!r} has an empty protocol_versions "
                "set, so it could never be served; use None to admit every version."
            )

    async def answer(self, params: dict[str, Any] | None, ctx: ServerRequestContext[Any]) -> Any:
        """The answer to one request of the method."""
        if self.protocol_versions is not None and ctx.protocol_version not in self.protocol_versions:
            message = f"Method {self.method!r} is not available at protocol version {ctx.protocol_version!r}."
            raise McpError(METHOD_NOT_FOUND, message)
        try:
            checked = self.params_type.model_validate(params or {})
        except ValidationError as refused:
            raise McpError(INVALID_PARAMS, f"Invalid params for {self.method}: {refused}") from None
        answered = await self.handler(ctx, checked)
        if isinstance(answered, BaseModel):
            return answered.model_dump(mode="json", by_alias=True, exclude_none=True)
        return {} if answered is None else answered


@dataclass(frozen=True)
class ToolBinding:
    """A tool an extension contributes: ``fn`` registered as ``@server.tool`` would, with
    ``meta`` as its ``_meta`` and ``kwargs`` the decorator's other options."""

    fn: Callable[..., Any]
    meta: dict[str, Any] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResourceBinding:
    """A resource an extension contributes, made beforehand (``TextResource(...)``)."""

    resource: Resource


class Extension:
    """An extension of a server: set ``identifier`` and override what it contributes
    (every method has a default)."""

    #: Its identifier (``vendor-prefix/name``), under which it is declared.
    identifier: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        identifier = cls.__dict__.get("identifier")
        if identifier is not None:
            validate_extension_identifier(identifier, owner=cls.__name__)

    def settings(self) -> dict[str, Any]:
        """Its settings, declared under ``capabilities.extensions[identifier]``."""
        return {}

    def tools(self) -> Sequence[ToolBinding]:
        """The tools it adds."""
        return ()

    def resources(self) -> Sequence[ResourceBinding]:
        """The resources it adds."""
        return ()

    def methods(self) -> Sequence[MethodBinding]:
        """The request methods it serves."""
        return ()

    async def intercept_tool_call(self, params: Any, ctx: ServerRequestContext[Any], call_next: ToolCallNext) -> Any:
        """Around every tool call (the first extension added outermost): the result, from
        ``await call_next(ctx)`` or its own. ``params`` are the call's
        ``CallToolRequestParams`` (the official SDK's model when it is installed)."""
        return await call_next(ctx)


def add_extension(server: Server, extension: Extension) -> None:
    """What ``server.add_extension(extension)`` does: declares it, registers its tools and
    resources, serves its methods, and runs its interceptor around tool calls."""
    validate_extension_identifier(getattr(extension, "identifier", None), owner=type(extension).__name__)
    server.extension(extension.identifier, extension.settings())
    for tool in extension.tools():
        options = dict(tool.kwargs)
        if tool.meta is not None:
            options["meta"] = tool.meta
        server.add_tool(tool.fn, **options)
    for binding in extension.resources():
        server.add_resource(binding.resource)
    for method in extension.methods():
        server.request_handler(method.method)(method.answer)
    if type(extension).intercept_tool_call is not Extension.intercept_tool_call:
        server.middleware.append(_ToolCallInterceptor(extension))


@dataclass(frozen=True)
class _ToolCallInterceptor:
    """An extension's interceptor as a middleware of the server: around tool calls only."""

    extension: Extension

    async def __call__(self, ctx: ServerRequestContext[Any], call_next: ToolCallNext) -> Any:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        params = to_official(CallToolRequestParams.model_validate(ctx.params))
        return await self.extension.intercept_tool_call(params, ctx, call_next)


def read_client_extension_settings(ctx: Context[Any], identifier: str) -> dict[str, Any] | None:
    """The settings the client of the request declared for extension ``identifier`` (in
    each request's ``_meta`` in the 2026-07-28 era, at the handshake before), or None."""
    extensions = ctx.client_capabilities.get("extensions")
    settings = extensions.get(identifier) if isinstance(extensions, Mapping) else None
    return dict(settings) if isinstance(settings, Mapping) else None


def require_client_extension(ctx: ServerRequestContext[Any], identifier: str) -> None:
    """Refuses the request (``-32021``, naming the extension in ``requiredCapabilities``)
    unless its client declared extension ``identifier``, as SEP-2133 asks."""
    if read_client_extension_settings(ctx, identifier) is None:
        raise McpError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            f"Client did not declare required extension {identifier!r}",
            {"requiredCapabilities": {"extensions": {identifier: {}}}},
        )

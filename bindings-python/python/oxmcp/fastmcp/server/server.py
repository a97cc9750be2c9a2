"""FastMCP's ``FastMCP``: an oxmcp :class:`~oxmcp.Server` with FastMCP's conventions."""

from __future__ import annotations

import asyncio
import base64
import functools
import inspect
import os
import secrets
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import TypeAdapter
from typing_extensions import Self, Unpack

from ... import _native, types
from ..._conventions import Conventions
from ..._errors import McpError
from ..._schema import inspect_function
from ...context import Context, LogLevel
from ...server import Server, resource_kind, tool_registration
from ...server._calling import native_context
from ...server._mounting import Components, Kind, _Registration
from ...types import BlobResourceContents, TextResourceContents
from .._conventions import FastMCPConventions
from .._prefab import is_placeholder, is_prefab_annotation, rendered_ui, renderer_at
from .._wrapping import wrapped
from ..apps import AppConfig, PrefabAppConfig, app_config_to_meta_dict, resolve_ui_mime_type
from ..client import Client
from ..client.transports import ClientTransport
from ..decorators import marked
from ..prompts import Prompt
from ..resources import FunctionResource, Resource, ResourceTemplate
from ..tools import ToolResult
from ..tools.base import FunctionTool, Tool, function_options
from ..utilities.tasks import TaskConfig, TaskMode
from ..utilities.versions import VersionSpec
from ._middleware import ListedTool, interceptor, notification_interceptor
from ._versions import VersionedComponents, version_key
from .auth.auth import component_scopes
from .context import Context as FastMCPContext
from .context import kept_state
from .extensions import ServerExtension, add_extension
from .middleware import Middleware
from .middleware.authorization import AuthMiddleware
from .middleware.dereference import DereferenceRefsMiddleware
from .middleware.tool_injection import ToolInjectionMiddleware
from .transforms.visibility import Component, Criteria, Visibility, is_visible

if TYPE_CHECKING:
    from .providers import AnyProvider
    from .providers.openapi import ComponentFn, RouteMap, RouteMapFn
    from .providers.proxy import FastMCPProxy
    from .transforms import Transform


class _Generated:
    """FastMCP's default ``output_schema``: the one the return annotation gives."""


_GENERATED = _Generated()


class FastMCP(Server):
    """A server written with FastMCP (``from fastmcp import FastMCP``), served by oxmcp: the
    same decorators and ``run()`` as :class:`~oxmcp.Server`, listing and answering as
    FastMCP does (see :mod:`oxmcp.fastmcp`). The decorators also take FastMCP's ``tags``,
    listed in each definition's ``_meta.fastmcp.tags``, ``version`` (several versions of
    one name, as FastMCP serves them: :mod:`oxmcp.fastmcp.server._versions`) and
    ``auth=require_scopes(...)`` (:mod:`oxmcp.fastmcp.server.auth`)."""

    _runs_official_middleware = False

    _conventions: Conventions = FastMCPConventions()
    _components_type: ClassVar[type[Components]] = VersionedComponents

    def __init__(
        self,
        name: str | None = None,
        instructions: str | None = None,
        *,
        version: str | int | float | None = None,
        middleware: Iterable[Middleware] | None = None,
        transforms: Iterable[Transform] | None = None,
        tools: Iterable[Tool | Callable[..., Any]] | None = None,
        providers: Iterable[FastMCP | AnyProvider] | None = None,
        list_page_size: int | None = None,
        dereference_schemas: bool = True,
        strict_input_validation: bool | None = None,
        mask_error_details: bool | None = None,
        on_duplicate: Literal["warn", "error", "replace", "ignore"] = "warn",
        client_log_level: LogLevel | None = None,
        tasks: bool | None = None,
        session_state_store: Any = None,
        **kwargs: Any,
    ) -> None:
        """FastMCP's arguments (``name`` and ``instructions`` may be given in order), and
        :class:`oxmcp.Server`'s: ``middleware`` runs around every request, the first given
        outermost (see :meth:`add_middleware`); ``transforms`` are applied, ``tools`` added
        and ``providers`` served (:meth:`add_provider`), in order; ``list_page_size`` is
        ``page_size``. A call's arguments are converted as pydantic's lax mode does (``"5"``
        for an ``int`` is 5) unless ``strict_input_validation``, which checks them against
        the input schema. Schemas are listed dereferenced (``dereference_schemas=False`` is
        refused). With ``mask_error_details`` (by default the environment's
        ``FASTMCP_MASK_ERROR_DETAILS``, as FastMCP's settings read it) a tool, resource or
        prompt that raises anything but FastMCP's errors (``ToolError``, ``ResourceError``,
        ``PromptError``) is answered without the exception's text, as FastMCP does; the
        traceback is logged. A tool, resource, template or prompt registered under a name
        (and version) the server has already takes its place, with a warning, unless
        ``on_duplicate`` says ``"replace"`` (no warning), ``"error"`` (``ValueError``) or
        ``"ignore"`` (the first one stays). With ``client_log_level``, the log messages of
        the handlers' contexts below that level are not sent. ``tasks=True`` lets a client
        run each tool as a task unless its own ``task=`` says otherwise. What handlers keep
        with ``ctx.set_state`` lives in ``session_state_store`` (py-key-value's
        ``AsyncKeyValue``: ``MemoryStore``, ``RedisStore``... which servers and replicas
        may share), else in this process. ``request_state_security`` and
        ``experimental_capabilities`` are :class:`oxmcp.Server`'s."""
        if not dereference_schemas:
            raise ValueError("oxmcp's FastMCP lists schemas dereferenced: dereference_schemas=False is not served")
        if list_page_size is not None:
            kwargs["page_size"] = list_page_size
        name = name or f"{type(self).__name__}-{secrets.token_hex(2)}"
        if mask_error_details is None:
            mask_error_details = TypeAdapter(bool).validate_python(os.environ.get("FASTMCP_MASK_ERROR_DETAILS", False))
        if mask_error_details:
            self._conventions = FastMCPConventions(masked=True)
        super().__init__(name, "0.1.0" if version is None else str(version), instructions=instructions, **kwargs)
        #: The lowest level of the log messages handlers send clients (None: every level).
        self.client_log_level = client_log_level
        #: Whether a tool without a ``task=`` of its own may run as a task.
        self.tasks_by_default = bool(tasks)
        #: The store ``ctx.set_state`` and sessions keep values in (None: none given).
        self.session_state_store = session_state_store
        #: Where they are kept: that store, else the server's own memory.
        self.kept_state = kept_state(session_state_store)
        #: For a server that holds a provider's components, the server serving the
        #: provider: its handlers' ``ctx.fastmcp`` and ``get_server()``, as in FastMCP.
        self.serving: FastMCP | None = None
        #: Whether a call's arguments are checked against the input schema, not converted.
        self.strict_input_validation = bool(strict_input_validation)
        self.middleware: list[Middleware] = []
        #: The server's visibility rules (:meth:`enable`, :meth:`disable`), in order.
        self.visibility: list[Visibility] = []
        #: The transforms applied (:meth:`add_transform`), in order.
        self.transforms: list[Transform] = []
        self._intercepting = False
        #: Whether some session has visibility rules of its own (until then none is looked up).
        self._session_rules = False
        #: Whether some tool is hidden by its transformation (``ToolTransformConfig(enabled=False)``).
        self._hiding_tools = False
        if isinstance(self._components, VersionedComponents):
            self._components.on_tool = self._serve_renderer
            self._components.on_duplicate = on_duplicate
        for each in middleware or ():
            self.add_middleware(each)
        for transform in transforms or ():
            self.add_transform(transform)
        for tool in tools or ():
            self.add_tool(tool)
        for provider in providers or ():
            self.add_provider(provider)

    # FastMCP's extensions are its own kind (``ServerExtension``), not the official SDK's.
    def add_extension(self, extension: ServerExtension) -> None:  # type: ignore[override]
        """Adds a server extension (SEP-2133, :mod:`oxmcp.fastmcp.server.extensions`): its
        settings declared, its methods served, its interceptor around every tool call (the
        first added outermost, inside the middleware given before it), its lifespan entered
        with the server's."""
        add_extension(self, extension)

    def add_middleware(self, middleware: Middleware) -> None:
        """Runs ``middleware`` around every request but the handshake, inside those added
        before (:mod:`oxmcp.fastmcp.server.middleware`). An ``AuthMiddleware``'s checks
        become the scopes of each component registered after it; a
        ``ToolInjectionMiddleware``'s tools are served in place of those of their names."""
        if isinstance(middleware, AuthMiddleware) and any(
            self._components.definitions(kind) for kind in ("tool", "resource", "template", "prompt")
        ):
            raise RuntimeError("give AuthMiddleware to the server before registering its tools, resources and prompts")
        self.middleware.append(middleware)
        if isinstance(middleware, ToolInjectionMiddleware):
            for tool in middleware.injected_tools:
                self._components.remove("tool", tool.name)
                self.add_tool(tool)
        # An AuthMiddleware's checks are the components' scopes, a ToolInjectionMiddleware's
        # tools the server's, and the schemas are dereferenced already: none has anything to run.
        if type(middleware) not in (AuthMiddleware, ToolInjectionMiddleware, DereferenceRefsMiddleware):
            self._intercept()

    def enable(self, *, only: bool = False, **criteria: Unpack[Criteria]) -> Self:
        """Shows what matches every criterion given (after a :meth:`disable` that hid it);
        with ``only``, hides everything else
        (:mod:`oxmcp.fastmcp.server.transforms.visibility`)."""
        if only:
            self.visibility.append(Visibility(False, match_all=True))
        self.visibility.append(Visibility(True, **criteria))
        self._intercept()
        return self

    def disable(self, **criteria: Unpack[Criteria]) -> Self:
        """Hides what matches every criterion given from every client: not listed, and
        answered as unknown (a session shows it again with ``ctx.enable_components``)."""
        self.visibility.append(Visibility(False, **criteria))
        self._intercept()
        return self

    def _tagged(
        self, options: dict[str, Any], tags: Iterable[str] | None, version: str | int | float | None
    ) -> dict[str, Any]:
        return _with_tags(options, tags, version, self._auth_checks())

    def _auth_checks(self) -> list[Any]:
        """The checks of the server's ``AuthMiddleware``."""
        return [middleware.auth for middleware in self.middleware if isinstance(middleware, AuthMiddleware)]

    def _intercept(self) -> None:
        """Runs the middleware and the visibility rules from now on (the core's interceptor,
        which a server without either does without)."""
        if not self._intercepting:
            self._native.set_interceptor(interceptor(self), notification_interceptor(self), initialize=True)
            self._intercepting = True

    @classmethod
    def from_openapi(
        cls,
        openapi_spec: dict[str, Any],
        client: Any = None,
        name: str = "OpenAPI Server",
        route_maps: list[RouteMap] | None = None,
        route_map_fn: RouteMapFn | None = None,
        mcp_component_fn: ComponentFn | None = None,
        mcp_names: dict[str, str] | None = None,
        tags: set[str] | None = None,
        validate_output: bool = True,
        **settings: Any,
    ) -> Self:
        """A server of the operations of an HTTP API's OpenAPI 3 description, each a tool
        unless ``route_maps`` say otherwise, called with ``client`` (an ``httpx2`` or
        ``httpx`` ``AsyncClient``; without one, a client of the description's server URL)
        (:class:`~oxmcp.fastmcp.server.providers.openapi.OpenAPIProvider`)."""
        from .providers.openapi import OpenAPIProvider

        server = cls(name, **settings)
        provider = OpenAPIProvider(
            openapi_spec,
            client,
            route_maps=route_maps,
            route_map_fn=route_map_fn,
            mcp_component_fn=mcp_component_fn,
            mcp_names=mcp_names,
            tags=tags,
            validate_output=validate_output,
        )
        server.add_provider(provider)
        return server

    @classmethod
    def from_fastapi(
        cls,
        app: Any,
        name: str | None = None,
        route_maps: list[RouteMap] | None = None,
        route_map_fn: RouteMapFn | None = None,
        mcp_component_fn: ComponentFn | None = None,
        mcp_names: dict[str, str] | None = None,
        httpx_client_kwargs: dict[str, Any] | None = None,
        tags: set[str] | None = None,
        **settings: Any,
    ) -> Self:
        """:meth:`from_openapi` of a FastAPI application (``app.openapi()``), called in
        this process, through ASGI (``httpx_client_kwargs`` for its client)."""
        from .providers.openapi.provider import asgi_client

        return cls.from_openapi(
            app.openapi(),
            asgi_client(app, **(httpx_client_kwargs or {})),
            name=name or app.title,
            route_maps=route_maps,
            route_map_fn=route_map_fn,
            mcp_component_fn=mcp_component_fn,
            mcp_names=mcp_names,
            tags=tags,
            **settings,
        )

    def add_provider(self, provider: FastMCP | AnyProvider, *, namespace: str = "") -> None:
        """Serves what ``provider`` offers (another server, a
        :class:`~oxmcp.fastmcp.server.providers.FileSystemProvider`, a
        :class:`~oxmcp.fastmcp.server.providers.Provider` of one's own, asked as each
        request needs) after this server's own components, under ``namespace`` if one is
        given, as :meth:`mount` does. A
        :class:`~oxmcp.fastmcp.skills.provider.SkillsDirectoryProvider`'s or
        :class:`~oxmcp.fastmcp.skills.provider.SkillCatalogProvider`'s skills are served
        by this server itself, at their own URIs (without a namespace)."""
        from ..skills.provider import SkillCatalogProvider, SkillsDirectoryProvider
        from .providers.base import Provider, Served

        if isinstance(provider, SkillsDirectoryProvider | SkillCatalogProvider):
            if namespace:
                raise ValueError("oxmcp serves skills at their own skill:// URIs, without a namespace")
            provider.serve_on(self)
            return
        if isinstance(provider, Provider):
            served = Served(provider, namespace or None, self._components)
            # A provider's handlers are the serving server's (and keep state where it does).
            served.server.serving = self
            self.add_middleware(served.asking)
            provider = served.server
        elif not isinstance(provider, FastMCP):
            # A provider that reads its components again (a FileSystemProvider's `reload`)
            # looks before each request.
            if (reloading := getattr(provider, "reloading", None)) is not None:
                self.add_middleware(reloading)
            # A provider's components (a FileSystemProvider's, an OpenAPIProvider's) are on
            # a server of its own.
            provider = getattr(provider, "server", provider)
        if not isinstance(provider, FastMCP):
            raise TypeError(f"oxmcp serves FastMCP servers and Providers as providers, not {provider!r}")
        self.mount(provider, namespace or None)

    def _hides_tools(self) -> None:
        """Hides the tools whose transformation disables them from now on."""
        self._hiding_tools = True
        self._intercept()

    def add_transform(self, transform: Transform) -> None:
        """Applies ``transform`` (:mod:`oxmcp.fastmcp.server.transforms`): adds the tools it
        makes, lists only the tools it lists, serves what it renames or changes as it does.
        FastMCP's other transforms are refused."""
        from .transforms import Transform

        if not isinstance(transform, Transform):
            raise TypeError(
                "oxmcp applies FastMCP's Namespace, ToolTransform, VersionFilter, PromptsAsTools, "
                "ResourcesAsTools, search transforms and CodeMode; "
                f"{type(transform).__name__} is not served"
            )
        transform._apply(self)
        self.transforms.append(transform)

    def _serve_renderer(self, tool: dict[str, Any]) -> None:
        """Serves the Prefab renderer ``tool`` names as its UI, if it names one the server
        does not serve yet (tools that render alike share one; a mounted server's keeps
        its URI, which its tools name, as FastMCP's does)."""
        ui = (tool.get("_meta") or {}).get("ui")
        renderer = renderer_at(ui.get("resourceUri")) if isinstance(ui, dict) else None
        if renderer is None or self._components.definition("resource", renderer.uri) is not None:
            return

        def page() -> str:  # Undocumented: the resource has no description, as FastMCP's.
            return renderer.html()

        self.resource(renderer.uri, name="Prefab Renderer", meta=renderer.meta)(page)

    def _lists_tool(self, name: str) -> bool:
        """Whether the tool ``name`` is listed: its transforms may hide it (it can still be
        called)."""
        return all(transform._lists(name) for transform in self.transforms)

    # FastMCP's `task=` is a flag or a TaskConfig where oxmcp's names the mode.
    def tool(  # type: ignore[override]
        self,
        name_or_fn: Any = None,
        /,
        *,
        tags: Iterable[str] | None = None,
        version: str | int | float | None = None,
        task: bool | TaskConfig | None = None,
        timeout: float | None = None,
        output_schema: dict[str, Any] | _Generated | None = _GENERATED,
        app: AppConfig | dict[str, Any] | bool | None = None,
        **options: Any,
    ) -> Any:
        """:meth:`oxmcp.Server.tool`, with FastMCP's ``tags``, ``task`` (True runs a call as a
        task when the client asks; a ``TaskConfig`` names its ``mode``), ``timeout``
        (seconds: a call that runs longer fails with a tool error saying so, as FastMCP's; a
        plain ``def`` runs on a thread, which finishes on its own) and ``output_schema``
        (None: none, and results unstructured; an object's schema: the value returned is the
        structured content) and ``app`` (the MCP App that renders its results: an
        :class:`~oxmcp.fastmcp.apps.AppConfig` or its wire form, listed in ``_meta.ui``)."""
        given = {"tags": tags, "version": version, "task": task, "timeout": timeout, "app": app}
        options |= {key: value for key, value in given.items() if value is not None}
        if not isinstance(output_schema, _Generated):
            options["output_schema"] = output_schema
        if isinstance(name_or_fn, str):
            options["name"] = options.get("name") or name_or_fn

        def register(fn: Any) -> Any:
            self.add_tool(fn, **options)
            return fn

        return register(name_or_fn) if callable(name_or_fn) else register

    def add_tool(self, tool: Tool | Callable[..., Any], **options: Any) -> Tool:  # type: ignore[override]
        """Adds a tool: a :class:`~oxmcp.fastmcp.tools.Tool` (``Tool.from_tool`` makes
        one from another), or a function with :meth:`tool`'s options (those ``@tool`` gave
        it, then these). Returns the tool."""
        if isinstance(tool, Tool):
            added, registration = tool, tool._registration(self)
        else:
            # Registered as made, and the tool made of what was registered: the function's
            # definition made once.
            options = function_options(tool, options)
            registration = function_tool(tool, options, self)
            added = FunctionTool.made(registration, fn=tool, options=options)
        self._components.add(registration.kind, registration.definition, *registration.rest, titled=registration.titled)
        return added

    def resource(
        self,
        uri: str,
        *,
        tags: Iterable[str] | None = None,
        version: str | int | float | None = None,
        app: AppConfig | dict[str, Any] | None = None,
        **options: Any,
    ) -> Any:
        """:meth:`oxmcp.Server.resource`, with ``tags``, ``version`` and ``app`` (an MCP App's
        HTML: what its frame may load and do, listed in ``_meta.ui`` and sent with its
        contents). A ``ui://`` resource is ``text/html;profile=mcp-app`` unless it says."""
        if isinstance(app, AppConfig) and (app.resource_uri is not None or app.visibility is not None):
            raise ValueError(f"resource {uri}: resource_uri and visibility are a tool's, not a UI resource's")
        options = _with_ui(self._tagged(options, tags, version), app)
        options["mime_type"] = resolve_ui_mime_type(uri, options.get("mime_type"))
        register = super().resource(uri, **options)
        ui = options.get("meta", {}).get("ui")
        if ui is None or resource_kind(uri) == "template":
            return register

        def with_ui_contents(fn: Any) -> Any:
            register(_contents_with_ui(fn, uri, options["mime_type"], ui))
            return fn

        return with_ui_contents

    def add_resource(  # type: ignore[override]
        self, resource: Resource | ResourceTemplate | Callable[..., Any], uri: str | None = None, **options: Any
    ) -> Resource | ResourceTemplate:
        """Adds a resource: a :class:`~oxmcp.fastmcp.resources.Resource` (``TextResource``,
        ``FileResource``, ``Resource.from_function(fn, uri)``...), a
        :class:`~oxmcp.fastmcp.resources.ResourceTemplate`, a function the standalone
        ``@resource(uri)`` marked, or a function at ``uri`` with :meth:`resource`'s
        options. Returns the resource (or template) added."""
        if not isinstance(resource, Resource | ResourceTemplate):
            given = marked(resource)
            if uri is None and (given is None or given.kind != "resource"):
                raise TypeError("add_resource takes a Resource, a ResourceTemplate or a function marked @resource(uri)")
            options = {**(given.options if given else {}), **({"uri": uri} if uri else {}), **options}
            uri = options.pop("uri")
            made = ResourceTemplate if resource_kind(uri) == "template" else FunctionResource
            resource = made.from_function(resource, uri, **options)
        if isinstance(resource, ResourceTemplate):
            return self.add_template(resource)
        super().add_resource(resource)
        return resource

    def add_template(self, template: ResourceTemplate) -> ResourceTemplate:
        """Adds a resource template (``ResourceTemplate.from_function(fn, uri_template)``)."""
        self.resource(template.uri_template, **template.options)(template.fn)
        return template

    def add_prompt(self, prompt: Prompt | Callable[..., Any], **options: Any) -> Prompt:  # type: ignore[override]
        """Adds a prompt: a :class:`~oxmcp.fastmcp.prompts.Prompt`
        (``Prompt.from_function(fn, ...)``) or a function, with the options the standalone
        ``@prompt`` gave it, then these. Returns the prompt added."""
        if not isinstance(prompt, Prompt):
            given = marked(prompt)
            options = {**(given.options if given and given.kind == "prompt" else {}), **options}
            prompt = Prompt.from_function(prompt, **options)
        super().add_prompt(prompt)
        return prompt

    def prompt(
        self,
        name_or_fn: Any = None,
        /,
        *,
        tags: Iterable[str] | None = None,
        version: str | int | float | None = None,
        **options: Any,
    ) -> Any:
        """:meth:`oxmcp.Server.prompt`, with ``tags`` and ``version``."""
        return super().prompt(name_or_fn, **self._tagged(options, tags, version))

    # What a client gets, asked of the server by its own code (FastMCP's `list_tools()`,
    # `call_tool()`...): a client of it in this process, so that the server's transforms,
    # visibility rules and middleware apply as they do to every request.

    def _asked(self) -> Client:
        """FastMCP's client of this server in this process, in the 2026-07-28 era (no
        handshake to make)."""
        return Client(self, mode="2026-07-28")

    async def list_tools(self) -> list[ListedTool]:  # type: ignore[override]
        """The tools a client is listed, with FastMCP's names for their fields
        (``parameters``, ``output_schema``, ``tags``, ``version``) as its middleware sees
        them: after the server's transforms, visibility rules and middleware, mounted
        servers' and providers' included; each version of a name, the oldest first, as
        FastMCP gives them (a client is listed the highest)."""
        return [version for tool in await self._listed_tools() for version in self._versions_of(tool)]

    async def get_tool(self, name: str, version: VersionSpec | str | None = None) -> ListedTool | None:
        """The tool ``name`` as the server serves it (of several versions, the highest, or
        the highest ``version`` matches: a :class:`VersionSpec` or one version), or None
        when it has none of that name and version or its visibility rules hide it (and,
        within a request, its session's), as FastMCP's: without running the middleware,
        which may be what looks the tool up (to refuse a call of a tool it hides from
        lists)."""
        definition = self._components.definition("tool", name)
        if definition is not None and version is not None:
            definition = self._version_of(name, definition, version)
        if definition is None:
            return None
        native = native_context()
        rules = self.visibility if native is None else await self._context(FastMCPContext, native).visibility_rules()
        if not is_visible(rules, Component.listed("tool", definition), self._components.enabled("tool", definition)):
            return None
        return ListedTool.model_validate(definition)

    def _version_of(self, name: str, highest: dict[str, Any], version: VersionSpec | str) -> dict[str, Any] | None:
        """The definition of the highest version of tool ``name`` that ``version`` matches
        (``highest`` is the highest of all), None when none does."""
        spec = VersionSpec(eq=version) if isinstance(version, str) else version
        versions: dict[str | None, dict[str, Any]] = {ListedTool.model_validate(highest).version: highest}
        versions.update(self._components.versions("tool", name) or {})
        matching = [(tag, definition) for tag, definition in versions.items() if spec.matches(tag)]
        if not matching:
            return None
        _, definition = max(matching, key=lambda item: version_key(item[0]) if item[0] is not None else ())
        return {**definition, "name": name}

    async def _listed_tools(self) -> list[ListedTool]:
        """The tools a client is listed, as FastMCP's middleware sees them."""
        async with self._own_client() as client:
            return [ListedTool.model_validate(tool.to_wire()) for tool in await client.list_tools()]

    def _versions_of(self, tool: ListedTool) -> list[ListedTool]:
        """A listed tool's versions, the oldest first, each its own definition under the
        name it is listed by (the highest as listed)."""
        versions = self._components.versions("tool", tool.name)
        if not versions:
            return [tool]
        return [
            tool if version == tool.version else ListedTool.model_validate({**definition, "name": tool.name})
            for version, definition in sorted(versions.items(), key=lambda item: version_key(item[0]))
        ]

    async def call_tool(  # type: ignore[override]
        self, name: str, arguments: dict[str, Any] | None = None, *, version: str | None = None
    ) -> ToolResult:
        """Calls a tool (its ``version``, when given) as a client in this process would,
        middleware and visibility included: its result as a
        :class:`~oxmcp.fastmcp.tools.ToolResult`; its failure raises ``ToolError``, a
        tool no client can call ``McpError``."""
        async with self._asked() as client:
            result = await client.call_tool(name, arguments, version=version)
        return ToolResult(result.content, result.structured_content, result.meta)

    async def list_resource_templates(self) -> list[types.ResourceTemplate]:
        """The resource templates a client is listed, as :meth:`list_tools` gives the tools."""
        async with self._asked() as client:
            return await client.list_resource_templates()

    async def list_prompts(self) -> list[types.Prompt]:
        """The prompts a client is listed, as :meth:`list_tools` gives the tools."""
        async with self._asked() as client:
            return await client.list_prompts()

    async def _listed_resources(self) -> list[types.Resource]:
        """The resources a client is listed (``await mcp.list_resources()``), as
        :meth:`list_tools` gives the tools."""
        async with self._asked() as client:
            return await client.list_resources()

    async def read_resource(self, uri: str, *, version: str | None = None) -> list[types.ResourceContents]:
        """The contents of the resource at ``uri`` (its ``version``, when given), read as
        :meth:`call_tool` calls a tool."""
        async with self._asked() as client:
            return await client.read_resource(uri, version=version)

    async def render_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, *, version: str | None = None
    ) -> types.GetPromptResult:
        """A prompt rendered (its ``version``, when given) as :meth:`call_tool` calls a
        tool; arguments that are not strings are sent as JSON text."""
        async with self._asked() as client:
            return await client.get_prompt(name, arguments, version=version)

    @property
    def local_provider(self) -> Self:
        """What holds the server's own components, as FastMCP's ``mcp.local_provider`` does
        (``mcp.local_provider.remove_tool(name, version=)``): the server itself, whose
        decorators, ``add_*`` and ``remove_*`` act on them."""
        return self

    def remove_tool(self, name: str, version: str | None = None) -> bool:
        """Removes a tool, or one ``version`` of it; returns whether it existed."""
        return self._remove("tool", name, version)

    def remove_resource(self, uri: str, version: str | None = None) -> bool:
        """Removes a resource or template, or one ``version`` of it; returns whether it existed."""
        return self._remove(resource_kind(uri), uri, version)

    def remove_prompt(self, name: str, version: str | None = None) -> bool:
        """Removes a prompt, or one ``version`` of it; returns whether it existed."""
        return self._remove("prompt", name, version)

    def _remove(self, kind: Kind, name: str, version: str | None) -> bool:
        if version is None:
            return self._components.remove(kind, name)
        assert isinstance(self._components, VersionedComponents)
        return self._components.remove_version(kind, name, version)


def create_proxy(
    target: Client | Server | ClientTransport | str | Path | dict[str, Any],
    *,
    mode: str | None = None,
    **settings: Any,
) -> FastMCPProxy:
    """FastMCP's ``create_proxy``: a server that serves what ``target`` offers (a server in
    this process, a script, a URL, an MCP configuration, a transport or a ``Client``, as
    :class:`~oxmcp.fastmcp.Client` takes them) through one connection, made while the proxy
    serves (see :meth:`oxmcp.Server.proxy`). ``mode`` pins the era of a connection it makes
    (``"legacy"``, ``"auto"`` or a revision; by default the newest both sides speak: the
    core passes questions between the eras, so the caller's need not match). ``settings``
    are :class:`FastMCP`'s.

    The connection it makes says it can sample, elicit and list roots, as FastMCP's does,
    so that the server asks its questions: they reach the proxy's caller (see
    :meth:`oxmcp.Server.proxy`); one the proxy cannot relate to a caller's request (a
    server of 2025-11-25 or earlier asking while several calls are pending, or while a
    2026-07-28 client's is) is refused."""
    from .providers.proxy import FastMCPProxy, ProxyClient

    upstream = target if isinstance(target, Client) else ProxyClient(target, mode=mode)
    return FastMCPProxy(client_factory=lambda: upstream, **settings)


async def unrelated_question(*_: Any) -> Any:
    """What a proxy's connection answers a question of the server behind it that the core
    could not pass on to the caller it belongs to."""
    raise McpError(_native.INVALID_REQUEST, "the proxy cannot tell which of its callers this question is for")


def function_tool(fn: Callable[..., Any], options: dict[str, Any], server: FastMCP | None) -> _Registration:
    """What ``server`` registers for the tool ``fn`` makes with :meth:`FastMCP.tool`'s
    ``options`` (None: its definition alone, its handler never run)."""
    options = dict(options)
    tags, version, app = options.pop("tags", None), options.pop("version", None), options.pop("app", None)
    checks = [] if server is None else server._auth_checks()
    options = _with_tool_ui(_with_tags(options, tags, version, checks), app, fn)
    if "output_schema" in options and options["output_schema"] is None:
        del options["output_schema"]
        options["structured_output"] = False
    task = options.pop("task", None)
    if task is None and server is not None and server.tasks_by_default:
        task = True
    if task is not None:
        options["task"] = _task_support(task)
    if (timeout := options.pop("timeout", None)) is not None:
        fn = _with_timeout(fn, timeout, str(options.get("name") or fn.__name__))
    options["lax_arguments"] = server is None or not server.strict_input_validation
    context = _no_context if server is None else server._context
    conventions = FastMCP._conventions if server is None else server._conventions
    return tool_registration(conventions, context, fn, **options)


def _no_context(kind: type[Context[Any]], native: Any) -> Context[Any]:
    """The context maker of a tool made for its definition alone, whose handler never runs."""
    raise AssertionError("a tool made for its definition alone is not run")


def _task_support(task: bool | TaskConfig) -> TaskMode:
    """FastMCP's ``task=`` as oxmcp's: True is ``"optional"``, False ``"forbidden"``, a
    ``TaskConfig`` its ``mode``."""
    return (TaskConfig.from_bool(task) if isinstance(task, bool) else task).mode


def _with_timeout(fn: Callable[..., Any], timeout: float, name: str) -> Callable[..., Any]:
    """``fn`` as an ``async def`` that fails, as FastMCP's tools fail, once it has run
    ``timeout`` seconds (a plain ``def`` on a thread of its own)."""

    @functools.wraps(fn)
    async def timed(*args: Any, **kwargs: Any) -> Any:
        run = fn(*args, **kwargs) if inspect.iscoroutinefunction(fn) else asyncio.to_thread(fn, *args, **kwargs)
        try:
            return await asyncio.wait_for(run, timeout)
        except TimeoutError:
            raise TimeoutError(f"Tool '{name}' execution timed out after {timeout}s") from None

    return timed


def _with_ui(options: dict[str, Any], app: AppConfig | dict[str, Any] | None) -> dict[str, Any]:
    """`options` with an MCP App's configuration in the ``meta`` they give (``_meta.ui``)."""
    if app is None:
        return options
    return {**options, "meta": {**(options.get("meta") or {}), "ui": app_config_to_meta_dict(app)}}


def _with_tool_ui(
    options: dict[str, Any], app: AppConfig | dict[str, Any] | bool | None, fn: Callable[..., Any]
) -> dict[str, Any]:
    """`options` with the MCP App a tool belongs to: its ``app`` (True: rendered by Prefab
    UI, as a tool that returns a Prefab component is unless it says otherwise), its
    ``_meta.ui`` naming Prefab's renderer when it asks for it."""
    if app is None and is_prefab_annotation(inspect_function(fn).return_annotation):
        app = True
    if app is True:
        app = PrefabAppConfig()
    if app is None or app is False:
        return options
    ui = app_config_to_meta_dict(app)
    return _with_ui(options, rendered_ui(ui) if is_placeholder(ui) else ui)


def _contents_with_ui(
    fn: Callable[..., Any], uri: str, mime_type: str | None, ui: dict[str, Any]
) -> Callable[..., Any]:
    """A UI resource's function, its text (or bytes) sent as contents that carry the app's
    ``_meta.ui``, as FastMCP sends them."""

    def contents(value: Any) -> Any:
        if isinstance(value, str):
            return TextResourceContents(uri=uri, mime_type=mime_type, text=value, _meta={"ui": ui})
        if isinstance(value, bytes):
            blob = base64.b64encode(value).decode()
            return BlobResourceContents(uri=uri, mime_type=mime_type, blob=blob, _meta={"ui": ui})
        return value

    return wrapped(fn, after=contents)


def _with_tags(
    options: dict[str, Any], tags: Iterable[str] | None, version: str | int | float | None, checks: list[Any]
) -> dict[str, Any]:
    """`options` with `tags` and `version` in the ``meta`` they give, where FastMCP lists them
    (and where :mod:`._versions` finds the version), and the scopes FastMCP's ``auth`` and
    the server's ``checks`` (its ``AuthMiddleware``'s) ask of a component so tagged."""
    if "auth" in options or checks:
        options = dict(options)
        scopes = component_scopes([options.pop("auth", []), *checks], tags or ())
        if scopes:
            options["scopes"] = scopes
    listed = {
        **({"tags": sorted(tags)} if tags is not None else {}),
        **({"version": str(version)} if version is not None else {}),
    }
    if not listed:
        return options
    meta = dict(options.get("meta") or {})
    meta["fastmcp"] = {**meta.get("fastmcp", {}), **listed}
    return {**options, "meta": meta}


__all__ = ["FastMCP", "create_proxy"]

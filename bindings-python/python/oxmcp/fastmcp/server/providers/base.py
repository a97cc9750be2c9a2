"""FastMCP's ``Provider``: tools, resources, templates and prompts that come from elsewhere
(a database, a service, a registry of one's own), asked for as the requests need them::

    class DatabaseProvider(Provider):
        async def _list_tools(self) -> list[Tool]:
            return [make_tool(row) for row in await db.fetch("SELECT * FROM tools")]

    mcp = FastMCP("Server", providers=[DatabaseProvider()])

A server serves a provider as FastMCP does: a list asks it for its list, a call (a read, a
prompt) for the one component named, so that what it answers changes what clients get
without a restart; the server's own components come first. Underneath, what the provider
answered is registered on a server of the provider's own, mounted on the one serving it
(:class:`Served`), which a middleware of that server's brings up to date before each
request (:class:`_Asking`): a component the provider answers again unchanged stays as it
is, one it answers otherwise takes its place, and one it no longer answers is withdrawn
(clients are told the lists changed when something did)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from typing_extensions import Self, Unpack

from ...prompts import Prompt
from ...resources import Resource, ResourceTemplate
from ...tools.base import Tool
from ...utilities.versions import VersionSpec
from .._versions import VersionKey, version_key, version_of
from ..middleware.middleware import CallNext, Middleware, MiddlewareContext
from ..server import FastMCP
from ..transforms import _PROVIDER_TRANSFORMS, Namespace, Transform
from ..transforms.visibility import Component, Criteria, Visibility, is_visible

if TYPE_CHECKING:
    from ....server._mounting import Components, Kind

#: A component a provider gives.
Provided = Tool | Resource | ResourceTemplate | Prompt
P = TypeVar("P", Tool, Resource, ResourceTemplate, Prompt)


class Provider:
    """Components given by methods a subclass overrides: ``_list_tools()`` and
    ``_get_tool(name, version)``, ``_list_resources()`` and ``_get_resource(uri, version)``,
    ``_list_resource_templates()`` and ``_get_resource_template(uri, version)``,
    ``_list_prompts()`` and ``_get_prompt(name, version)``. A list gives every version of
    every component; a lookup gives the highest version that matches (``version``, a
    :class:`VersionSpec`, or any), or None when the provider has none (each by default
    looks through its list). Tools are :class:`~oxmcp.fastmcp.tools.Tool` objects (a
    subclass that runs itself, or ``Tool.from_function``), resources
    :class:`~oxmcp.fastmcp.resources.Resource` ones, templates
    ``ResourceTemplate.from_function`` ones and prompts ``Prompt.from_function`` ones.
    :meth:`lifespan` is entered and left with the server's."""

    def __init__(self) -> None:
        #: The provider's visibility rules (:meth:`enable`, :meth:`disable`), in order.
        self.visibility: list[Visibility] = []
        self._transforms: list[Transform] = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # What the provider serves, its visibility rules applied.

    async def list_tools(self) -> Sequence[Tool]:
        """Every version of every tool the provider serves."""
        return self._shown("tool", await self._list_tools())

    async def get_tool(self, name: str, version: VersionSpec | None = None) -> Tool | None:
        """The tool ``name`` (of the highest version ``version`` matches), or None."""
        return self._shown_one("tool", await self._get_tool(name, version))

    async def list_resources(self) -> Sequence[Resource]:
        """Every version of every resource the provider serves."""
        return self._shown("resource", await self._list_resources())

    async def get_resource(self, uri: str, version: VersionSpec | None = None) -> Resource | None:
        """The resource at ``uri`` (of the highest version ``version`` matches), or None."""
        return self._shown_one("resource", await self._get_resource(uri, version))

    async def list_resource_templates(self) -> Sequence[ResourceTemplate]:
        """Every version of every resource template the provider serves."""
        return self._shown("template", await self._list_resource_templates())

    async def get_resource_template(self, uri: str, version: VersionSpec | None = None) -> ResourceTemplate | None:
        """The resource template ``uri`` is one of the URIs of (of the highest version
        ``version`` matches), or None."""
        return self._shown_one("template", await self._get_resource_template(uri, version))

    async def list_prompts(self) -> Sequence[Prompt]:
        """Every version of every prompt the provider serves."""
        return self._shown("prompt", await self._list_prompts())

    async def get_prompt(self, name: str, version: VersionSpec | None = None) -> Prompt | None:
        """The prompt ``name`` (of the highest version ``version`` matches), or None."""
        return self._shown_one("prompt", await self._get_prompt(name, version))

    # What a subclass overrides.

    async def _list_tools(self) -> Sequence[Tool]:
        """Every version of every tool: none unless overridden."""
        return []

    async def _get_tool(self, name: str, version: VersionSpec | None = None) -> Tool | None:
        """The tool ``name``: by default the highest matching version in the list."""
        return _highest([tool for tool in await self._list_tools() if tool.name == name], version)

    async def _list_resources(self) -> Sequence[Resource]:
        """Every version of every resource: none unless overridden."""
        return []

    async def _get_resource(self, uri: str, version: VersionSpec | None = None) -> Resource | None:
        """The resource at ``uri``: by default the highest matching version in the list."""
        return _highest([resource for resource in await self._list_resources() if str(resource.uri) == uri], version)

    async def _list_resource_templates(self) -> Sequence[ResourceTemplate]:
        """Every version of every resource template: none unless overridden."""
        return []

    async def _get_resource_template(self, uri: str, version: VersionSpec | None = None) -> ResourceTemplate | None:
        """The template ``uri`` is one of the URIs of: by default the highest matching
        version of those in the list it matches."""
        templates = await self._list_resource_templates()
        return _highest([template for template in templates if template.matches(uri) is not None], version)

    async def _list_prompts(self) -> Sequence[Prompt]:
        """Every version of every prompt: none unless overridden."""
        return []

    async def _get_prompt(self, name: str, version: VersionSpec | None = None) -> Prompt | None:
        """The prompt ``name``: by default the highest matching version in the list."""
        return _highest([prompt for prompt in await self._list_prompts() if prompt.name == name], version)

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Entered when the server serving the provider starts, left when it stops: where
        a subclass opens what it needs (a database connection) and closes it."""
        yield

    # Transforms

    @property
    def transforms(self) -> list[Transform]:
        """The transforms applied to the provider's components, the first added innermost."""
        return list(self._transforms)

    def add_transform(self, transform: Transform) -> None:
        """Applies ``transform`` to the provider's components on every server serving it,
        after those added before: ``Namespace("api")`` serves ``greet`` as ``api_greet``
        (and ``data://x`` as ``data://api/x``), ``ToolTransform`` changes tools by name,
        ``VersionFilter`` serves a range of versions. The provider is still asked for a
        component by the name it gave. Transforms that make tools of a server's
        components (``PromptsAsTools``, the search transforms) belong to the server and
        are refused here, as is a transform of one's own."""
        if not isinstance(transform, _PROVIDER_TRANSFORMS):
            raise TypeError(
                "a provider applies FastMCP's Namespace, ToolTransform and VersionFilter; "
                f"{type(transform).__name__} is not served"
            )
        self._transforms.append(transform)

    def wrap_transform(self, transform: Transform) -> Provider:
        """A provider of this one's components with ``transform`` applied after the
        transforms this one has now, this one unchanged: the same provider served under
        two namespaces, say. Its lifespan is this one's."""
        wrapped = _Wrapped(self)
        wrapped.add_transform(transform)
        return wrapped

    # Visibility

    def enable(self, *, only: bool = False, **criteria: Unpack[Criteria]) -> Self:
        """Shows what matches every criterion given, of the provider's components (after
        a :meth:`disable` that hid it); with ``only``, hides the rest of them."""
        if only:
            self.visibility.append(Visibility(False, match_all=True))
        self.visibility.append(Visibility(True, **criteria))
        return self

    def disable(self, **criteria: Unpack[Criteria]) -> Self:
        """Hides what matches every criterion given, of the provider's components, from
        every server serving it."""
        self.visibility.append(Visibility(False, **criteria))
        return self

    def _shown(self, kind: Kind, components: Sequence[P]) -> list[P]:
        return [component for component in components if self._shows(kind, component)]

    def _shown_one(self, kind: Kind, component: P | None) -> P | None:
        return component if component is not None and self._shows(kind, component) else None

    def _shows(self, kind: Kind, component: Provided) -> bool:
        return not self.visibility or is_visible(self.visibility, _component(kind, component))


class _Wrapped(Provider):
    """What :meth:`Provider.wrap_transform` gives: the inner provider's components, its
    visibility rules and transforms applied, then transforms of its own."""

    def __init__(self, inner: Provider) -> None:
        super().__init__()
        self.inner = inner
        # Those it has when wrapped: a server applies a provider's transforms in order,
        # so one the inner provider adds later cannot go before the copy's own.
        self._inner_transforms = inner.transforms

    def __repr__(self) -> str:
        return f"{self.inner!r}.wrap_transform({self._transforms!r})"

    @property
    def transforms(self) -> list[Transform]:
        return self._inner_transforms + self._transforms

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        async with self.inner.lifespan():
            yield

    async def _list_tools(self) -> Sequence[Tool]:
        return await self.inner.list_tools()

    async def _get_tool(self, name: str, version: VersionSpec | None = None) -> Tool | None:
        return await self.inner.get_tool(name, version)

    async def _list_resources(self) -> Sequence[Resource]:
        return await self.inner.list_resources()

    async def _get_resource(self, uri: str, version: VersionSpec | None = None) -> Resource | None:
        return await self.inner.get_resource(uri, version)

    async def _list_resource_templates(self) -> Sequence[ResourceTemplate]:
        return await self.inner.list_resource_templates()

    async def _get_resource_template(self, uri: str, version: VersionSpec | None = None) -> ResourceTemplate | None:
        return await self.inner.get_resource_template(uri, version)

    async def _list_prompts(self) -> Sequence[Prompt]:
        return await self.inner.list_prompts()

    async def _get_prompt(self, name: str, version: VersionSpec | None = None) -> Prompt | None:
        return await self.inner.get_prompt(name, version)


def _version(component: Provided) -> str | None:
    if isinstance(component, ResourceTemplate):
        version = component.options.get("version")
        return None if version is None else str(version)
    return component.version


def _key(kind: Kind, component: Provided) -> str:
    """What a component is served as: a tool's or prompt's name, a resource's URI, a
    template's URI template."""
    if isinstance(component, Resource):
        return str(component.uri)
    if isinstance(component, ResourceTemplate):
        return component.uri_template
    return component.name


def _component(kind: Kind, component: Provided) -> Component:
    """What a visibility rule matches of a provider's component."""
    key = _key(kind, component)
    tags = component.options.get("tags") if isinstance(component, ResourceTemplate) else component.tags
    return Component(
        kind=kind,
        name=component.name or key,
        uri=key if kind in ("resource", "template") else None,
        tags=frozenset(tags or ()),
        version=_version(component),
    )


def _highest(found: list[P], version: VersionSpec | None) -> P | None:
    """Of ``found``, the highest version ``version`` matches (unversioned lowest)."""
    matching = [each for each in found if version is None or version.matches(_version(each))]
    return max(matching, key=_order, default=None)


def _order(component: Provided) -> VersionKey:
    """Where a component's version sorts: unversioned below every version."""
    version = _version(component)
    return (-1, "") if version is None else version_key(version)


class Served:
    """A provider as a server serves it: the components it answered, registered on a server
    of their own (:attr:`server`, which the serving server mounts, under a namespace if
    given), kept as the provider answers each request."""

    def __init__(self, provider: Provider, namespace: str | None, serving: Components) -> None:
        self.provider = provider
        #: The serving server's components: a name of its own is not asked of the provider.
        self.serving = serving
        #: The server its components are registered on; its lifespan is the provider's.
        self.server = FastMCP(repr(provider), lifespan=lambda _server: provider.lifespan())
        #: The components registered, by kind, name (or URI) and version.
        self._held: dict[tuple[Kind, str, str | None], Provided] = {}
        #: How many of the provider's transforms apply to :attr:`server` (one the provider
        #: adds while served applies from the next request).
        self._applied = 0
        #: The namespace it is served under, as the outermost transform.
        self._outer: list[Transform] = [] if namespace is None else [Namespace(namespace)]

    @property
    def asking(self) -> Middleware:
        """The middleware that asks the provider before each request."""
        return _Asking(self)

    async def ask(self, method: str | None, message: Any) -> None:
        """Asks the provider what request ``method`` (its params ``message``) needs, and
        registers what it answers."""
        provider = self.provider
        for transform in provider.transforms[self._applied :]:
            self.server.add_transform(transform)
            self._applied += 1
        if method == "tools/list":
            self._hold_all("tool", await provider.list_tools())
        elif method == "resources/list":
            self._hold_all("resource", await provider.list_resources())
        elif method == "resources/templates/list":
            self._hold_all("template", await provider.list_resource_templates())
        elif method == "prompts/list":
            self._hold_all("prompt", await provider.list_prompts())
        elif method in ("tools/call", "prompts/get"):
            kind: Kind = "tool" if method == "tools/call" else "prompt"
            name = self._given(kind, message.name)
            if name is not None:
                getter = provider.get_tool if kind == "tool" else provider.get_prompt
                self._hold_one(kind, name, await getter(name, _asked_version(message)))
        elif method == "resources/read":
            uri = self._given("resource", str(message.uri))
            if uri is not None:
                version = _asked_version(message)
                resource = await provider.get_resource(uri, version)
                self._hold_one("resource", uri, resource)
                if resource is None:
                    template = await provider.get_resource_template(uri, version)
                    if template is not None:
                        self._hold_one("template", template.uri_template, template)

    def _given(self, kind: Kind, served: str) -> str | None:
        """The name (or URI) the provider gave what is served as ``served``: through the
        namespace it is served under, then its own transforms, the last added first; None
        when the serving server has ``served`` itself (it comes first), or one of the
        transforms serves nothing so."""
        if self.serving.owns(kind, served):
            return None
        given: str | None = served
        for transform in reversed(self.provider.transforms[: self._applied] + self._outer):
            if given is None:
                break
            given = transform._given(kind, given)
        return given

    def _hold_all(self, kind: Kind, components: Sequence[Provided]) -> None:
        """Registers what a list answered, in its order, and withdraws what it no longer has."""
        answered = {(kind, _key(kind, each), _version(each)): each for each in components}
        kept = [key for key in self._held if key[0] == kind and key in answered]
        if kept + [key for key in answered if key not in self._held] != list(answered):
            # Listed in the provider's order, as FastMCP lists them: what is new goes last.
            for key in kept:
                self._withdraw(key)
        for key in [key for key in self._held if key[0] == kind and key not in answered]:
            self._withdraw(key)
        for key, component in answered.items():
            self._hold(key, component)

    def _hold_one(self, kind: Kind, name: str, component: Provided | None) -> None:
        """Registers what a lookup answered; withdraws every version of ``name`` when it
        answered none."""
        if component is None:
            for key in [key for key in self._held if key[:2] == (kind, name)]:
                self._withdraw(key)
        else:
            self._hold((kind, _key(kind, component), _version(component)), component)

    def _hold(self, key: tuple[Kind, str, str | None], component: Provided) -> None:
        held = self._held.get(key)
        if held is not None and held == component:
            return
        if held is not None:
            self._withdraw(key)
        server = self.server
        if isinstance(component, Tool):
            server.add_tool(component)
        elif isinstance(component, Resource):
            server.add_resource(component)
        elif isinstance(component, ResourceTemplate):
            server.add_template(component)
        else:
            server.add_prompt(component)
        self._held[key] = component

    def _withdraw(self, key: tuple[Kind, str, str | None]) -> None:
        kind, name, version = key
        del self._held[key]
        if kind == "tool":
            self.server.remove_tool(name, version)
        elif kind == "prompt":
            self.server.remove_prompt(name, version)
        else:
            self.server.remove_resource(name, version)


def _asked_version(message: Any) -> VersionSpec | None:
    """The version a request asks for (``_meta.fastmcp.version``), as a spec."""
    version = version_of({"_meta": getattr(message, "meta", None)})
    return None if version is None else VersionSpec(eq=version)


class _Asking(Middleware):
    """Asks a served provider what each request needs before the request runs."""

    def __init__(self, served: Served) -> None:
        self.served = served

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        await self.served.ask(context.method, context.message)
        return await call_next(context)


__all__ = ["Provider", "Served"]

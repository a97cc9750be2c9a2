"""FastMCP's ``FastMCP``: an oxmcp :class:`~oxmcp.Server` with FastMCP's conventions."""

from __future__ import annotations

import asyncio
import base64
import functools
import inspect
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from typing_extensions import Self, Unpack

from ..._conventions import Conventions
from ...server import Server, resource_kind
from ...server._mounting import Components, Kind
from ...types import BlobResourceContents, TextResourceContents
from .._conventions import FastMCPConventions
from ..apps import AppConfig, app_config_to_meta_dict, resolve_ui_mime_type
from ..client import Client
from ..client.transports import ClientTransport
from ..utilities.tasks import TaskConfig, TaskMode
from ._middleware import interceptor
from ._versions import VersionedComponents
from .auth.auth import component_scopes
from .middleware import Middleware
from .middleware.authorization import AuthMiddleware
from .transforms.visibility import Criteria, Visibility

if TYPE_CHECKING:
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

    _conventions: ClassVar[Conventions] = FastMCPConventions()
    _components_type: ClassVar[type[Components]] = VersionedComponents

    def __init__(self, *args: Any, middleware: Iterable[Middleware] | None = None, **kwargs: Any) -> None:
        """:class:`oxmcp.Server`'s arguments, and FastMCP's ``middleware``: run around every
        request, the first given outermost (see :meth:`add_middleware`)."""
        super().__init__(*args, **kwargs)
        self.middleware: list[Middleware] = []
        #: The server's visibility rules (:meth:`enable`, :meth:`disable`), in order.
        self.visibility: list[Visibility] = []
        #: The transforms applied (:meth:`add_transform`), in order.
        self.transforms: list[Transform] = []
        self._intercepting = False
        #: Whether some session has visibility rules of its own (until then none is looked up).
        self._session_rules = False
        for each in middleware or ():
            self.add_middleware(each)

    def add_middleware(self, middleware: Middleware) -> None:
        """Runs ``middleware`` around every request but the handshake, inside those added
        before (:mod:`oxmcp.fastmcp.server.middleware`). An ``AuthMiddleware``'s checks
        become the scopes of each component registered after it."""
        if isinstance(middleware, AuthMiddleware) and any(
            self._components.definitions(kind) for kind in ("tool", "resource", "template", "prompt")
        ):
            raise RuntimeError("give AuthMiddleware to the server before registering its tools, resources and prompts")
        self.middleware.append(middleware)
        # An AuthMiddleware's checks are the components' scopes: it has nothing to run.
        if type(middleware) is not AuthMiddleware:
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
        checks = [middleware.auth for middleware in self.middleware if isinstance(middleware, AuthMiddleware)]
        return _with_tags(options, tags, version, checks)

    def _intercept(self) -> None:
        """Runs the middleware and the visibility rules from now on (the core's interceptor,
        which a server without either does without)."""
        if not self._intercepting:
            self._native.set_interceptor(interceptor(self))
            self._intercepting = True

    def add_transform(self, transform: Transform) -> None:
        """Applies ``transform`` (:mod:`oxmcp.fastmcp.server.transforms`): adds the tools it
        makes, and lists only the tools it lists. FastMCP's other transforms are refused."""
        from .transforms import Transform

        if not isinstance(transform, Transform):
            raise TypeError(
                "oxmcp applies FastMCP's PromptsAsTools, ResourcesAsTools and search transforms; "
                f"{type(transform).__name__} is not served"
            )
        transform._apply(self)
        self.transforms.append(transform)

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
        options = _with_ui(self._tagged(options, tags, version), app)
        if output_schema is None:
            options["structured_output"] = False
        elif not isinstance(output_schema, _Generated):
            options["output_schema"] = output_schema
        if task is not None:
            options["task"] = _task_support(task)
        if timeout is None:
            return super().tool(name_or_fn, **options)
        register = super().tool(None if callable(name_or_fn) else name_or_fn, **options)

        def timed(fn: Any) -> Any:
            given = options.get("name") or (name_or_fn if isinstance(name_or_fn, str) else None)
            register(_with_timeout(fn, timeout, str(given or fn.__name__)))
            return fn

        return timed(name_or_fn) if callable(name_or_fn) else timed

    def resource(
        self,
        uri: str,
        *,
        tags: Iterable[str] | None = None,
        version: str | int | float | None = None,
        app: AppConfig | dict[str, Any] | bool | None = None,
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
    name: str = "FastMCPProxy",
    **settings: Any,
) -> FastMCP:
    """FastMCP's ``create_proxy``: a server that serves what ``target`` offers (a server in
    this process, a script, a URL, an MCP configuration, a transport or a ``Client``, as
    :class:`~oxmcp.fastmcp.Client` takes them) through one connection, made while the proxy
    serves (see :meth:`oxmcp.Server.proxy`). ``settings`` are :class:`FastMCP`'s."""
    upstream = target if isinstance(target, Client) else Client(target)
    proxy = FastMCP(name, **settings)
    proxy.proxy(upstream.native)
    return proxy


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


def _with_ui(options: dict[str, Any], app: AppConfig | dict[str, Any] | bool | None) -> dict[str, Any]:
    """`options` with an MCP App's configuration in the ``meta`` they give (``_meta.ui``)."""
    if app is None or app is False:
        return options
    if app is True:
        raise ValueError("app=True renders with FastMCP's Prefab, which oxmcp does not serve: give an AppConfig")
    return {**options, "meta": {**(options.get("meta") or {}), "ui": app_config_to_meta_dict(app)}}


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

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def read_on_loop(*args: Any, **kwargs: Any) -> Any:
            return contents(await fn(*args, **kwargs))

        return read_on_loop

    @functools.wraps(fn)
    def read_here(*args: Any, **kwargs: Any) -> Any:
        return contents(fn(*args, **kwargs))

    return read_here


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

"""The server: decorators that turn Python functions into tools, resources and prompts,
served by the Rust core over stdio (or in memory, to an in-process :class:`Client`)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import re
import sys
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Literal, TypeVar, overload

from pydantic import ValidationError

from . import _native
from ._convert import prompt_result, read_result, tool_result
from ._errors import INVALID_PARAMS, McpError
from ._schema import FunctionSpec, input_schema, inspect_function, json_coercer, output_schema, string_coercer
from .context import Context
from .types import Annotations, ToolAnnotations

Handler = TypeVar("Handler", bound=Callable[..., Any])
Completer = Callable[..., Iterable[str] | Awaitable[Iterable[str]]]
Wire = dict[str, Any]
_TEMPLATE_EXPRESSION = re.compile(r"\{[+#./;?&]?([^}]+)\}")


class Server:
    """An MCP server.

    >>> server = Server("demo", version="1.0.0")
    >>> @server.tool()
    ... async def add(a: int, b: int) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b

    ``server.run()`` serves stdio; ``Client(server)`` talks to it in the same process.
    Definitions may be added and removed while the server runs: clients are told.
    """

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
    ) -> None:
        info = _drop_none(
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
        self._native = _native.Server(info, instructions, page_size)

    # Tools

    @overload
    def tool(self, fn: Handler, /) -> Handler: ...

    @overload
    def tool(
        self,
        name: str | None = None,
        /,
        *,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> Callable[[Handler], Handler]: ...

    def tool(
        self,
        fn_or_name: Any = None,
        /,
        *,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> Any:
        """Registers a function as a tool: ``@server.tool``, ``@server.tool()`` or
        ``@server.tool("name", ...)``.

        Parameters become the input schema (``Annotated[int, Field(description=...)]``
        documents one); the docstring, the description; the return annotation, the output
        schema (objects as they are, anything else as ``{"result": ...}``; text and content
        stay unstructured). ``structured_output=False`` turns the output schema off.
        """
        if callable(fn_or_name):
            self.add_tool(fn_or_name)
            return fn_or_name

        def register(fn: Handler) -> Handler:
            self.add_tool(
                fn,
                name=fn_or_name,
                title=title,
                description=description,
                annotations=annotations,
                icons=icons,
                meta=meta,
                structured_output=structured_output,
            )
            return fn

        return register

    def add_tool(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> None:
        """Adds (or replaces) a tool; connected clients are told the list changed."""
        spec = inspect_function(fn)
        schema, wrapped = output_schema(spec.return_annotation) if structured_output is not False else (None, False)
        if structured_output and schema is None:
            raise TypeError(f"tool {spec.name}: structured output needs a return annotation of data, not content")
        if isinstance(annotations, ToolAnnotations):
            annotations = annotations.to_wire()
        definition = _drop_none(
            {
                "name": name or spec.name,
                "title": title,
                "description": description or spec.description,
                "inputSchema": input_schema(spec),
                "outputSchema": schema,
                "annotations": annotations,
                "icons": icons,
                "_meta": meta,
            }
        )
        coercers = {p.name: c for p in spec.parameters if (c := json_coercer(p.annotation)) is not None}
        accepted = {p.name for p in spec.parameters}
        structured = schema is not None

        async def call(arguments: Wire, native_ctx: _native.Context) -> Wire:
            kwargs = {
                key: coercers[key](value) if key in coercers else value
                for key, value in arguments.items()
                if key in accepted
            }
            value = await _invoke(fn, spec, kwargs, native_ctx)
            return tool_result(value, structured, wrapped)

        self._native.add_tool(definition, call)

    def remove_tool(self, name: str) -> bool:
        """Removes a tool; returns whether it existed."""
        return self._native.remove_tool(name)

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
    ) -> Callable[[Handler], Handler]:
        """Registers a function as a resource at ``uri``, or as a resource template when
        ``uri`` has ``{variables}`` (the function's parameters, by name).

        Return str (text), bytes (a blob), resource contents, or data (sent as JSON).
        ``completions`` maps template variables to ``complete(value, context)`` functions.
        """

        def register(fn: Handler) -> Handler:
            self.add_resource(
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
            )
            return fn

        return register

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
    ) -> None:
        """Adds (or replaces) a resource or resource template."""
        spec = inspect_function(fn)
        if isinstance(annotations, Annotations):
            annotations = annotations.to_wire()
        definition = _drop_none(
            {
                "name": name or spec.name,
                "title": title,
                "description": description or spec.description,
                "mimeType": mime_type,
                "annotations": annotations,
                "icons": icons,
                "_meta": meta,
            }
        )
        variables = _template_variables(uri)
        if not variables:
            if spec.parameters:
                raise TypeError(f"resource {uri}: a static resource takes no parameters (besides a Context)")

            async def read(uri: str, _variables: dict[str, str], native_ctx: _native.Context) -> Wire:
                return read_result(await _invoke(fn, spec, {}, native_ctx), uri, mime_type)

            self._native.add_resource({**definition, "uri": uri}, read)
            return
        _check_template_parameters(uri, variables, spec)
        coercers = {p.name: string_coercer(p.annotation) for p in spec.parameters}

        async def read_template(uri: str, variables: dict[str, str], native_ctx: _native.Context) -> Wire:
            kwargs = _coerce_strings(variables, coercers, f"resource {uri}")
            return read_result(await _invoke(fn, spec, kwargs, native_ctx), uri, mime_type)

        self._native.add_template(
            {**definition, "uriTemplate": uri},
            read_template,
            _completers(completions),
        )

    def remove_resource(self, uri: str) -> bool:
        """Removes a resource, or a template by its URI template; returns whether it existed."""
        if _template_variables(uri):
            return self._native.remove_template(uri)
        return self._native.remove_resource(uri)

    def notify_resource_updated(self, uri: str) -> None:
        """Tells clients subscribed to ``uri`` that it changed."""
        self._native.notify_resource_updated(uri)

    # Prompts

    @overload
    def prompt(self, fn: Handler, /) -> Handler: ...

    @overload
    def prompt(
        self,
        name: str | None = None,
        /,
        *,
        title: str | None = None,
        description: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        completions: dict[str, Completer] | None = None,
    ) -> Callable[[Handler], Handler]: ...

    def prompt(
        self,
        fn_or_name: Any = None,
        /,
        *,
        title: str | None = None,
        description: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        completions: dict[str, Completer] | None = None,
    ) -> Any:
        """Registers a function as a prompt: ``@server.prompt``, ``@server.prompt()`` or
        ``@server.prompt("name", ...)``.

        Parameters become the prompt's arguments (required unless they have a default).
        Return text (one user message), :class:`~oxmcp.types.PromptMessage` values, or a list.
        ``completions`` maps argument names to ``complete(value, context)`` functions.
        """
        if callable(fn_or_name):
            self.add_prompt(fn_or_name)
            return fn_or_name

        def register(fn: Handler) -> Handler:
            self.add_prompt(
                fn,
                name=fn_or_name,
                title=title,
                description=description,
                icons=icons,
                meta=meta,
                completions=completions,
            )
            return fn

        return register

    def add_prompt(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        completions: dict[str, Completer] | None = None,
    ) -> None:
        """Adds (or replaces) a prompt."""
        spec = inspect_function(fn)
        description = description or spec.description
        arguments = [
            _drop_none({"name": p.name, "description": p.description, "required": p.required}) for p in spec.parameters
        ]
        definition = _drop_none(
            {
                "name": name or spec.name,
                "title": title,
                "description": description,
                "arguments": arguments or None,
                "icons": icons,
                "_meta": meta,
            }
        )
        coercers = {p.name: string_coercer(p.annotation) for p in spec.parameters}

        async def get(arguments: dict[str, str], native_ctx: _native.Context) -> Wire:
            kwargs = _coerce_strings(arguments, coercers, f"prompt {definition['name']}")
            return prompt_result(await _invoke(fn, spec, kwargs, native_ctx), description)

        self._native.add_prompt(definition, get, _completers(completions))

    def remove_prompt(self, name: str) -> bool:
        """Removes a prompt; returns whether it existed."""
        return self._native.remove_prompt(name)

    # Serving

    async def serve_stdio(self) -> None:
        """Serves stdin and stdout until stdin closes, on the running asyncio loop.

        While it serves, ``print()`` goes to stderr: stdout carries only protocol messages.
        """
        with contextlib.redirect_stdout(sys.stderr):
            await self._native.serve_stdio()

    def run(self, transport: Literal["stdio", "http"] = "stdio", **options: Any) -> None:
        """Serves until the input ends or Ctrl-C: stdio (the default). ``"http"`` (Streamable
        HTTP) is not available yet."""
        if transport == "http":
            raise NotImplementedError("the Streamable HTTP transport is not in oxmcp yet; use transport='stdio'")
        if transport != "stdio":
            raise ValueError(f"unknown transport {transport!r}; use 'stdio'")
        if options:
            raise TypeError(f"the stdio transport takes no options: {', '.join(options)}")
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(self.serve_stdio())


async def _invoke(fn: Callable[..., Any], spec: FunctionSpec, kwargs: dict[str, Any], native_ctx: Any) -> Any:
    """Calls a handler: ``async def`` on this loop, plain ``def`` on a worker thread."""
    if spec.context_parameter is not None:
        kwargs[spec.context_parameter] = Context(native_ctx)
    if spec.is_async:
        return await fn(**kwargs)
    return await asyncio.to_thread(fn, **kwargs)


def _coerce_strings(values: dict[str, str], coercers: dict[str, Any], what: str) -> dict[str, Any]:
    """String arguments as the annotated types; a value that does not fit is -32602."""
    kwargs: dict[str, Any] = {}
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

    def wrap(complete: Completer) -> Callable[[str, dict[str, str]], Awaitable[list[str]]]:
        takes_context = len(inspect.signature(complete).parameters) > 1

        async def run(value: str, context: dict[str, str]) -> list[str]:
            values = complete(value, context) if takes_context else complete(value)
            if inspect.isawaitable(values):
                values = await values
            return list(values)

        return run

    return {name: wrap(complete) for name, complete in completions.items()}


def _template_variables(uri: str) -> list[str]:
    """The variable names of an RFC 6570 URI template (none for a plain URI)."""
    names = []
    for expression in _TEMPLATE_EXPRESSION.findall(uri):
        for variable in expression.split(","):
            names.append(variable.split(":")[0].rstrip("*").strip())
    return names


def _check_template_parameters(uri: str, variables: list[str], spec: FunctionSpec) -> None:
    parameters = {p.name for p in spec.parameters}
    required = {p.name for p in spec.parameters if p.required}
    if missing := required - set(variables):
        raise TypeError(f"resource template {uri}: parameters {sorted(missing)} are not URI variables")
    if unknown := set(variables) - parameters:
        raise TypeError(f"resource template {uri}: URI variables {sorted(unknown)} are not parameters")


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}

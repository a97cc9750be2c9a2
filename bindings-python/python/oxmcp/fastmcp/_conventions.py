"""FastMCP's conventions, where they differ from the official SDK's: tools titled after
their names, schemas without pydantic's titles and with their definitions inlined, an
input schema that refuses unknown arguments, ``_meta.fastmcp`` on every definition,
docstrings read for descriptions of the function and of its parameters, no empty
descriptions, data returned as one compact JSON text (a resource's as ``json.dumps``
writes it), and a failing tool's message naming the tool."""

from __future__ import annotations

import base64
import inspect
import json
import logging
from collections.abc import Callable, Sequence
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

import pydantic_core
from pydantic import PydanticInvalidForJsonSchema, PydanticSchemaGenerationError, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema

from .._conventions import Conventions
from .._errors import McpError, ToolError
from .._native import INTERNAL_ERROR
from .._schema import EMPTY, FunctionSpec, Output, Parameter, input_schema, is_content, output_of
from ..server._calling import native_context
from ..types import CallToolResult, ToolAnnotations
from ._docstrings import parsed
from ._prefab import is_prefab_annotation, is_prefab_value, prefab_result
from ._schema import compressed
from .exceptions import FastMCPError, NotFoundError, PromptError, ResourceError
from .resources import ResourceContent, ResourceResult
from .server._sessions import SESSION_ID_DESCRIPTION, is_session_id, with_sessions_injected
from .server.dependencies import without_injected_parameters
from .tools import ToolResult, content_of, is_content_value

_log = logging.getLogger("oxmcp.fastmcp")


class FastMCPConventions(Conventions):
    """FastMCP's conventions (``oxmcp.fastmcp.FastMCP``)."""

    # FastMCP answers a call of an unknown tool with a tool error, and words the -32602
    # errors of unknown resources (in both eras) and prompts.
    unknown_tool_error = "Unknown tool: '{name}'"
    unknown_resource_error = "Resource not found: '{uri}'"
    unknown_prompt_error = "Unknown prompt: '{name}'"
    # FastMCP lists every file of a skill, and its `_manifest`, as resources.
    skill_listing = "files"
    # FastMCP's users check what they are given against `mcp.types`.
    official_models = True

    def __init__(self, masked: bool = False) -> None:
        #: Whether an unexpected exception's text is kept from the client (FastMCP's
        #: ``mask_error_details``): it reads only which tool, resource or prompt failed.
        self.masked = masked

    def description(self, given: str | None, spec: FunctionSpec) -> str | None:
        return given or parsed(spec.description).description

    def resource_description(self, given: str | None, spec: FunctionSpec) -> str | None:
        # FastMCP reads a resource's docstring whole (its sections too), dedented.
        return given or (inspect.cleandoc(spec.description) if spec.description else None)

    def argument_description(self, spec: FunctionSpec, parameter: Parameter) -> str | None:
        described = (
            parameter.description
            or _annotated_text(parameter.annotation)
            or parsed(spec.description).parameters.get(parameter.name)
        )
        if parameter.annotation in (EMPTY, str):
            return described
        # What a prompt argument of another type is written as, since arguments are text.
        try:
            schema = TypeAdapter(parameter.annotation).json_schema()
        except (PydanticSchemaGenerationError, PydanticInvalidForJsonSchema):
            return described
        note = (
            f"Provide a value matching the following JSON schema: {json.dumps(schema, separators=(',', ':'))}."
            " Encode non-string values as JSON."
        )
        return f"{described}\n\n{note}" if described else note

    def tool_title(
        self, name: str, given: str | None, annotations: ToolAnnotations | dict[str, Any] | None
    ) -> str | None:
        if given:
            return given
        annotated = annotations.get("title") if isinstance(annotations, dict) else getattr(annotations, "title", None)
        return annotated or name.replace("_", " ").replace("-", " ").title()

    def input_schema(self, spec: FunctionSpec) -> dict[str, Any]:
        raw = input_schema(spec)
        schema = compressed(raw)
        # Titles pydantic made up go; those the author wrote (`Field(title=...)`) stay.
        made_up = GenerateJsonSchema().get_title_from_name
        for name, written in raw.get("properties", {}).items():
            title = written.get("title") if isinstance(written, dict) else None
            if isinstance(title, str) and title != made_up(name):
                schema["properties"][name]["title"] = title
        # Text in a parameter's `Annotated[...]` describes it, as a `Field`'s description
        # does; what the docstring says of it, unless its annotation does.
        for parameter in spec.parameters:
            text = (
                SESSION_ID_DESCRIPTION if is_session_id(parameter.annotation) else _annotated_text(parameter.annotation)
            )
            if text is not None and parameter.name in schema["properties"]:
                schema["properties"][parameter.name].setdefault("description", text)
        for name, described in parsed(spec.description).parameters.items():
            if name in schema["properties"]:
                schema["properties"][name].setdefault("description", described)
        schema["additionalProperties"] = False
        return schema

    def output(self, annotation: Any, name: str) -> Output:
        if (
            annotation in (None, type(None), ToolResult)
            or annotation is EMPTY
            or _says_nothing(annotation)
            or is_prefab_annotation(annotation)
        ):
            return Output(None, False, _worded(None, False))
        made = output_of(annotation, name)
        if made.schema is None:
            return Output(None, False, made.convert if is_content(annotation) else _worded(made.convert, False))
        schema = compressed(made.schema)
        wrapped = made.wrapped
        if wrapped and schema["properties"]["result"].get("type") == "object":
            # FastMCP wraps only what is not an object (the official SDK, a bare `dict` too).
            schema, wrapped = schema["properties"]["result"], False
        elif wrapped:
            schema["x-fastmcp-wrap-result"] = True
        return Output(schema, wrapped, _worded(made.convert, True, wrapped))

    def unstructured_output(self) -> Output:
        return Output(None, False, _worded(None, False))

    def listed_meta(self, meta: dict[str, Any] | None) -> dict[str, Any] | None:
        listed = dict(meta or {})
        upstream = listed.get("fastmcp")
        listed["fastmcp"] = {"tags": [], **(upstream if isinstance(upstream, dict) else {})}
        return listed

    def contents_meta(self, meta: dict[str, Any] | None) -> dict[str, Any] | None:
        # The meta given, without the tags and version this package lists in it (FastMCP
        # keeps those apart from a component's meta).
        given = dict(meta or {})
        listed = given.pop("fastmcp", None)
        if isinstance(listed, dict):
            own = {key: value for key, value in listed.items() if key not in ("tags", "version")}
            given |= {"fastmcp": own} if own else {}
        return given or None

    def resource_value(self) -> Callable[[Any], Any] | None:
        return _json_text

    def resource_failure(self, uri: str, error: Exception, *, template: bool = False) -> Exception:
        # FastMCP's words: a ResourceError's text as it is, anything else's after the URI.
        if isinstance(error, McpError):
            return error
        if isinstance(error, ResourceError):
            return McpError(INTERNAL_ERROR, str(error))
        return McpError(INTERNAL_ERROR, _unexpected(f"Error reading resource {uri!r}", error, self.masked))

    def injected(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn` with FastMCP's dependencies (``ctx = CurrentContext()``, ``Depends(...)``)
        resolved at each call and out of its schema."""
        return without_injected_parameters(with_sessions_injected(fn))

    def tool_failure(self, name: str, error: Exception) -> Exception:
        return _watched(tool_failure(name, error, self.masked))

    def prompt_failure(self, name: str, error: Exception) -> Exception:
        # FastMCP's words: a PromptError's text as it is, anything else's after the name.
        if isinstance(error, McpError):
            return error
        if isinstance(error, PromptError):
            return McpError(INTERNAL_ERROR, str(error))
        return McpError(INTERNAL_ERROR, _unexpected(f"Error rendering prompt {name!r}", error, self.masked))


#: The failures of the tools whose calls FastMCP's middleware runs around, by request (the
#: native context's ``request_key``): the middleware's interceptor opens a request's slot
#: (None) before the call and takes what is left there, so that the ``ToolError`` its hooks
#: see is the tool's own, with what the tool raised as its cause.
watched_failures: dict[int, Exception | None] = {}


def _watched(failure: Exception) -> Exception:
    """``failure``, left in the slot of the request it failed, if one is open."""
    running = native_context()
    if running is not None and running.request_key in watched_failures:
        watched_failures[running.request_key] = failure
    return failure


def _annotated_text(annotation: Any) -> str | None:
    """The first text among ``Annotated[...]``'s metadata (``Annotated[str, "The city"]``)."""
    if get_origin(annotation) is not Annotated:
        return None
    return next((extra for extra in get_args(annotation)[1:] if isinstance(extra, str)), None)


def tool_failure(name: str, error: Exception, masked: bool = False) -> Exception:
    """What tool ``name`` failing with ``error`` answers, as FastMCP words it: a ``ToolError``
    or ``McpError`` as it is, FastMCP's other errors (``InvalidSession``, a
    ``ResourceError``...) as their text, any other ``Error calling tool 'name': ...``
    (without its text when ``masked``)."""
    if isinstance(error, ToolError | McpError):
        return error
    if isinstance(error, FastMCPError) and not isinstance(error, NotFoundError):
        # FastMCP's NotFoundError is no FastMCPError of its: a crash like any other.
        return ToolError(str(error))
    return ToolError(_unexpected(f"Error calling tool {name!r}", error, masked))


def _unexpected(failed: str, error: Exception, masked: bool) -> str:
    """What the client reads of an unexpected exception, as FastMCP words it: what
    ``failed``, then the exception's text unless ``masked``. The traceback is logged."""
    _log.error(failed, exc_info=error)
    return failed if masked else f"{failed}: {error}"


#: Sequences whose items an annotation may leave unsaid.
_SEQUENCES = (list, tuple, Sequence)


def _says_nothing(annotation: Any) -> bool:
    """Whether FastMCP makes no output schema of a return annotation although it is data:
    one that holds bytes (JSON has no structure for them), or a sequence that says nothing
    of its items (bare ``list``, ``list[Any]``, ``tuple[Any, ...]``: a schema of any items
    would only make content be sent twice)."""
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return _holds_bytes(annotation) or _unsaid_items(annotation)


def _unsaid_items(annotation: Any) -> bool:
    """Whether an annotation is a sequence that says nothing of its items."""
    if annotation in _SEQUENCES:
        return True
    origin, args = get_origin(annotation), get_args(annotation)
    if origin not in _SEQUENCES:
        return False
    if origin is tuple:
        return args == (Any, ...)
    return all(argument is Any for argument in args)


def _holds_bytes(annotation: Any) -> bool:
    """Whether an annotation is ``bytes``, or a union (or ``Annotated``) of it."""
    if annotation is bytes:
        return True
    if get_origin(annotation) in (Union, UnionType, Annotated):
        return any(_holds_bytes(argument) for argument in get_args(annotation))
    return False


def _worded(convert: Callable[[Any], Any] | None, structured: bool, wrapped: bool = False) -> Callable[[Any], Any]:
    """What turns a tool's returned value into the result FastMCP makes of it: text and
    content as they are, a :class:`ToolResult` as it says, any other value as one compact
    JSON text (and as ``structuredContent`` when the tool has an output schema or the
    value is an object)."""

    def word(value: Any) -> Any:
        if isinstance(value, ToolResult):
            return value.to_result()
        if is_prefab_value(value):
            return prefab_result(value)
        if convert is not None:
            value = convert(value)
        if isinstance(value, bytes):
            # Text, as FastMCP sends bytes: decoded, or in base64 when they are not UTF-8.
            try:
                return value.decode()
            except UnicodeDecodeError:
                return base64.b64encode(value).decode("ascii")
        if (value is None and not wrapped) or is_content_value(value):
            return value
        if isinstance(value, str) and not (structured and wrapped):
            return value
        if isinstance(value, list | tuple) and any(is_content_value(item) for item in value):
            return value
        jsonable = pydantic_core.to_jsonable_python(value, fallback=str)
        if not structured:
            # Without an output schema, an object is structured content all the same.
            structured_content = jsonable if isinstance(jsonable, dict) else None
            return CallToolResult(content=content_of(value), structured_content=structured_content, is_error=False)
        # A value its schema writes as a string (a date, a UUID) is that text, unquoted.
        content = content_of(jsonable if isinstance(jsonable, str) else value)
        if not wrapped:
            return CallToolResult(content=content, structured_content=jsonable, is_error=False)
        # Marked wrapped, as FastMCP marks it: its client unwraps a tool it has not listed by it.
        return CallToolResult(
            content=[] if value is None else content,
            structured_content={"result": jsonable},
            is_error=False,
            _meta={"fastmcp": {"wrap_result": True}},
        )

    return word


def _json_text(value: Any) -> Any:
    """A resource's JSON value (a dict, list, number, boolean or None) as FastMCP writes
    it: ``json.dumps`` text; a list of :class:`~.resources.ResourceContent` as the
    contents it is; anything else as it is."""
    if isinstance(value, list) and value and isinstance(value[0], ResourceContent):
        return ResourceResult(value)
    if value is None or isinstance(value, dict | list | tuple | int | float | bool):
        return json.dumps(value)
    return value

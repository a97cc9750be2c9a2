"""How a server lists what a Python function declares and words what it returns or
raises, where the Python SDKs differ: the official SDK's conventions, which
:class:`Conventions` (``oxmcp.Server``) follows but in how a tool's meant failure is worded
(its text alone, as every binding's servers word it), and :class:`OfficialConventions`
(``MCPServer``, the 1.x SDK's ``FastMCP``) in that too; and FastMCP's (``oxmcp.fastmcp``),
another subclass. The protocol stays in the core either way: these only shape definitions
before they are registered, and values before the core words them."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal, cast

import pydantic_core

from ._errors import McpError, ProtocolError, ResourceError, ToolError
from ._native import INTERNAL_ERROR
from ._official import from_official
from ._schema import (
    FunctionSpec,
    Output,
    Parameter,
    class_output,
    input_schema,
    is_plain_class,
    output_of,
    sent_as_json,
)
from .content import Audio, Image
from .types import CallToolResult, ContentBlock, TextContent, ToolAnnotations

_log = logging.getLogger("oxmcp")

#: What a tool raises when it fails on purpose: its text is for the model.
_MEANT = (ToolError, ResourceError, ProtocolError)


class Conventions:
    """oxmcp's conventions: the official Python SDK's but for a tool's meant failure."""

    #: How a call of an unknown tool is answered as a tool error (``{name}`` the tool's
    #: name); None: with the ``-32602`` error the spec names, as here (the official SDK
    #: answers a tool error).
    unknown_tool_error: str | None = None
    #: How a read of an unknown resource is worded (``{uri}`` the URI), a ``-32602`` error
    #: in every era; None: the error each era's spec names, as here.
    unknown_resource_error: str | None = None
    #: How a request for an unknown prompt is worded (``{name}`` its name); None: as here.
    unknown_prompt_error: str | None = None
    #: How the server's skills are listed among its resources: each ``SKILL.md``
    #: (``"entries"``), or every file of each skill and its ``_manifest`` (``"files"``).
    skill_listing: Literal["entries", "files"] = "entries"
    #: Whether a handler's parameters that say no type get the official SDK's models (when
    #: it is installed), as code written for it checks them, rather than oxmcp's.
    official_models: bool = False

    def description(self, given: str | None, spec: FunctionSpec) -> str | None:
        """A definition's description: the one given, else the docstring as written, else
        empty (the official SDK lists an empty one rather than none)."""
        return given or spec.description or ""

    def resource_description(self, given: str | None, spec: FunctionSpec) -> str | None:
        """A resource's or template's description: as any other definition's."""
        return self.description(given, spec)

    def argument_description(self, spec: FunctionSpec, parameter: Parameter) -> str | None:
        """A prompt argument's description: its annotation's (``Field(description=...)``)."""
        return parameter.description

    def tool_title(
        self, name: str, given: str | None, annotations: ToolAnnotations | dict[str, Any] | None
    ) -> str | None:
        """A tool's title: the one given, if any."""
        return given

    def input_schema(self, spec: FunctionSpec) -> dict[str, Any]:
        """A tool's input schema from its parameters."""
        return input_schema(spec)

    def output(self, annotation: Any, name: str) -> Output:
        """What a tool's return annotation makes of its results: as the official SDK makes
        them, no schema for a class that is neither a primitive nor a model (a
        ``datetime``, a bare ``list``), its value sent as its JSON text."""
        if is_plain_class(annotation):
            made = class_output(annotation, _json_text)
            # Its structured content is the object of its attributes, its text the value's.
            return made if made.schema is None else Output(made.schema, False, _officially_sent(made.convert))
        made = output_of(annotation, name)
        if made.wrapped and not sent_as_json(annotation):
            # `{"result": value}` as structured content, the value's own JSON as text.
            return Output(made.schema, True, _officially_sent(_wrapped))
        return made

    def unstructured_output(self) -> Output:
        """What a tool without structured output (``structured_output=False``) makes of
        its results: the core's rules alone."""
        return Output(None, False)

    def listed_meta(self, meta: dict[str, Any] | None) -> dict[str, Any] | None:
        """The ``_meta`` a definition is listed with."""
        return meta

    def contents_meta(self, meta: dict[str, Any] | None) -> dict[str, Any] | None:
        """The ``_meta`` each content a resource function reads is given (when it has none
        of its own): the ``meta`` the resource was registered with."""
        return meta

    def resource_mime_type(self, given: str | None, spec: FunctionSpec) -> str | None:
        """A resource's declared MIME type: the one given, else text/plain, whatever the
        function returns (bytes read are labelled so too, as the official SDK does)."""
        return given or "text/plain"

    def resource_value(self) -> Callable[[Any], Any] | None:
        """What turns what a resource function returns into what the core words; None to
        leave it as it is (the core's rules: data as indented JSON text)."""
        return None

    def resource_failure(self, uri: str, error: Exception, *, template: bool = False) -> Exception:
        """What reading ``uri`` answers when its function (a template's, with ``template``)
        raised ``error``, as the official SDK words it: an ``McpError`` as it is, a
        :class:`~oxmcp.ResourceError`'s text as an internal error naming the URI, anything
        else only ``Error reading resource <uri>`` (the traceback is logged, not sent);
        oxmcp's ``ProtocolError`` as it is too."""
        if isinstance(error, ResourceError) and not isinstance(error, McpError):
            _log.info("Resource %r failed: %r", uri, str(error))
            return McpError(INTERNAL_ERROR, str(error), {"uri": uri})
        said = crashed_resource(uri)[template]
        return _unexpected(error, said, "Resource %r raised an unexpected exception", uri, {"uri": uri})

    def tool_failure(self, name: str, error: Exception) -> Exception:
        """What a call of tool ``name`` answers when it raised ``error``: an ``McpError`` as
        it is (a JSON-RPC error), a failure the tool meant (:class:`~oxmcp.ToolError`,
        :class:`~oxmcp.ResourceError`, oxmcp's :class:`~oxmcp.ProtocolError`) as its text,
        anything else only ``Error executing tool <name>``, as the official SDK answers a
        crash (the traceback is logged, not sent: an unexpected exception's text may hold
        what the client must not see)."""
        if isinstance(error, (McpError, *_MEANT)):
            return error
        _log.error("Tool %r raised an unexpected exception", name, exc_info=error)
        return ToolError(crashed_tool(name))

    def prompt_failure(self, name: str, error: Exception) -> Exception:
        """What getting prompt ``name`` answers when its function raised ``error``, as the
        official SDK words it: an ``McpError`` as it is, anything else only ``Error
        rendering prompt <name>`` (the traceback is logged, not sent); oxmcp's
        ``ProtocolError`` as it is too."""
        return _unexpected(error, f"Error rendering prompt {name}", "Prompt %r raised an unexpected exception", name)

    def injected(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """The function a tool, resource or prompt is registered as: `fn` itself (no
        parameter is injected but the context)."""
        return fn


class OfficialConventions(Conventions):
    """The official Python SDK's conventions where a ported server's clients would see
    oxmcp's differ (``MCPServer``, the 1.x SDK's ``FastMCP``): a tool's meant failure is
    worded ``Error executing tool <name>: <its text>``."""

    official_models = True

    def tool_failure(self, name: str, error: Exception) -> Exception:
        if not isinstance(error, _MEANT):
            return super().tool_failure(name, error)
        _log.info("Tool %r failed: %r", name, str(error))
        return ToolError(f"Error executing tool {name}: {error}")


def crashed_tool(name: str) -> str:
    """What a client reads of tool ``name``'s crash, as the official SDK words it."""
    return f"Error executing tool {name}"


def crashed_resource(uri: str) -> tuple[str, str]:
    """What a client reads of a crash reading ``uri``, as the official SDK words it: a
    resource's, a template's."""
    return f"Error reading resource {uri}", f"Error creating resource from template {uri}"


def request_failure(method: str, error: Exception) -> Exception:
    """What a request of ``method`` answers when the function serving it (a custom request's
    handler, a lister) raised ``error``: an ``McpError`` or oxmcp's ``ProtocolError`` as it
    is, anything else a crash, -32603 ``Internal server error`` (as the official SDK
    answers a 2026-07-28 client), the traceback logged."""
    return _unexpected(error, "Internal server error", "The handler of %s raised an unexpected exception", method)


def completion_failure(argument: str, error: Exception) -> Exception:
    """What completing ``argument`` answers when the completion function raised ``error``,
    as the official SDK words it: a crash is -32603 ``Error completing argument <name>``."""
    said = f"Error completing argument {argument}"
    return _unexpected(error, said, "Completion for argument %r raised an unexpected exception", argument)


def _unexpected(error: Exception, said: str, logged: str, subject: str, data: Any = None) -> Exception:
    """``error`` as it is when it is an ``McpError`` or a ``ProtocolError`` (words meant for
    the client); else a crash: ``logged`` (about ``subject``) goes to the log with the
    traceback, and the client reads ``said`` (with ``data``), a -32603 error."""
    if isinstance(error, McpError | ProtocolError):
        return error
    _log.error(logged, subject, exc_info=error)
    return McpError(INTERNAL_ERROR, said, data)


def _officially_sent(structured: Callable[[Any], Any] | None) -> Callable[[Any], CallToolResult]:
    """What sends a value as the official SDK sends one whose text is not its structured
    content: ``structured(value)`` as structured content, the value's content blocks as
    :func:`_official_content` makes them; a complete result as it is."""

    def result(value: Any) -> CallToolResult:
        value = from_official(value)
        if isinstance(value, CallToolResult):
            return value
        return CallToolResult(
            content=_official_content(value),
            structured_content=value if structured is None else structured(value),
        )

    return result


def _wrapped(value: Any) -> dict[str, Any]:
    return {"result": pydantic_core.to_jsonable_python(value, by_alias=True, fallback=str)}


def _official_content(value: Any) -> list[ContentBlock]:
    """A tool's value as the official SDK makes content of it: nothing of None, a list's or
    a tuple's items one by one, content as it is, text as text, anything else its JSON
    text (a value pydantic cannot write as its ``str``, quoted)."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [block for item in value for block in _official_content(item)]
    if isinstance(value, Image | Audio):
        return [value.to_content()]
    value = from_official(value)
    if getattr(value, "__mcp_kind__", None) == "content":
        return [cast(ContentBlock, value)]
    return [TextContent(type="text", text=value if isinstance(value, str) else _json_of(value))]


def _json_text(value: Any) -> Any:
    """A value as the official SDK writes one it has no schema for: what JSON has as it is
    (text as text, a list item by item), anything else as its JSON, indented."""
    if value is None or isinstance(value, str | int | float | list | tuple | dict | set | frozenset):
        return value
    return _json_of(value)


def _json_of(value: Any) -> str:
    """A value's JSON, indented, as the official SDK writes it (what pydantic cannot
    write, as its ``str``)."""
    return pydantic_core.to_json(value, fallback=str, indent=2).decode()

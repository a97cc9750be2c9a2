"""How a server lists what a Python function declares and words what it returns, where
the Python SDKs differ: the official SDK's conventions (``oxmcp.Server``, ``MCPServer``,
the 1.x SDK's ``FastMCP``), which :class:`Conventions` follows, and FastMCP's
(``oxmcp.fastmcp``), a subclass. The protocol stays in the core either way: these only
shape definitions before they are registered, and values before the core words them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._schema import FunctionSpec, Output, Parameter, input_schema, output_of
from .types import ToolAnnotations


class Conventions:
    """The official Python SDK's conventions."""

    #: How a call of an unknown tool is answered as a tool error (``{name}`` the tool's
    #: name); None: with the ``-32602`` error the spec names, as here (the official SDK
    #: answers a tool error).
    unknown_tool_error: str | None = None
    #: How a read of an unknown resource is worded (``{uri}`` the URI), a ``-32602`` error
    #: in every era; None: the error each era's spec names, as here.
    unknown_resource_error: str | None = None
    #: How a request for an unknown prompt is worded (``{name}`` its name); None: as here.
    unknown_prompt_error: str | None = None

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
        """What a tool's return annotation makes of its results."""
        return output_of(annotation, name)

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

    def resource_failure(self, uri: str, error: Exception) -> Exception:
        """What reading ``uri`` answers when its function raised ``error``: the error (its
        text the message of an internal error, an ``McpError`` its own)."""
        return error

    def injected(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """The function a tool, resource or prompt is registered as: `fn` itself (no
        parameter is injected but the context)."""
        return fn

    def tool_function(self, fn: Callable[..., Any], name: str) -> Callable[..., Any]:
        """The function a tool call runs: `fn` itself (what it raises is the message of the
        error result)."""
        return fn

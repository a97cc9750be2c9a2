"""Values of the official SDK's types (``mcp.types``) returned by handlers written for it:
each is sent as the oxmcp wire type of the same name, so that such a handler runs unchanged."""

from __future__ import annotations

import functools
import importlib
import operator
from types import ModuleType
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from . import types
from ._errors import McpError

#: Where the official SDK keeps its types (``mcp.types`` re-exports ``mcp_types``).
_OFFICIAL_PACKAGES = ("mcp", "mcp_types")

T = TypeVar("T")


def is_official(annotation: Any) -> bool:
    """Whether `annotation` is a model of the official SDK's types that oxmcp knows."""
    return (
        isinstance(annotation, type)
        and issubclass(annotation, BaseModel)
        and annotation.__module__.partition(".")[0] in _OFFICIAL_PACKAGES
        and isinstance(getattr(types, annotation.__name__, None), type)
    )


def from_official(value: Any) -> Any:
    """`value`, with models of the official SDK's types (alone or in a list) as oxmcp's."""
    if isinstance(value, list):
        return [from_official(item) for item in value]
    if not is_official(type(value)):
        return value
    ours: type[BaseModel] = getattr(types, type(value).__name__)
    return ours.model_validate(value.model_dump(by_alias=True, exclude_none=True, mode="json"))


def to_official(value: T) -> T:
    """`value`, with oxmcp's wire models (alone or in a list) as the official SDK's of the
    same name when the official SDK is installed: what code written for it checks with
    ``isinstance``. The fields are the same either way."""
    if isinstance(value, list):
        return [to_official(item) for item in value]  # type: ignore[return-value]
    official = _official_types()
    if official is None or not isinstance(value, types.WireModel):
        return value
    theirs = getattr(official, type(value).__name__, None)
    if not (isinstance(theirs, type) and issubclass(theirs, BaseModel)):
        return value
    return theirs.model_validate(value.to_wire())  # type: ignore[return-value]


def official_notification(method: str, params: Any) -> Any:
    """A notification from the server as the official SDK's model of it (its
    ``ServerNotification``), or None when the official SDK is not installed or does not
    know the notification."""
    adapter = _server_notification()
    if adapter is None:
        return None
    message = {"method": method} if params is None else {"method": method, "params": params}
    try:
        return adapter.validate_python(message)
    except ValidationError:
        return None


@functools.cache
def _server_notification() -> TypeAdapter[Any] | None:
    official = _official_types()
    union = getattr(official, "ServerNotification", None)
    return None if union is None else TypeAdapter(union)


@functools.cache
def read_camel_case_names() -> None:
    """Lets the official SDK's models (2.0 on) be read by their fields' wire names too
    (``tool.inputSchema`` for ``tool.input_schema``), as FastMCP lets them: code written
    for FastMCP's client reads them so. A name a model has already is left alone."""
    official = _official_types()
    for model in vars(official).values() if official is not None else ():
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            continue
        for name, field in model.model_fields.items():
            alias = field.alias
            if alias and alias != name and alias.isidentifier() and not hasattr(model, alias):
                setattr(model, alias, property(operator.attrgetter(name)))


@functools.cache
def _official_types() -> ModuleType | None:
    """The official SDK's types module, when it is installed (``mcp_types`` from 2.0 on,
    ``mcp.types`` before)."""
    for name in ("mcp_types", "mcp.types"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def from_official_error(error: Exception) -> Exception:
    """The official SDK's ``MCPError`` (``UrlElicitationRequiredError`` among them) as
    oxmcp's :class:`McpError` of the same code, message and data; any other as it is."""
    if type(error).__module__.partition(".")[0] not in _OFFICIAL_PACKAGES:
        return error
    code, message = getattr(error, "code", None), getattr(error, "message", None)
    if not isinstance(code, int) or not isinstance(message, str):
        return error
    return McpError(code, message, getattr(error, "data", None))


def to_official_error(error: McpError) -> McpError:
    """``error`` as the official SDK's ``MCPError`` too, when the official SDK (2.0 on) is
    installed, as FastMCP's client raises it: code written for either SDK catches it
    (``except McpError`` of oxmcp's, ``except MCPError`` of the official SDK's, FastMCP's
    alias of it), and it reads as the official one does (its message alone). As it is
    otherwise."""
    kind = _as_official(type(error))
    if kind is None:
        return error
    made = kind(error.code, error.message, error.data)
    # What the error has beside its code, message and data (a missing resource's URI).
    for name, value in vars(error).items():
        if name not in ("code", "message", "data"):
            setattr(made, name, value)
    return made


#: Each of oxmcp's error classes made one with the official SDK's ``MCPError``.
_AS_OFFICIAL: dict[type[McpError], type[McpError]] = {}


def _as_official(ours: type[McpError]) -> type[McpError] | None:
    """``ours`` and the official SDK's ``MCPError`` in one class, when it is installed."""
    if ours in _AS_OFFICIAL:
        return _AS_OFFICIAL[ours]
    try:
        from mcp.shared.exceptions import MCPError
    except ImportError:
        return None

    def __init__(self: Any, code: int, message: str, data: Any = None) -> None:
        # The official one keeps code, message and data in its `error`, read by properties.
        MCPError.__init__(self, code, message, data)

    both: type[McpError] = type("MCPError", (ours, MCPError), {"__init__": __init__, "__str__": MCPError.__str__})
    _AS_OFFICIAL[ours] = both
    return both


def is_input_required(value: Any) -> bool:
    """Whether a handler returned an ``InputRequiredResult`` (2026-07-28's guard pattern,
    as the official SDK and FastMCP write it): its ``input_requests`` must be answered, and
    the request sent again, before it can complete."""
    return isinstance(value, BaseModel) and getattr(value, "result_type", None) == "input_required"


def is_input_required_type(annotation: Any) -> bool:
    """Whether a return annotation names an ``InputRequiredResult`` (a control-flow signal,
    not data: it has no part in the output schema)."""
    return (
        isinstance(annotation, type)
        and issubclass(annotation, BaseModel)
        and annotation.__name__ == "InputRequiredResult"
    )


def official_input_responses(responses: dict[str, Any]) -> dict[str, Any]:
    """The answers to a guard's input requests as the official SDK's models
    (``ElicitResult``, ``CreateMessageResult``, ``ListRootsResult``), which code written for
    it checks with ``isinstance``; as sent when it is not installed."""
    adapter = _input_responses()
    return responses if adapter is None else adapter.validate_python(responses)


@functools.cache
def _input_responses() -> TypeAdapter[Any] | None:
    union = getattr(_official_types(), "InputResponses", None)
    return None if union is None else TypeAdapter(union)

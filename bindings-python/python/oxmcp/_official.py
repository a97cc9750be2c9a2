"""Values of the official SDK's types (``mcp.types``) returned by handlers written for it:
each is sent as the oxmcp wire type of the same name, so that such a handler runs unchanged."""

from __future__ import annotations

from typing import Any, NoReturn

from pydantic import BaseModel

from . import types
from ._errors import McpError

#: Where the official SDK keeps its types (``mcp.types`` re-exports ``mcp_types``).
_OFFICIAL_PACKAGES = ("mcp", "mcp_types")


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


def from_official_error(error: Exception) -> Exception:
    """The official SDK's ``MCPError`` (``UrlElicitationRequiredError`` among them) as
    oxmcp's :class:`McpError` of the same code, message and data; any other as it is."""
    if type(error).__module__.partition(".")[0] not in _OFFICIAL_PACKAGES:
        return error
    code, message = getattr(error, "code", None), getattr(error, "message", None)
    if not isinstance(code, int) or not isinstance(message, str):
        return error
    return McpError(code, message, getattr(error, "data", None))


def raise_as_ours(error: Exception) -> NoReturn:
    """Raises `error` again, or, for the official SDK's ``MCPError``, oxmcp's."""
    ours = from_official_error(error)
    if ours is error:
        raise error
    raise ours from error

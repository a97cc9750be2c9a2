"""FastMCP's ``fastmcp.client.elicitation``: an elicitation handler is called with the
message, the type of the answer the server's schema describes (a dataclass; None when the
schema asks for nothing, or for a URL), the request's params and a context. It returns the
answer (accepted), a dict, or an :class:`ElicitResult` to decline or cancel."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pydantic_core import to_jsonable_python

from ...client import ElicitationHandler as NativeElicitationHandler
from ...types import ElicitRequest, ElicitResult
from ..utilities.json_schema_type import json_schema_to_type

#: The params of ``elicitation/create`` (oxmcp's type).
ElicitRequestParams = ElicitRequest

#: A FastMCP elicitation handler: ``handler(message, response_type, params, context)``.
ElicitationHandler = Callable[[str, Any, ElicitRequestParams, Any], Any]


def create_elicitation_callback(handler: ElicitationHandler) -> NativeElicitationHandler:
    """``handler`` as oxmcp's client calls an elicitation handler."""

    async def answer(request: ElicitRequest) -> ElicitResult:
        schema = request.requested_schema or {}
        response_type = json_schema_to_type(schema) if schema.get("properties") else None
        returned = handler(request.message, response_type, request, None)
        if inspect.isawaitable(returned):
            returned = await returned
        if isinstance(returned, ElicitResult):
            return returned
        content = to_jsonable_python(returned)
        if content is not None and not isinstance(content, dict):
            if set(schema.get("properties", {})) != {"value"}:
                raise ValueError(f"an elicitation's answer must be an object (a dict or a dataclass), not {returned!r}")
            content = {"value": content}
        return ElicitResult(action="accept", content=content)

    return answer


__all__ = ["ElicitRequestParams", "ElicitResult", "ElicitationHandler", "create_elicitation_callback"]

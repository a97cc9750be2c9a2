"""FastMCP's ``fastmcp.client.sampling``: a sampling handler is called with the messages,
the request's params and a context, and answers with text or a full result."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ...client import SamplingHandler as NativeSamplingHandler
from ...types import CreateMessageRequest, CreateMessageResult, SamplingMessage, TextContent

#: The params of ``sampling/createMessage`` (oxmcp's type).
SamplingParams = CreateMessageRequest
#: The context FastMCP passes its handlers; oxmcp passes None.
RequestContext = Any

#: A FastMCP sampling handler: ``handler(messages, params, context)`` returns (an
#: awaitable of) the model's text or a :class:`~oxmcp.types.CreateMessageResult`.
SamplingHandler = Callable[[list[SamplingMessage], SamplingParams, RequestContext], Any]


def create_sampling_callback(handler: SamplingHandler) -> NativeSamplingHandler:
    """``handler`` as oxmcp's client calls a sampling handler."""

    async def answer(request: CreateMessageRequest) -> CreateMessageResult:
        returned = handler(request.messages, request, None)
        if inspect.isawaitable(returned):
            returned = await returned
        if isinstance(returned, str):
            return CreateMessageResult(role="assistant", content=TextContent(text=returned), model="fastmcp-client")
        return CreateMessageResult.model_validate(returned)

    return answer


__all__ = ["RequestContext", "SamplingHandler", "SamplingMessage", "SamplingParams", "create_sampling_callback"]

"""FastMCP's ``fastmcp.client.messages``: a client's ``message_handler`` gets every
notification the server sends, as the official SDK's model of it (its
``ServerNotification`` members); a :class:`MessageHandler` hands each to the hook of its
kind."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from ..._official import official_notification
from ...client import NotificationHandler

#: A notification from the server (the official SDK's model of it), or an exception.
Message: TypeAlias = Any

#: A FastMCP message handler: a function, or a :class:`MessageHandler`.
MessageHandlerT: TypeAlias = Callable[[Message], Awaitable[None]]

#: The hook of each notification the server may send.
_HOOKS = {
    "notifications/cancelled": "on_cancelled",
    "notifications/progress": "on_progress",
    "notifications/message": "on_logging_message",
    "notifications/tools/list_changed": "on_tool_list_changed",
    "notifications/resources/list_changed": "on_resource_list_changed",
    "notifications/prompts/list_changed": "on_prompt_list_changed",
    "notifications/resources/updated": "on_resource_updated",
}


class MessageHandler:
    """Hands each message to ``on_message``, then ``on_notification`` (or
    ``on_exception``), then the hook of its kind; override the hooks you need. Requests
    from the server (sampling, elicitation, roots) go to the client's own handlers."""

    async def __call__(self, message: Message) -> None:
        await self.dispatch(message)

    async def dispatch(self, message: Message) -> None:
        await self.on_message(message)
        if isinstance(message, Exception):
            await self.on_exception(message)
            return
        await self.on_notification(message)
        hook = _HOOKS.get(getattr(message, "method", ""))
        if hook is not None:
            await getattr(self, hook)(message)

    async def on_message(self, message: Message) -> None:
        """Every message."""

    async def on_notification(self, message: Message) -> None:
        """Every notification."""

    async def on_exception(self, message: Exception) -> None:
        """A failure of the transport."""

    async def on_progress(self, message: Message) -> None:
        """``notifications/progress``."""

    async def on_logging_message(self, message: Message) -> None:
        """``notifications/message``."""

    async def on_tool_list_changed(self, message: Message) -> None:
        """``notifications/tools/list_changed``."""

    async def on_resource_list_changed(self, message: Message) -> None:
        """``notifications/resources/list_changed``."""

    async def on_prompt_list_changed(self, message: Message) -> None:
        """``notifications/prompts/list_changed``."""

    async def on_resource_updated(self, message: Message) -> None:
        """``notifications/resources/updated``."""

    async def on_cancelled(self, message: Message) -> None:
        """``notifications/cancelled``."""


def create_message_callback(handler: MessageHandlerT) -> NotificationHandler:
    """``handler`` as oxmcp's client's notification handler: given each notification the
    official SDK has a model of (it must be installed, as FastMCP needs it)."""

    async def heard(method: str, params: Any) -> None:
        message = official_notification(method, params)
        if message is not None:
            await handler(message)

    return heard


__all__ = ["Message", "MessageHandler", "MessageHandlerT", "create_message_callback"]

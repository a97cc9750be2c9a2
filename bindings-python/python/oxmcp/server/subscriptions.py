"""The official SDK's ``mcp.server.subscriptions``: what a low-level server publishes for
``subscriptions/listen`` streams (2026-07-28) and legacy sessions to hear::

    bus = InMemorySubscriptionBus()
    server = Server("notes", on_call_tool=call_tool, on_subscriptions_listen=ListenHandler(bus))
    ...
    await bus.publish(ResourceUpdated(uri="note://todo"))

The core serves the streams (acknowledgement, subscription ids, each client's filter); a
:class:`ListenHandler` given to a server passes what its bus carries on to the core."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from . import Server

__all__ = [
    "InMemorySubscriptionBus",
    "ListenHandler",
    "PromptsListChanged",
    "ResourceUpdated",
    "ResourcesListChanged",
    "ServerEvent",
    "SubscriptionBus",
    "ToolsListChanged",
]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolsListChanged:
    """The list of tools changed."""


@dataclass(frozen=True)
class PromptsListChanged:
    """The list of prompts changed."""


@dataclass(frozen=True)
class ResourcesListChanged:
    """The list of resources changed."""


@dataclass(frozen=True)
class ResourceUpdated:
    """The resource at ``uri`` changed."""

    uri: str


#: What a bus carries.
ServerEvent = ToolsListChanged | PromptsListChanged | ResourcesListChanged | ResourceUpdated


class SubscriptionBus(Protocol):
    """Where a server's events are published and heard."""

    async def publish(self, event: ServerEvent) -> None: ...

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]: ...


class InMemorySubscriptionBus:
    """A bus within this process: each event goes to every listener, in the order they
    subscribed; one that raises is logged and the others still hear it."""

    def __init__(self) -> None:
        self._listeners: dict[object, Callable[[ServerEvent], None]] = {}

    async def publish(self, event: ServerEvent) -> None:
        """Tells every listener of ``event``."""
        for listener in list(self._listeners.values()):
            try:
                listener(event)
            except Exception:
                _log.exception("a subscription listener raised; the others still hear the event")
        await asyncio.sleep(0)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """Adds ``listener``; the callable returned removes it (once or more)."""
        token = object()
        self._listeners[token] = listener
        return lambda: self._listeners.pop(token, None) and None


class ListenHandler:
    """Serves ``subscriptions/listen`` from ``bus``: given to a server as
    ``on_subscriptions_listen``, what is published on the bus reaches the clients that
    listen for it. The bounds are the core's (the server's ``max_subscriptions``); these
    are taken for the official SDK's signature."""

    def __init__(self, bus: SubscriptionBus, *, max_subscriptions: int = 1024, max_buffered_events: int = 1024) -> None:
        self.bus = bus
        self._unsubscribe: Callable[[], None] | None = None

    def serve(self, server: Server) -> None:
        """Passes what the bus carries on to ``server``'s clients."""

        def tell(event: ServerEvent) -> None:
            if isinstance(event, ResourceUpdated):
                server.notify_resource_updated(str(event.uri))
            elif isinstance(event, ToolsListChanged):
                server._native.notify_list_changed("tools")
            elif isinstance(event, PromptsListChanged):
                server._native.notify_list_changed("prompts")
            elif isinstance(event, ResourcesListChanged):
                server._native.notify_list_changed("resources")

        self._unsubscribe = self.bus.subscribe(tell)

    def close(self) -> None:
        """Stops passing events on."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

"""FastMCP's ``fastmcp.server.providers.proxy``: another server's components, served
through a client of it.

A proxy serves its backend through one connection, made when the proxy first serves
(and tried again while the backend cannot be reached) where FastMCP makes one per
request unless given a connected client: the core tells which caller each question, log
message and progress notification of the backend belongs to, which FastMCP's separate
sessions are for. The backend's list changes reach every client of the proxy. The
caller's HTTP headers are never passed on: a backend gets the credentials its own
transport carries (``forward_incoming_headers`` is taken, and changes nothing)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ....client import Client as NativeClient
from ....server import Server
from ...client import Client
from ...client.transports import ClientTransport
from ..server import FastMCP, unrelated_question

#: What makes the client of a proxy's backend: a function, or an ``async`` one.
ClientFactoryT = Callable[[], "Client | Awaitable[Client]"]


class ProxyClient(Client):
    """A client of a proxy's backend: what the backend asks, logs and reports about a call
    goes to the proxy's caller of that call, whatever the handlers given (the core relates
    them); a question it cannot relate to one caller is refused, unless handlers are given
    for it."""

    def __init__(
        self,
        transport: ClientTransport | Server | str | Path | dict[str, Any],
        *,
        forward_incoming_headers: bool = True,
        mode: str | None = None,
        **kwargs: Any,
    ) -> None:
        for handler in ("sampling_handler", "elicitation_handler", "roots"):
            kwargs.setdefault(handler, unrelated_question)
        if mode is not None:
            kwargs["mode"] = mode
        super().__init__(transport, **kwargs)
        self._settings = dict(kwargs, forward_incoming_headers=forward_incoming_headers)
        self._target = transport

    def new(self) -> ProxyClient:
        """A client of the same backend with the same settings, not connected."""
        return ProxyClient(self._target, **self._settings)


class ProxyProvider(FastMCP):
    """The components of the backend ``client_factory``'s client connects to, for
    ``FastMCP(providers=[...])`` or ``mcp.add_provider(provider, namespace=...)``: served
    after the server's own, as a mounted server's are. The factory is called once, when
    the server first serves. The backend's lists are asked for as clients ask (the core's
    client keeps them while the backend says they are fresh), so ``cache_ttl`` is taken and
    changes nothing. Forwarding the backend's skills (``skills=True``) is not offered."""

    def __init__(
        self,
        client_factory: ClientFactoryT,
        cache_ttl: float | None = None,
        *,
        identity: str = "proxy",
        skills: bool = False,
    ) -> None:
        _refuse_skills(skills)
        super().__init__("ProxyProvider")
        self.client_factory = client_factory
        self.identity = identity
        self.proxy(_connecting(client_factory))


class FastMCPProxy(FastMCP):
    """A FastMCP server that serves the backend ``client_factory``'s client connects to
    (``create_proxy`` makes one from a target); ``settings`` are :class:`FastMCP`'s.
    Forwarding the backend's skills (``skills=True``) is not offered."""

    def __init__(
        self,
        *,
        client_factory: ClientFactoryT,
        provider_error_strategy: str = "warn",
        identity: str = "proxy",
        skills: bool = False,
        **settings: Any,
    ) -> None:
        _refuse_skills(skills)
        settings.setdefault("name", "FastMCPProxy")
        super().__init__(**settings)
        self.client_factory = client_factory
        self.provider_error_strategy = provider_error_strategy
        self.proxy(_connecting(client_factory))


def _refuse_skills(skills: bool) -> None:
    """Says plainly that a proxy does not forward its backend's skills, rather than serving
    none of them without a word."""
    if skills:
        raise NotImplementedError("oxmcp's proxies do not forward the backend's skills (skills=True)")


def _connecting(client_factory: ClientFactoryT) -> Callable[[], Awaitable[NativeClient]]:
    """What makes oxmcp's client of the backend, from FastMCP's client ``client_factory``
    makes."""

    async def connect() -> NativeClient:
        made = client_factory()
        client = await made if inspect.isawaitable(made) else made
        return client.native

    return connect


__all__ = ["ClientFactoryT", "FastMCPProxy", "ProxyClient", "ProxyProvider"]

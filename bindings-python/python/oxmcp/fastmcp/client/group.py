"""FastMCP's ``fastmcp.client.group``: several clients, each on its own connection, with
their tools listed under the name of their server and each call routed to the client that
listed it."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType, TracebackType
from typing import Any

from ... import types
from ...client import ProgressHandler
from ..skills.skill import MCPSkill, Skill
from .client import CallToolResult, Client
from .transports import MCPConfigTransport


@dataclass(frozen=True)
class ToolRoute:
    """The client behind a tool the group lists, and the tool's name on its server."""

    server_name: str
    client: Client
    upstream_name: str


class ClientGroup:
    """Clients of several servers, keyed by a name of each: ``list_tools()`` lists their
    tools as ``<name>_<tool>``, ``call_tool`` calls one through its own client. Each client
    keeps its connection, era, capabilities and handlers. ``async with`` connects every
    client and may be nested (the first block connects, the last closes what it opened);
    clients connected by their own ``async with`` may be used without it."""

    def __init__(self, clients: Mapping[str, Client]) -> None:
        if not clients:
            raise ValueError("ClientGroup requires at least one client")
        self._clients = dict(clients)
        self._entered = 0
        self._connections: contextlib.AsyncExitStack | None = None
        self._lifecycle = asyncio.Lock()
        self._routes: dict[str, ToolRoute] = {}
        self._catalog_loaded = False

    @classmethod
    def from_config(cls, config: dict[str, Any], *, default_mode: str = "auto") -> ClientGroup:
        """A client of each server an MCP configuration names (``{"mcpServers": {...}}``),
        in the ``mode`` its entry gives, else ``default_mode``."""
        servers = config.get("mcpServers", config)
        clients = {}
        for name, server in servers.items():
            mode = server.get("mode", default_mode)
            if not isinstance(mode, str):
                raise TypeError(f"Protocol mode for server {name!r} must be a string")
            entry = {key: value for key, value in server.items() if key != "mode"}
            clients[name] = Client(MCPConfigTransport({"mcpServers": {name: entry}}), mode=mode)
        return cls(clients)

    @property
    def clients(self) -> Mapping[str, Client]:
        """The clients, by server name (fixed: routes hold the client of each tool)."""
        return MappingProxyType(self._clients)

    @property
    def protocol_versions(self) -> dict[str, str | None]:
        """The revision each client speaks; None for one not connected."""
        return {
            name: client.protocol_version if client.is_connected() else None for name, client in self._clients.items()
        }

    async def __aenter__(self) -> ClientGroup:
        async with self._lifecycle:
            if self._connections is None:
                connections = contextlib.AsyncExitStack()
                try:
                    for client in self._clients.values():
                        await connections.enter_async_context(client)
                except BaseException:
                    await connections.aclose()
                    raise
                self._connections = connections
            self._entered += 1
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        async with self._lifecycle:
            self._entered -= 1
            if self._entered == 0 and self._connections is not None:
                connections, self._connections = self._connections, None
                await connections.aclose()

    async def list_tools(self) -> list[Any]:
        """Every client's tools, each named ``<server name>_<tool>``; refreshes the routes.
        ``ValueError`` when two would have one name."""
        self._require_connected(self._clients)
        listed = await asyncio.gather(*(client.list_tools() for client in self._clients.values()))
        routes: dict[str, ToolRoute] = {}
        tools = []
        for (server_name, client), server_tools in zip(self._clients.items(), listed, strict=True):
            for tool in server_tools:
                name = f"{server_name}_{tool.name}"
                if name in routes:
                    raise ValueError(f"Tool name collision: {name!r}")
                routes[name] = ToolRoute(server_name, client, tool.name)
                tools.append(tool.model_copy(update={"name": name}))
        self._routes, self._catalog_loaded = routes, True
        return tools

    async def resolve_tool(self, name: str) -> ToolRoute:
        """The client and server-side name of the tool the group lists as ``name`` (the
        first asks every client for its tools). ``KeyError`` for a name no server has."""
        if not self._catalog_loaded:
            await self.list_tools()
        route = self._routes.get(name)
        if route is None:
            raise KeyError(
                f"Unknown tool: {name!r}. If servers changed their tools, call list_tools() to refresh the catalog."
            )
        self._require_connected({route.server_name: route.client})
        return route

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        version: str | None = None,
        timeout: datetime.timedelta | float | None = None,
        progress_handler: ProgressHandler | None = None,
        raise_on_error: bool = True,
        meta: dict[str, Any] | None = None,
    ) -> CallToolResult:
        """Calls the tool listed as ``name`` through the client of its server (see
        :meth:`Client.call_tool`)."""
        route = await self.resolve_tool(name)
        return await route.client.call_tool(
            route.upstream_name,
            arguments,
            version=version,
            timeout=timeout,
            progress_handler=progress_handler,
            raise_on_error=raise_on_error,
            meta=meta,
        )

    async def call_tool_mcp(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        timeout: datetime.timedelta | float | None = None,
        progress_handler: ProgressHandler | None = None,
        meta: dict[str, Any] | None = None,
    ) -> types.CallToolResult:
        """:meth:`call_tool`, its result as the protocol has it."""
        route = await self.resolve_tool(name)
        return await route.client.call_tool_mcp(
            route.upstream_name, arguments or {}, timeout=timeout, progress_handler=progress_handler, meta=meta
        )

    async def list_skills(self) -> dict[str, list[MCPSkill]]:
        """The skills of every client with the skills extension on both sides, by server
        name (a skill's URI is its server's alone)."""
        self._require_connected(self._clients)
        offering = {name: client for name, client in self._clients.items() if client.offers_skills()}
        listed = await asyncio.gather(*(client.list_skills() for client in offering.values()))
        return dict(zip(offering, listed, strict=True))

    async def get_skill(self, server_name: str, uri: str) -> MCPSkill:
        """One skill's entry, from the server named ``server_name``."""
        return await self._client(server_name).get_skill(uri)

    async def read_skill(self, server_name: str, uri: str) -> Skill:
        """One whole skill, from the server named ``server_name`` (see :meth:`Client.read_skill`)."""
        return await self._client(server_name).read_skill(uri)

    def _client(self, server_name: str) -> Client:
        client = self._clients.get(server_name)
        if client is None:
            raise KeyError(f"Unknown ClientGroup server: {server_name!r}")
        self._require_connected({server_name: client})
        return client

    @staticmethod
    def _require_connected(clients: Mapping[str, Client]) -> None:
        disconnected = [repr(name) for name, client in clients.items() if not client.is_connected()]
        if disconnected:
            raise RuntimeError(f"ClientGroup clients are not connected: {', '.join(disconnected)}")


__all__ = ["ClientGroup", "ToolRoute"]

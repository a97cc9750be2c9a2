"""FastMCP's ``fastmcp.client.transports``: what a :class:`~oxmcp.fastmcp.Client` connects
to, each made into oxmcp's client of that server. Given something else than a transport,
the client infers one as FastMCP does (:func:`infer_transport`)."""

from __future__ import annotations

import ssl
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ...client import Client
from ...server import Server
from .auth import http_auth


class ClientTransport(ABC):
    """How a client reaches its server."""

    @abstractmethod
    def client(self, **options: Any) -> Client:
        """oxmcp's client of the server, with the client ``options`` (handlers, timeout)."""


@dataclass
class FastMCPTransport(ClientTransport):
    """A server in this process, called without a pipe or a socket."""

    mcp: Server

    def client(self, **options: Any) -> Client:
        return Client(self.mcp, **options)


@dataclass
class StreamableHttpTransport(ClientTransport):
    """A Streamable HTTP endpoint (``http://127.0.0.1:8000/mcp``); ``auth`` is a bearer
    token, ``"oauth"`` or an OAuth client of :mod:`oxmcp.fastmcp.client.auth`; ``verify``
    whose certificates an https server may present (:meth:`oxmcp.Client.http`)."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    auth: object = None
    verify: ssl.SSLContext | bool | str | None = None

    def client(self, **options: Any) -> Client:
        auth = http_auth(self.auth)
        return Client.http(self.url, headers=self.headers, verify=self.verify, **auth, **options)


@dataclass
class SSETransport(StreamableHttpTransport):
    """An HTTP+SSE endpoint of the 2024-11-05 revision (``http://127.0.0.1:8000/sse``)."""


@dataclass
class StdioTransport(ClientTransport):
    """The server ``command`` with ``args`` starts, over its stdin and stdout."""

    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None

    def client(self, **options: Any) -> Client:
        return Client.stdio([self.command, *self.args], env=self.env, cwd=self.cwd, **options)


@dataclass
class _ScriptTransport(ClientTransport):
    """A script serving stdio, run by its interpreter."""

    script_path: str | Path
    args: list[str] = field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None

    @property
    @abstractmethod
    def interpreter(self) -> str:
        """The program that runs the script."""

    def client(self, **options: Any) -> Client:
        command = [self.interpreter, str(self.script_path), *self.args]
        return Client.stdio(command, env=self.env, cwd=self.cwd, **options)


@dataclass
class PythonStdioTransport(_ScriptTransport):
    """A Python script serving stdio, run by this interpreter unless ``python_cmd`` says otherwise."""

    python_cmd: str = sys.executable

    @property
    def interpreter(self) -> str:
        return self.python_cmd


@dataclass
class NodeStdioTransport(_ScriptTransport):
    """A JavaScript script serving stdio, run by ``node``."""

    node_cmd: str = "node"

    @property
    def interpreter(self) -> str:
        return self.node_cmd


@dataclass
class MCPConfigTransport(ClientTransport):
    """The servers an MCP configuration names, as Claude Desktop and Cursor write them
    (``{"mcpServers": {"weather": {...}}}``, or the servers at the root): each a ``command``
    (with ``args``, ``env``, ``cwd``) run over stdio, or a ``url`` (``transport``
    ``"http"``, ``"streamable-http"`` or ``"sse"``, else inferred from the URL; ``headers``;
    ``auth``, a bearer token or ``"oauth"``); its ``timeout`` (milliseconds; 0: none)
    bounds each request to it in place of the client's. A client of one server talks to
    it; of several, as FastMCP's, to a server in process that proxies each under its name
    (``weather_forecast``, ``weather://weather/today``), the client's handlers staying
    with the client (the servers' questions go unanswered)."""

    config: dict[str, Any]

    def __post_init__(self) -> None:
        servers = self.config.get("mcpServers", self.config)
        if not isinstance(servers, dict) or not servers:
            raise ValueError("No MCP servers defined in the config")
        for name, server in servers.items():
            if not isinstance(server, dict) or ("command" in server) == ("url" in server):
                raise ValueError(f"server {name!r} of the config needs a command or a url")
        self.servers: dict[str, dict[str, Any]] = servers

    @property
    def transport(self) -> ClientTransport:
        """The transport of the one server the config names."""
        if len(self.servers) > 1:
            raise ValueError(f"the config names {len(self.servers)} servers: each has a transport of its own")
        ((name, server),) = self.servers.items()
        return _server_transport(name, server)

    def client(self, **options: Any) -> Client:
        if len(self.servers) == 1:
            return _server_client(self.transport, next(iter(self.servers.values())), options)
        from ..server import FastMCP

        router = FastMCP("MCPRouter")
        for name, server in self.servers.items():
            proxy = FastMCP(name)
            proxy.proxy(_server_client(_server_transport(name, server), server, {}))
            router.mount(proxy, namespace=name)
        return Client(router, **options)


def _server_transport(name: str, server: dict[str, Any]) -> ClientTransport:
    """The transport of server ``name`` of an MCP configuration."""
    if "command" in server:
        env = server.get("env") or None
        return StdioTransport(server["command"], list(server.get("args", [])), env, server.get("cwd"))
    url, kind = server["url"], server.get("transport") or server.get("type")
    auth = server.get("auth")
    headers = dict(server.get("headers") or {})
    if kind not in (None, "http", "streamable-http", "sse"):
        raise ValueError(f"server {name!r}: transport {kind!r} is not http, streamable-http or sse")
    inferred = infer_url(url) if kind is None else (SSETransport if kind == "sse" else StreamableHttpTransport)
    return inferred(url, headers, auth)


def _server_client(transport: ClientTransport, server: dict[str, Any], options: dict[str, Any]) -> Client:
    """oxmcp's client of a configured server, with its ``timeout`` (milliseconds)."""
    timeout = server.get("timeout")
    if timeout is not None:
        options["timeout"] = timeout / 1000 or None
    return transport.client(**options)


def infer_url(url: str) -> type[StreamableHttpTransport]:
    """The transport of an ``http(s)`` URL: HTTP+SSE when its path ends in ``/sse``, else
    Streamable HTTP."""
    return SSETransport if urlparse(url).path.rstrip("/").endswith("/sse") else StreamableHttpTransport


def infer_transport(source: ClientTransport | Server | str | Path | dict[str, Any]) -> ClientTransport:
    """The transport FastMCP infers: a server is called in process, a ``.py`` or ``.js``
    script is run over stdio, an ``http(s)`` URL is Streamable HTTP (HTTP+SSE when its path
    ends in ``/sse``), a ``dict`` is an MCP configuration."""
    if isinstance(source, ClientTransport):
        return source
    if isinstance(source, Server):
        return FastMCPTransport(source)
    if isinstance(source, dict):
        return MCPConfigTransport(source)
    text = str(source)
    if urlparse(text).scheme in ("http", "https"):
        return infer_url(text)(text)
    if text.endswith(".py"):
        return PythonStdioTransport(text)
    if text.endswith(".js"):
        return NodeStdioTransport(text)
    raise ValueError(f"cannot infer a transport from {source!r}: give a server, a .py or .js script, or an http(s) URL")


__all__ = [
    "ClientTransport",
    "FastMCPTransport",
    "MCPConfigTransport",
    "NodeStdioTransport",
    "PythonStdioTransport",
    "SSETransport",
    "StdioTransport",
    "StreamableHttpTransport",
    "infer_transport",
]

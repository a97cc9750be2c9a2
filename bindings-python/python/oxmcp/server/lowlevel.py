"""The official SDK's ``mcp.server.lowlevel``: a low-level server written for it imports
:class:`Server` from here and gives it its handlers (``Server(name, on_call_tool=...)``)."""

from __future__ import annotations

from . import Server

__all__ = ["Server"]

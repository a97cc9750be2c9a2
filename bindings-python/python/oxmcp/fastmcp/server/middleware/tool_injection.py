"""FastMCP's ``fastmcp.server.middleware.tool_injection``: tools a server serves beside its
own, given with its middleware."""

from __future__ import annotations

from collections.abc import Sequence

from ...tools.base import Tool
from .middleware import Middleware


class ToolInjectionMiddleware(Middleware):
    """Serves ``tools`` on the server it is added to, listed and called as its own (the
    server's middleware and scopes apply to them); one takes the place of a tool the
    server has under its name. Of several given one name, the last is served."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools_to_inject = tools
        self._tools_to_inject_by_name = {tool.name: tool for tool in tools}

    @property
    def injected_tools(self) -> Sequence[Tool]:
        """The tools served, one a name."""
        return list(self._tools_to_inject_by_name.values())

    def get_injected_tool(self, name: str) -> Tool | None:
        """The tool served under ``name``, if this middleware serves one."""
        return self._tools_to_inject_by_name.get(name)


__all__ = ["ToolInjectionMiddleware"]

"""The official SDK's ``mcp.server.transport_security``: the Host and Origin checks of the
Streamable HTTP endpoint, as a server written for it gives them
(``streamable_http_app(transport_security=TransportSecuritySettings(...))``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

__all__ = ["TransportSecuritySettings"]


class TransportSecuritySettings(BaseModel):
    """Which ``Host`` names and ``Origin`` values the endpoint accepts, against DNS
    rebinding. Without ``enable_dns_rebinding_protection`` any ``Host`` is accepted; the
    ``Origin`` check stays (browsers' pages from other sites are still refused, requests
    without ``Origin`` pass), where the official SDK drops it too. A ``:*`` port, or any
    port, matches every port: oxmcp compares host names."""

    enable_dns_rebinding_protection: bool = True
    allowed_hosts: list[str] = Field(default_factory=list)
    allowed_origins: list[str] = Field(default_factory=list)

    def http_options(self) -> dict[str, Any]:
        """oxmcp's :class:`~oxmcp.server.HttpOptions` for these settings."""
        if not self.enable_dns_rebinding_protection:
            return {"allowed_hosts": []}
        options: dict[str, Any] = {}
        if self.allowed_hosts:
            options["allowed_hosts"] = sorted({_without_port(host) for host in self.allowed_hosts})
        if self.allowed_origins:
            options["allowed_origins"] = sorted({_without_port(origin) for origin in self.allowed_origins})
        return options


def _without_port(address: str) -> str:
    """``address`` without a trailing ``:port`` or ``:*`` (an IPv6 literal's colons kept)."""
    head, colon, port = address.rpartition(":")
    return head if colon and (port == "*" or port.isdigit()) and not head.endswith(":") else address

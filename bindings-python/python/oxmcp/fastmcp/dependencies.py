"""FastMCP's ``fastmcp.dependencies``: parameters a handler gets injected rather than sent,
declared as their defaults (``ctx: Context = CurrentContext()``, ``db = Depends(open_db)``),
resolved at each call and left out of the schema. ``Depends``, ``Shared`` and
``CallArgument`` are ``uncalled_for``'s, as FastMCP's are."""

from __future__ import annotations

from uncalled_for import CallArgument, CycleError, Dependency, Depends, Shared

from .server.dependencies import (
    CurrentAccessToken,
    CurrentContext,
    CurrentFastMCP,
    CurrentHeaders,
    CurrentRequest,
    OptionalCurrentContext,
    Progress,
    TokenClaim,
)

__all__ = [
    "CallArgument",
    "CurrentAccessToken",
    "CurrentContext",
    "CurrentFastMCP",
    "CurrentHeaders",
    "CurrentRequest",
    "CycleError",
    "Dependency",
    "Depends",
    "OptionalCurrentContext",
    "Progress",
    "Shared",
    "TokenClaim",
]

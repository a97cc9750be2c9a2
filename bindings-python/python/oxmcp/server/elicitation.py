"""The official SDK's ``mcp.server.elicitation``: what ``ctx.elicit`` and
``ctx.elicit_url`` answer, one class for each thing the user did, for ``isinstance`` or a
``match`` to tell apart::

    answer = await ctx.elicit("Your details?", Registration)
    if isinstance(answer, AcceptedElicitation):
        ...

Each is an :class:`oxmcp.ElicitationResult` (``action``, ``data``) too."""

from __future__ import annotations

from ..context import AcceptedElicitation, CancelledElicitation, DeclinedElicitation, ElicitationResult

#: The official SDK's name for an accepted URL elicitation (one class for both here).
AcceptedUrlElicitation = AcceptedElicitation

__all__ = [
    "AcceptedElicitation",
    "AcceptedUrlElicitation",
    "CancelledElicitation",
    "DeclinedElicitation",
    "ElicitationResult",
]

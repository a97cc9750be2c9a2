"""FastMCP's ``fastmcp.server.elicitation``: what ``ctx.elicit`` answers, one class for
each thing the user did, for a ``match`` to tell apart::

    match await ctx.elicit("Your name?", response_type=str):
        case AcceptedElicitation(data=name):
            ...
        case DeclinedElicitation() | CancelledElicitation():
            ...

Each is an :class:`oxmcp.ElicitationResult` (``action``, ``data``) too."""

from __future__ import annotations

from ...server.elicitation import AcceptedElicitation, CancelledElicitation, DeclinedElicitation

__all__ = ["AcceptedElicitation", "CancelledElicitation", "DeclinedElicitation"]

"""FastMCP's ``fastmcp.server.elicitation``: what ``ctx.elicit`` answers, one class for
each thing the user did, for a ``match`` to tell apart::

    match await ctx.elicit("Your name?", response_type=str):
        case AcceptedElicitation(data=name):
            ...
        case DeclinedElicitation() | CancelledElicitation():
            ...

Each is an :class:`oxmcp.ElicitationResult` (``action``, ``data``) too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from ...context import ElicitationResult

T = TypeVar("T")


@dataclass(frozen=True)
class AcceptedElicitation(ElicitationResult[T]):
    """The user accepted: ``data`` holds the answer."""

    action: Literal["accept", "decline", "cancel"] = "accept"


@dataclass(frozen=True)
class DeclinedElicitation(ElicitationResult[None]):
    """The user declined to answer."""

    action: Literal["accept", "decline", "cancel"] = "decline"


@dataclass(frozen=True)
class CancelledElicitation(ElicitationResult[None]):
    """The user dismissed the question."""

    action: Literal["accept", "decline", "cancel"] = "cancel"


def elicitation_result(result: ElicitationResult[Any]) -> ElicitationResult[Any]:
    """``result`` as the class of what the user did."""
    if result.action == "accept":
        return AcceptedElicitation(data=result.data)
    return DeclinedElicitation() if result.action == "decline" else CancelledElicitation()


__all__ = ["AcceptedElicitation", "CancelledElicitation", "DeclinedElicitation", "elicitation_result"]

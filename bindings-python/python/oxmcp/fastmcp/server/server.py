"""FastMCP's ``FastMCP``: an oxmcp :class:`~oxmcp.Server` with FastMCP's conventions."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from ..._conventions import Conventions
from ...server import Server
from .._conventions import FastMCPConventions


class FastMCP(Server):
    """A server written with FastMCP (``from fastmcp import FastMCP``), served by oxmcp: the
    same decorators and ``run()`` as :class:`~oxmcp.Server`, listing and answering as
    FastMCP does (see :mod:`oxmcp.fastmcp`). The decorators also take FastMCP's ``tags``,
    listed in each definition's ``_meta.fastmcp.tags``."""

    _conventions: ClassVar[Conventions] = FastMCPConventions()

    def tool(self, name_or_fn: Any = None, /, *, tags: Iterable[str] | None = None, **options: Any) -> Any:
        """:meth:`oxmcp.Server.tool`, with ``tags``."""
        return super().tool(name_or_fn, **_tagged(options, tags))

    def resource(self, uri: str, *, tags: Iterable[str] | None = None, **options: Any) -> Any:
        """:meth:`oxmcp.Server.resource`, with ``tags``."""
        return super().resource(uri, **_tagged(options, tags))

    def prompt(self, name_or_fn: Any = None, /, *, tags: Iterable[str] | None = None, **options: Any) -> Any:
        """:meth:`oxmcp.Server.prompt`, with ``tags``."""
        return super().prompt(name_or_fn, **_tagged(options, tags))


def _tagged(options: dict[str, Any], tags: Iterable[str] | None) -> dict[str, Any]:
    """`options` with `tags` in the ``meta`` they give, where FastMCP lists them."""
    if tags is None:
        return options
    meta = dict(options.get("meta") or {})
    meta["fastmcp"] = {**meta.get("fastmcp", {}), "tags": sorted(tags)}
    return {**options, "meta": meta}


__all__ = ["FastMCP"]

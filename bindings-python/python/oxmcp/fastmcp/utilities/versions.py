"""FastMCP's ``fastmcp.utilities.versions``: :class:`VersionSpec`, which versions of a
component a request, a provider's lookup or a visibility rule means."""

from __future__ import annotations

from dataclasses import dataclass

from ..server._versions import version_key


@dataclass(frozen=True)
class VersionSpec:
    """The versions from ``gte`` (included) to ``lt`` (excluded), or ``eq`` alone, compared
    as FastMCP compares them (PEP 440, a leading ``v`` aside, else as text)."""

    gte: str | None = None
    lt: str | None = None
    eq: str | None = None

    def matches(self, version: str | None, *, match_none: bool = True) -> bool:
        """Whether ``version`` is one of these; an unversioned component (None) is as
        ``match_none`` says."""
        if version is None:
            return match_none
        key = version_key(version)
        if self.eq is not None:
            return key == version_key(self.eq)
        above = self.gte is None or key >= version_key(self.gte)
        return above and (self.lt is None or key < version_key(self.lt))


__all__ = ["VersionSpec"]

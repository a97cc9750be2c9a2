"""What a resource template's variables may hold before its function is called: as the
official SDK's ``MCPServer`` and FastMCP screen them by default, a value that would climb
out of a path (a ``..`` segment above its start), an absolute path (``/etc/passwd``,
``C:\\x``, ``\\\\server``) or a NUL byte is refused, answered as a resource that does not
exist, whatever its encoding in the URI (``..%2F``)."""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ResourceSecurity:
    """The checks of a template's variables (each on unless turned off); ``exempt_params``
    names the variables none applies to (a git range ``HEAD~3..HEAD`` passes anyway: only
    a whole ``..`` segment climbs)."""

    reject_path_traversal: bool = True
    reject_absolute_paths: bool = True
    reject_null_bytes: bool = True
    exempt_params: frozenset[str] = field(default_factory=frozenset)

    def refuses(self, variables: Mapping[str, str]) -> bool:
        """Whether one of the decoded ``variables`` fails a check."""
        for name, value in variables.items():
            if name in self.exempt_params or name.replace("-", "_") in self.exempt_params:
                continue
            if self.reject_null_bytes and "\0" in value:
                return True
            if self.reject_path_traversal and climbs(value):
                return True
            if self.reject_absolute_paths and is_absolute(value):
                return True
        return False


def climbs(value: str) -> bool:
    """Whether ``value``, as a relative path (``/`` or ``\\`` between segments), has more
    ``..`` segments at some point than segments before them."""
    depth = 0
    for segment in value.replace("\\", "/").split("/"):
        if segment == "..":
            depth -= 1
            if depth < 0:
                return True
        elif segment not in ("", "."):
            depth += 1
    return False


def is_absolute(value: str) -> bool:
    """Whether ``value`` is an absolute path on some platform: POSIX, a Windows drive
    (``C:\\``, ``C:x``) or a Windows root or share (``\\x``, ``\\\\server``)."""
    if value[:1] in ("/", "\\"):
        return True
    return len(value) >= 2 and value[1] == ":" and value[0] in string.ascii_letters


#: Every check on, for every variable: a server's templates unless it says otherwise.
DEFAULT_RESOURCE_SECURITY = ResourceSecurity()

__all__ = ["DEFAULT_RESOURCE_SECURITY", "ResourceSecurity"]

"""FastMCP's ``fastmcp.utilities.tasks``: how a tool runs as a task (``@mcp.tool(task=...)``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

#: ``forbidden``: never a task; ``optional``: a task when the client asks; ``required``: always.
TaskMode = Literal["forbidden", "optional", "required"]


@dataclass
class TaskConfig:
    """A tool's task mode. ``poll_interval`` is FastMCP's; oxmcp's server sets the interval
    it tells clients (``Server(task_poll_interval=...)``)."""

    mode: TaskMode = "optional"
    poll_interval: timedelta = timedelta(seconds=5)

    @classmethod
    def from_bool(cls, value: bool) -> TaskConfig:
        """``True`` is ``optional``, ``False`` ``forbidden``."""
        return cls(mode="optional" if value else "forbidden")

    def supports_tasks(self) -> bool:
        """Whether a call may run as a task."""
        return self.mode != "forbidden"


__all__ = ["TaskConfig", "TaskMode"]

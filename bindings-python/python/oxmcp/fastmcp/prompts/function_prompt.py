"""FastMCP's ``fastmcp.prompts.function_prompt``: a prompt as an object
(``Prompt.from_function(fn, ...)``, served by ``mcp.add_prompt``), with FastMCP's ``tags``
and ``version``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ... import prompts


@dataclasses.dataclass
class Prompt(prompts.Prompt):
    """A prompt as an object, with its ``tags`` and ``version``."""

    tags: set[str] = dataclasses.field(default_factory=set)
    version: str | None = None
    #: Any other option of ``mcp.prompt`` (``completions``...).
    options: dict[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_function(  # type: ignore[override]
        cls,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Any] | None = None,
        tags: set[str] | None = None,
        meta: dict[str, Any] | None = None,
        version: str | int | None = None,
        **options: Any,
    ) -> FunctionPrompt:
        """The prompt ``fn`` renders, with ``mcp.prompt``'s options (named after it unless
        ``name`` is given)."""
        made = prompts.Prompt.from_function(fn, name, title, description, icons, meta=meta)
        version = None if version is None else str(version)
        return FunctionPrompt(**vars(made), tags=set(tags or ()), version=version, options=options)

    def listed(self) -> dict[str, Any]:
        return {**super().listed(), "tags": self.tags, "version": self.version, **self.options}


class FunctionPrompt(Prompt):
    """The prompt a function renders."""


__all__ = ["FunctionPrompt", "Prompt"]

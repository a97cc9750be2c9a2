"""Docstrings as FastMCP reads them (with griffe): the description before the first
structured section (Google, NumPy or Sphinx style), and each parameter's description. A
docstring with no structure is all description."""

from __future__ import annotations

import functools
import inspect
import logging
from dataclasses import dataclass, field
from typing import Literal

_STYLES: tuple[Literal["google", "numpy", "sphinx"], ...] = ("google", "numpy", "sphinx")
#: The Google-style headings that end the description (griffe reads any `word:` line
#: followed by an indented block as an admonition; only these count as structure).
_HEADINGS = frozenset(
    {
        "attention",
        "caution",
        "danger",
        "error",
        "example",
        "hint",
        "important",
        "note",
        "notes",
        "raise",
        "references",
        "return",
        "see-also",
        "tip",
        "todo",
        "warning",
        "yield",
    }
)


@dataclass(frozen=True)
class Docstring:
    """What a docstring says of its function and of each parameter."""

    description: str | None = None
    parameters: dict[str, str] = field(default_factory=dict)


@functools.lru_cache(maxsize=256)
def parsed(text: str | None) -> Docstring:
    """`text` read as FastMCP reads a docstring."""
    if not text or not (text := inspect.cleandoc(text)):
        return Docstring()
    from griffe import Docstring as Griffe
    from griffe import DocstringSectionKind

    # griffe warns of parameters documented without types: nothing to act on here.
    logging.getLogger("griffe").setLevel(logging.ERROR)
    for style in _STYLES:
        description: str | None = None
        parameters: dict[str, str] = {}
        structured = False
        for section in Griffe(text, lineno=1, parser=style).parse():
            if section.kind is DocstringSectionKind.text:
                description = section.value if description is None else description
            elif section.kind is DocstringSectionKind.parameters:
                parameters.update({parameter.name: parameter.description for parameter in section.value})
                structured = True
            elif section.kind is DocstringSectionKind.admonition:
                structured = structured or section.value.kind in _HEADINGS
            else:
                structured = True
        if structured:
            return Docstring(description, parameters)
    return Docstring(text)

"""Python values as the JSON the native layer takes.

What handlers return needs no conversion here: the native layer reads it as the core's
``Returned`` (``bindings-python/src/convert.rs``), which shapes the result.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import to_jsonable_python


def jsonable(value: Any) -> Any:
    """Plain JSON data of any value pydantic can serialise (models, dataclasses, ...)."""
    return to_jsonable_python(value, by_alias=True, exclude_none=True)

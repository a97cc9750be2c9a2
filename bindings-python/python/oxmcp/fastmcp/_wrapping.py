"""A function wrapped with work of its own around each call, its signature kept (the same
parameters and return annotation, which registration reads) and an ``async def`` staying
one."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any


def wrapped(
    fn: Callable[..., Any],
    *,
    before: Callable[[dict[str, Any]], None] | None = None,
    after: Callable[[Any], Any] | None = None,
) -> Callable[..., Any]:
    """``fn``, ``before`` given its keyword arguments first (it may raise), what it returns
    given as ``after`` makes it."""

    def enter(kwargs: dict[str, Any]) -> None:
        if before is not None:
            before(kwargs)

    def leave(value: Any) -> Any:
        return value if after is None else after(value)

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def on_loop(*args: Any, **kwargs: Any) -> Any:
            enter(kwargs)
            return leave(await fn(*args, **kwargs))

        return on_loop

    @functools.wraps(fn)
    def here(*args: Any, **kwargs: Any) -> Any:
        enter(kwargs)
        return leave(fn(*args, **kwargs))

    return here

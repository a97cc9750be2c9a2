"""How the native layer calls a Python handler: an ``async def`` as a coroutine function,
run on the loop; a plain ``def`` as a function, which the native layer runs on a worker
thread. Either way the official SDK's errors are raised as oxmcp's."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel

from .._official import raise_as_ours

#: The positional and keyword arguments of a handler.
Call = tuple[tuple[Any, ...], dict[str, Any]]

#: The native context of the request whose handler runs, for what reads it without a
#: ``ctx`` parameter (FastMCP's ``get_access_token()``).
native_context: ContextVar[Any] = ContextVar("oxmcp_native_context", default=None)


def native_callable(
    fn: Callable[..., Any],
    is_async: bool,
    prepare: Callable[..., Call],
    convert: Callable[[Any], Any] | None = None,
) -> Callable[..., Any]:
    """The function the native layer calls: ``prepare(*native)`` gives `fn`'s arguments;
    what `fn` returns goes to the core as it is, or as ``convert`` makes it. While `fn`
    runs, :data:`native_context` is the request's (the last of ``native``)."""
    if is_async:

        async def run_on_loop(*native: Any) -> Any:
            args, kwargs = prepare(*native)
            running = native_context.set(native[-1])
            try:
                value = await fn(*args, **kwargs)
            except Exception as error:
                raise_as_ours(error)
            finally:
                native_context.reset(running)
            return value if convert is None else convert(value)

        return run_on_loop

    def run_here(*native: Any) -> Any:
        args, kwargs = prepare(*native)
        running = native_context.set(native[-1])
        try:
            value = fn(*args, **kwargs)
        except Exception as error:
            raise_as_ours(error)
        finally:
            native_context.reset(running)
        return value if convert is None else convert(value)

    return run_here


def result_object(value: Any) -> Any:
    """A request's result as the wire has it: a model dumped, None as ``{}``."""
    if value is None:
        return {}
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    return value

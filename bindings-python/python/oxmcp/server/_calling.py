"""How the native layer calls a Python handler: an ``async def`` as a coroutine function,
run on the loop; a plain ``def`` as a function, which the native layer runs on a worker
thread. Either way the official SDK's errors are raised as oxmcp's."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar, copy_context
from typing import Any, NamedTuple, NoReturn

from pydantic import BaseModel

from .._native import run_to_end, runs_in_one_step
from .._official import from_official_error, is_input_required

#: The positional and keyword arguments of a handler.
Call = tuple[tuple[Any, ...], dict[str, Any]]


class Running(NamedTuple):
    """The request whose handler runs, for what reads it without a ``ctx`` parameter
    (FastMCP's ``get_context()``, ``get_access_token()``)."""

    #: The request's native context.
    native: Any
    #: What makes the handler's context of a given type from it (None for handlers that
    #: get none, such as a low-level server's).
    make_context: Callable[[type[Any], Any], Any] | None


running: ContextVar[Running | None] = ContextVar("oxmcp_running", default=None)


def native_context() -> Any:
    """The native context of the request whose handler runs, or None."""
    request = running.get()
    return None if request is None else request.native


#: What a handler's failure is answered as, from the exception (oxmcp's, the official SDK's
#: error already turned into it) and the arguments the native layer called it with.
Failure = Callable[[Exception, tuple[Any, ...]], Exception]


def native_callable(
    fn: Callable[..., Any],
    is_async: bool,
    prepare: Callable[..., Call],
    convert: Callable[[Any], Any] | None = None,
    make_context: Callable[[type[Any], Any], Any] | None = None,
    failure: Failure | None = None,
) -> Callable[..., Any]:
    """The function the native layer calls: ``prepare(*native)`` gives `fn`'s arguments;
    what `fn` returns goes to the core as it is, or as ``convert`` makes it; what any of
    them raises, as ``failure`` words it (or as it is). While they run, :data:`running` is
    the request's (its native context the last of ``native``), the failure's wording too.

    An ``async def`` that never waits is called by a coroutine function that does not
    either, which the native layer runs in one step, without a task of its own."""
    if is_async and not runs_in_one_step(fn):

        async def run_on_loop(*native: Any) -> Any:
            token = running.set(Running(native[-1], make_context))
            try:
                args, kwargs = prepare(*native)
                value = await fn(*args, **kwargs)
                return answered(value, convert, native)
            except Exception as error:
                raise_answer(error, failure, native)
            finally:
                running.reset(token)

        return run_on_loop

    def run_here(*native: Any) -> Any:
        token = running.set(Running(native[-1], make_context))
        try:
            args, kwargs = prepare(*native)
            value = fn(*args, **kwargs)
            if is_async:
                value = run_to_end(value)
            return answered(value, convert, native)
        except Exception as error:
            raise_answer(error, failure, native)
        finally:
            running.reset(token)

    if not is_async:

        def run_on_worker(*native: Any) -> Any:
            # In a context of its own, as a request's task runs: what one call sets in a
            # ContextVar is not seen by the next the worker thread runs.
            return copy_context().run(run_here, *native)

        return run_on_worker

    async def run_in_one_step(*native: Any) -> Any:
        return run_here(*native)

    return run_in_one_step


def answered(value: Any, convert: Callable[[Any], Any] | None, native: tuple[Any, ...]) -> Any:
    """What the core gets of a handler's `value`: as ``convert`` makes it; an
    ``InputRequiredResult`` ends the run asking for its input (the guard pattern), its
    ``request_state`` sealed by the core."""
    if is_input_required(value):
        asked = value.model_dump(by_alias=True, exclude_none=True, mode="json")
        raise native[-1].input_required(asked.get("inputRequests") or {}, asked.get("requestState"))
    return value if convert is None else convert(value)


def raise_answer(error: Exception, failure: Failure | None, native: tuple[Any, ...] = ()) -> NoReturn:
    """Raises what a handler's `error` is answered as: oxmcp's error for the official SDK's,
    then as ``failure`` words it; the error itself when that is what it is answered as."""
    ours = from_official_error(error)
    answer = ours if failure is None else failure(ours, native)
    if answer is error:
        raise error
    raise answer from error


def result_object(value: Any) -> Any:
    """A request's result as the wire has it: a model dumped, None as ``{}``."""
    if value is None:
        return {}
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    return value

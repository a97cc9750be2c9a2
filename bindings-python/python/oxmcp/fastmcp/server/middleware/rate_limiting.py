"""FastMCP's ``fastmcp.server.middleware.rate_limiting``: requests past a rate refused
with a :class:`RateLimitError` (-32000), per client or for the whole server."""

from __future__ import annotations

import inspect
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from ...._errors import McpError
from .middleware import CallNext, Middleware, MiddlewareContext

#: What names the client a request counts against: its context's client id, or a name of
#: one's own; ``"global"`` (one count for every client) when no function is given.
ClientId = Callable[[MiddlewareContext[Any]], str] | Callable[[MiddlewareContext[Any]], Awaitable[str]]

Limiter = TypeVar("Limiter")


class RateLimitError(McpError):
    """A request past the rate: -32000."""

    def __init__(self, message: str = "Rate limit exceeded") -> None:
        super().__init__(-32000, message)


class TokenBucketRateLimiter:
    """A bucket of ``capacity`` tokens, ``refill_rate`` more each second; each request
    takes one."""

    def __init__(self, capacity: int, refill_rate: float) -> None:
        self.capacity = capacity
        self.refill_rate = refill_rate
        self.tokens: float = capacity
        self.last_refill = time.monotonic()

    async def consume(self, tokens: int = 1) -> bool:
        """Takes ``tokens`` when the bucket has them; whether it had."""
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.last_refill) * self.refill_rate)
        self.last_refill = now
        if self.tokens < tokens:
            return False
        self.tokens -= tokens
        return True


class SlidingWindowRateLimiter:
    """At most ``max_requests`` in any ``window_seconds``."""

    def __init__(self, max_requests: int, window_seconds: float) -> None:
        self.max_requests = max_requests
        self.window_seconds = window_seconds
        self.requests: deque[float] = deque()

    async def is_allowed(self) -> bool:
        """Counts a request when the window has room for it; whether it had."""
        now = time.monotonic()
        while self.requests and self.requests[0] < now - self.window_seconds:
            self.requests.popleft()
        if len(self.requests) >= self.max_requests:
            return False
        self.requests.append(now)
        return True


class _ClientLimiters(Generic[Limiter]):
    """Each client's limiter, made at its first request. One unused for ``idle_for``
    seconds is as a new one would be, and is forgotten (a few at each request), so that
    clients that come and go do not fill memory."""

    #: How many idle limiters a request forgets at most.
    FORGET_AT_ONCE = 64

    def __init__(self, make: Callable[[], Limiter], idle_for: float | None) -> None:
        self._make = make
        self._idle_for = idle_for
        self.limiters: OrderedDict[str, tuple[float, Limiter]] = OrderedDict()

    def of(self, client_id: str) -> Limiter:
        now = time.monotonic()
        if self._idle_for is not None:
            for _ in range(self.FORGET_AT_ONCE):
                oldest = next(iter(self.limiters.items()), None)
                if oldest is None or oldest[1][0] >= now - self._idle_for:
                    break
                self.limiters.popitem(last=False)
        kept = self.limiters.pop(client_id, None)
        limiter = kept[1] if kept is not None else self._make()
        self.limiters[client_id] = (now, limiter)
        return limiter


async def _client_of(get_client_id: ClientId | None, context: MiddlewareContext[Any]) -> str:
    if get_client_id is None:
        return "global"
    client_id = get_client_id(context)
    return await client_id if inspect.isawaitable(client_id) else client_id


class RateLimitingMiddleware(Middleware):
    """Refuses a request when its client's bucket (:class:`TokenBucketRateLimiter`: bursts
    of ``burst_capacity``, twice the rate unless given, refilled at
    ``max_requests_per_second``) is empty: ``Rate limit exceeded for client: <id>``, the
    client named by ``get_client_id``; with ``global_limit`` one bucket serves every client
    (``Global rate limit exceeded``)."""

    def __init__(
        self,
        max_requests_per_second: float = 10.0,
        burst_capacity: int | None = None,
        get_client_id: ClientId | None = None,
        global_limit: bool = False,
    ) -> None:
        self.max_requests_per_second = max_requests_per_second
        default_capacity = int(max_requests_per_second * 2)
        if max_requests_per_second > 0:
            default_capacity = max(1, default_capacity)
        self.burst_capacity = burst_capacity or default_capacity
        self.get_client_id = get_client_id
        self.global_limit = global_limit
        # A bucket unused for as long as it takes to fill is full: as a new one.
        idle_for = self.burst_capacity / max_requests_per_second if max_requests_per_second > 0 else None
        self._clients = _ClientLimiters(self._bucket, idle_for)
        self.global_limiter = self._bucket()

    def _bucket(self) -> TokenBucketRateLimiter:
        return TokenBucketRateLimiter(self.burst_capacity, self.max_requests_per_second)

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        if self.global_limit:
            if not await self.global_limiter.consume():
                raise RateLimitError("Global rate limit exceeded")
        else:
            client_id = await _client_of(self.get_client_id, context)
            if not await self._clients.of(client_id).consume():
                raise RateLimitError(f"Rate limit exceeded for client: {client_id}")
        return await call_next(context)


class SlidingWindowRateLimitingMiddleware(Middleware):
    """Refuses a request when its client (named by ``get_client_id``) made
    ``max_requests`` in the last ``window_minutes``
    (:class:`SlidingWindowRateLimiter`)."""

    def __init__(
        self,
        max_requests: int,
        window_minutes: int = 1,
        get_client_id: ClientId | None = None,
    ) -> None:
        self.max_requests = max_requests
        self.window_seconds = window_minutes * 60
        self.get_client_id = get_client_id
        self._clients = _ClientLimiters(
            lambda: SlidingWindowRateLimiter(self.max_requests, self.window_seconds), max(0, self.window_seconds)
        )

    async def on_request(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        client_id = await _client_of(self.get_client_id, context)
        if not await self._clients.of(client_id).is_allowed():
            raise RateLimitError(
                f"Rate limit exceeded: {self.max_requests} requests per "
                f"{self.window_seconds // 60} minutes for client: {client_id}"
            )
        return await call_next(context)

"""How a server protects the ``requestState`` of multi round-trip requests (2026-07-28),
under the official SDK's name (``mcp.server.request_state``): a server ported from it
imports :class:`RequestStateSecurity` from here.

oxmcp seals ``requestState`` itself, in the core, with XChaCha20-Poly1305 bound to the
request's method, name, arguments and the caller's identity (see ``ARCHITECTURE.md``);
this policy gives it the keys, the audience they are derived for and how long state
stays valid."""

from __future__ import annotations

import math
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

__all__ = ["RequestStateBoundary", "RequestStateSecurity"]

#: The fewest bytes of secret randomness a key is made from (as the official SDK asks).
MIN_KEY_BYTES = 32


class RequestStateSecurity:
    """The keys that seal ``requestState`` (``keys[0]`` seals, every key opens: rotate by
    putting a new key first, then dropping the old one after ``ttl``), ``ttl`` seconds it
    stays valid (default 600), and the ``audience`` the keys are derived for (default:
    the server's name): replicas given the same keys and audience serve each other's
    rounds. Each key is 32 bytes or more of secret randomness, as bytes or text
    (``secrets.token_hex(32)``).

    A ``codec`` of one's own is not taken: the core seals (``NotImplementedError``).
    State is always bound to the caller's identity when the request carries a token
    (``bind_principal`` is taken for the official SDK's signature; only its default, the
    authenticated principal, is served)."""

    def __init__(
        self,
        *,
        keys: Sequence[bytes | bytearray | str] | None = None,
        codec: Any = None,
        ttl: float = 600.0,
        bind_principal: Any = None,
        audience: str | None = None,
    ) -> None:
        if codec is not None:
            raise NotImplementedError("oxmcp seals requestState in its core: give keys=, not codec=")
        if keys is None:
            raise ValueError("RequestStateSecurity takes keys=")
        if not (math.isfinite(ttl) and ttl > 0):
            raise ValueError(f"request-state ttl must be a positive finite number, got {ttl!r}")
        material = []
        for i, key in enumerate(keys):
            if not isinstance(key, bytes | bytearray | str):
                kind = type(key).__name__
                raise TypeError(f"request-state keys must be bytes, bytearray, or str; keys[{i}] is {kind}")
            secret = key.encode() if isinstance(key, str) else bytes(key)
            if len(secret) < MIN_KEY_BYTES:
                raise ValueError(
                    f"request-state keys must be at least {MIN_KEY_BYTES} bytes of secret randomness; "
                    f"keys[{i}] is {len(secret)} bytes"
                )
            material.append(secret)
        if not material:
            raise ValueError("RequestStateSecurity needs at least one key")
        self.keys: list[bytes] = material
        self.ttl = ttl
        self.audience = audience
        #: Whether the keys were made by :meth:`ephemeral` (held by this process alone).
        self.ephemeral_keys = False

    @classmethod
    def ephemeral(cls, *, ttl: float = 600.0, audience: str | None = None) -> RequestStateSecurity:
        """A key made now and held by this process alone: state sealed before a restart or
        by another replica does not open."""
        security = cls(keys=[os.urandom(MIN_KEY_BYTES)], ttl=ttl, audience=audience)
        security.ephemeral_keys = True
        return security


class RequestStateBoundary:
    """The official SDK's middleware that seals a low-level server's ``requestState``
    (``server.middleware.append(RequestStateBoundary(...))``). oxmcp's core seals every
    server's state already, so the boundary passes requests on: a handler reads the
    state it gave, and tampered or expired state is refused before it runs. Keys of one's
    own go to the server (``Server(request_state_security=...)``): a boundary takes only
    :meth:`RequestStateSecurity.ephemeral` keys, which the server holds already."""

    def __init__(self, security: RequestStateSecurity, *, default_audience: str | None) -> None:
        if not security.ephemeral_keys:
            raise ValueError(
                "oxmcp seals requestState in its core: give these keys to the server, "
                "Server(request_state_security=...), not to a RequestStateBoundary"
            )
        self.security = security
        self.default_audience = default_audience

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        return await call_next(ctx)

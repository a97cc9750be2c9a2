"""FastMCP's ``fastmcp.server.auth.providers.debug``: tokens checked by a function of one's
own, for development, tests, and opaque tokens that nothing else can check."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable

from .....server.auth.provider import AccessToken
from ..auth import TokenVerifier

_log = logging.getLogger("oxmcp.fastmcp")


def _any_token(token: str) -> bool:
    return True


class DebugTokenVerifier(TokenVerifier):
    """Accepts the tokens ``validate(token)`` (a function or a coroutine function) says are
    valid, every one that is not blank by default, each as the caller ``client_id`` granted
    ``scopes``; a token ``validate`` raises for is refused. It makes none of a real
    verifier's checks: never for production. A server with it names no authorization
    server: give one with :class:`~oxmcp.fastmcp.server.auth.RemoteAuthProvider`."""

    def __init__(
        self,
        validate: Callable[[str], bool] | Callable[[str], Awaitable[bool]] = _any_token,
        client_id: str = "debug-client",
        scopes: list[str] | None = None,
        required_scopes: list[str] | None = None,
    ) -> None:
        super().__init__(required_scopes=required_scopes)
        self.validate = validate
        self.client_id = client_id
        self.scopes = list(scopes or [])

    async def verify_token(self, token: str) -> AccessToken | None:
        if not token.strip():
            return None
        try:
            valid = self.validate(token)
            if inspect.isawaitable(valid):
                valid = await valid
        except Exception:
            _log.debug("a token's validation failed", exc_info=True)
            return None
        if not valid:
            return None
        return AccessToken(token=token, client_id=self.client_id, scopes=list(self.scopes), claims={"token": token})


__all__ = ["DebugTokenVerifier"]

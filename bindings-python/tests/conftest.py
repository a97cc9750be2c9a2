"""Shared pieces of the Python tests: the server commands and a notification recorder."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).parent
REPO = TESTS.parent.parent
DEMO_SERVER = [sys.executable, str(TESTS / "servers" / "demo.py")]
OFFICIAL_SERVER = [sys.executable, str(TESTS / "servers" / "official.py")]
ERAS = ["legacy", "modern"]
MRTR_PENDING = "multi round-trip"


def rust_server() -> Path:
    """The Rust example server binary (`cargo build -p oxmcp-examples`)."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "debug" / "server"


class Notifications:
    """Records the notifications a client receives; waits for the ones a test expects."""

    def __init__(self) -> None:
        self.received: list[tuple[str, Any]] = []
        self._arrived = asyncio.Event()

    def __call__(self, method: str, params: Any) -> None:
        self.received.append((method, params))
        self._arrived.set()

    def of(self, method: str) -> list[Any]:
        """The params of every notification of `method` so far."""
        return [params for m, params in self.received if m == method]

    async def wait_for(self, method: str, count: int = 1, timeout: float = 5.0) -> list[Any]:
        """Waits until `count` notifications of `method` arrived; returns their params."""

        async def arrived() -> None:
            while len(self.of(method)) < count:
                self._arrived.clear()
                await self._arrived.wait()

        await asyncio.wait_for(arrived(), timeout)
        return self.of(method)


@pytest.fixture
def notifications() -> Notifications:
    return Notifications()

"""uvicorn's h11 protocol with a deadline for a request's head: a client that dribbles its request line and
headers (slowloris) is cut off after `HEADER_TIMEOUT_S`, instead of holding a connection for ever.

uvicorn times out idle keep-alive connections but not a request that never
finishes arriving; bodies are timed by `guard.read_body`.
"""
from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0


class TimedH11Protocol(H11Protocol):
    """Closes a connection whose next request head has not fully arrived `HEADER_TIMEOUT_S` after it could start."""

    header_timeout_s = HEADER_TIMEOUT_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_cycle: Any = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()               # the next request's head must arrive in time too

    def _arm(self) -> None:
        self._disarm()
        self._head_cycle = self.cycle
        self._head_timer = self.loop.call_later(self.header_timeout_s, self._expired)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _expired(self) -> None:
        self._head_timer = None
        waiting = self.cycle is self._head_cycle and (self.cycle is None or self.cycle.response_complete)
        if waiting and not self.transport.is_closing():
            self.transport.close()    # no new request began: the head never came

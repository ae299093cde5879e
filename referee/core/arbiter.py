"""Timestamp ordering with a hold-back: judge by when things happened, not by arrival.

A camera reports a card tens of milliseconds after it landed, so a slap aimed
at it can arrive first. The arbiter keeps events until no earlier event can
still arrive (`now - holdback`), then releases them in timestamp order.
"""
from __future__ import annotations

import heapq
from typing import Any, Iterator

from .events import Event, order_key


class Arbiter:
    """A hold-back buffer. `holdback_ns=None` holds everything until `drain()`."""

    def __init__(self, holdback_ns: int | None) -> None:
        self.holdback_ns = holdback_ns
        self._heap: list[tuple[tuple[int, int, int, str], int, Event, Any]] = []
        self._seq = 0
        self.clock_ns = 0

    def __len__(self) -> int:
        return len(self._heap)

    def push(self, event: Event, tag: Any = None, now_ns: int | None = None) -> None:
        """Accept an event; `now_ns` is the arrival time (default: the event's own time)."""
        self.clock_ns = max(self.clock_ns, event.t_ns if now_ns is None else now_ns)
        heapq.heappush(self._heap, (order_key(event), self._seq, event, tag))
        self._seq += 1

    def horizon(self) -> int | None:
        """Events and deadlines up to this time are final: nothing earlier can still arrive."""
        if self.holdback_ns is None:
            return None
        return self.clock_ns - self.holdback_ns

    def peek_time(self) -> int | None:
        return self._heap[0][0][0] if self._heap else None

    def pop(self) -> tuple[Event, Any]:
        _key, _seq, event, tag = heapq.heappop(self._heap)
        return event, tag

    def drain(self) -> Iterator[tuple[Event, Any]]:
        while self._heap:
            yield self.pop()

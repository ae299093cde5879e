"""In-memory event sources: what tests, the simulator and the dashboard hand events through."""
from __future__ import annotations

import queue

from ..core.events import Event
from .ports import Notice


class QueueSource:
    """An EventSource fed by `put()` from any thread."""

    def __init__(self, name: str = "queue") -> None:
        self.name = name
        self._queue: queue.Queue[Event | Notice] = queue.Queue()
        self.closed = False

    def put(self, item: Event | Notice) -> None:
        self._queue.put(item)

    def poll(self, timeout_s: float) -> list[Event | Notice]:
        try:
            items = [self._queue.get(timeout=timeout_s)]
        except queue.Empty:
            return []
        while True:
            try:
                items.append(self._queue.get_nowait())
            except queue.Empty:
                return items

    def close(self) -> None:
        self.closed = True

    def __repr__(self) -> str:
        return f"<QueueSource {self.name} {'closed' if self.closed else f'{self._queue.qsize()} waiting'}>"

"""Pushes a state update when the table changes between rulings (a card laid, the count moving on).

`TableFeed` publishes on rulings, frames and operator actions; a card that is
no trigger changes the turn, the pile and the Irish Snap count without any of
those. This watcher compares the snapshot a few times a second and publishes
when it changed, so browsers still receive pushes and never poll. It reads the
game without the runtime's lock, so a snapshot taken mid-update is retried.
"""
from __future__ import annotations

import json
import logging
import threading
from typing import Any

from ..table.live import TableFeed

log = logging.getLogger(__name__)


class StateWatcher:
    """A daemon thread publishing `{"type": "state"}` when `feed.snapshot()` changes."""

    def __init__(self, feed: TableFeed, interval_s: float = 0.2) -> None:
        self.feed = feed
        self.interval_s = interval_s
        self._last: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> bool:
        """Publish if the state changed since the last check; True if it did."""
        try:
            state: dict[str, Any] = self.feed.snapshot()
            key = json.dumps(state, sort_keys=True, default=str)
        except (IndexError, KeyError, RuntimeError, ValueError):   # caught the game mid-update
            return False
        if key == self._last:
            return False
        first = self._last is None
        self._last = key
        if not first:
            self.feed.publish({"type": "state", "state": state})
        return not first

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.check()
            except Exception:                    # the watcher must never take the server down
                log.exception("state watcher")

    def start(self) -> "StateWatcher":
        self.check()                             # the baseline: what viewers get when they subscribe
        self._thread = threading.Thread(target=self._run, name="dashboard-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)

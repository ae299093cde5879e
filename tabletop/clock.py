"""The table's clock: CLOCK_MONOTONIC, or a sped-up copy of it for a simulated table.

Every part of a table stamps and sleeps by one clock. A real table's is the
kernel's monotonic clock (pad edges and camera frames carry it); a demo table
may run `speed` table seconds per real second, and then every simulated part
(bots, pads, rendered camera) and the runtime read the same sped-up clock.
"""
from __future__ import annotations

import threading
import time


class TableClock:
    """Integer ns like `time.monotonic_ns()` (call it); at `speed` 1 it is exactly that clock."""

    def __init__(self, speed: float = 1.0) -> None:
        if not speed > 0:
            raise ValueError(f"speed must be positive, not {speed}")
        self.speed = float(speed)
        self._wall0 = time.monotonic_ns()

    def __call__(self) -> int:
        wall = time.monotonic_ns()
        if self.speed == 1.0:
            return wall
        return self._wall0 + int((wall - self._wall0) * self.speed)

    def real_s(self, table_ns: int) -> float:
        """Real seconds that `table_ns` of table time take."""
        return table_ns / 1e9 / self.speed

    def wait_until(self, t_ns: int, stop: threading.Event | None = None) -> bool:
        """Sleep until the table time `t_ns`; True when `stop` was set first."""
        while True:
            left = t_ns - self()
            if left <= 0:
                return stop is not None and stop.is_set()
            delay = self.real_s(left)
            if stop is None:
                time.sleep(delay)
            elif stop.wait(delay):
                return True

    def sleep(self, table_s: float, stop: threading.Event | None = None) -> bool:
        """Sleep `table_s` of table time; True when `stop` was set first."""
        return self.wait_until(self() + int(table_s * 1e9), stop)

    def __repr__(self) -> str:
        return f"TableClock(speed={self.speed:g})"

"""Simulated pads for the demo and tests: edges, slaps, presses and flinches at chosen times.

Runs through the same `PadLogic` as the real pads, so debounce, stuck pads,
calibration offsets and tie margins behave exactly as on the table.
`SimPads` takes each edge when it is told; `ScheduledPads` (the bots' pads,
`[pads] backend = "bots"`) is told of contacts ahead and delivers their edges,
bounce and all, when the table's clock reaches them, as a real pad would.
"""
from __future__ import annotations

import heapq
import itertools
import threading
import time
from typing import Sequence

from .pad_logic import Channel, Kind, PadLogic
from .pad_source import Clock, PadSource
from .pad_timing import PadTiming
from referee.core.events import MS


class SimPads(PadSource):
    """`seats` pads (each with a press button); stamps are whatever the caller says."""

    source_name = "sim"

    def __init__(self, seats: int = 4, *, debounce_ms: float = 10.0, stuck_after_s: float = 3.0,
                 tie_us: int = 0, timing: PadTiming | None = None,
                 clock: Clock = time.monotonic_ns, watchdog_s: float | None = None) -> None:
        channels = [Channel(s, k) for s in range(seats) for k in ("slap", "press")]
        logic = PadLogic(channels, source=self.source_name, debounce_ns=round(debounce_ms * 1e6),
                         stuck_after_ns=round(stuck_after_s * 1e9), backend_tie_us=tie_us, timing=timing)
        super().__init__(logic, clock=clock, watchdog_s=watchdog_s)
        self._start_watchdog()

    def edge(self, seat: int, t_ns: int, active: bool, kind: Kind = "slap") -> None:
        """A raw edge, as a pin would report it."""
        self._check_open()
        self._edge(Channel(seat, kind), t_ns, active)

    def slap(self, seat: int, t_ns: int, *, hold_ns: int = 80 * MS) -> None:
        """A hand hits the pad at `t_ns` and lifts `hold_ns` later."""
        self.edge(seat, t_ns, True)
        self.edge(seat, t_ns + hold_ns, False)

    def press(self, seat: int, t_ns: int, *, hold_ns: int = 150 * MS) -> None:
        """The seat's press button (slapstick: chicken out / stop / done)."""
        self.edge(seat, t_ns, True, "press")
        self.edge(seat, t_ns + hold_ns, False, "press")

    def flinch(self, seat: int, t_ns: int) -> None:
        """A hand went for the pile and pulled back at `t_ns` (the approach)."""
        self._check_open()
        self._flinch(seat, t_ns)


class ScheduledPads(SimPads):
    """Pads that simulated hands touch: `contact()` and `hover()` are told ahead of time and a thread
    delivers each edge when `clock` reaches its stamp. `speed`: clock seconds per real second (a
    sped-up demo table), used only to sleep the right real time until the next edge."""

    source_name = "bots"

    def __init__(self, seats: int = 4, *, clock: Clock = time.monotonic_ns, speed: float = 1.0,
                 debounce_ms: float = 10.0, stuck_after_s: float = 3.0, tie_us: int = 0,
                 timing: PadTiming | None = None, watchdog_s: float | None = 0.25) -> None:
        super().__init__(seats, debounce_ms=debounce_ms, stuck_after_s=stuck_after_s, tie_us=tie_us,
                         timing=timing, clock=clock, watchdog_s=watchdog_s)
        self.speed = speed
        self._due: list[tuple[int, int, int, str, bool]] = []     # (t_ns, seq, seat, kind, closed) or flinch
        self._seq = itertools.count()
        self._wake = threading.Condition()
        self._thread = threading.Thread(target=self._deliver_due, name="bots-pads", daemon=True)
        self._thread.start()

    def contact(self, seat: int, t_ns: int, *, hold_ns: int = 80 * MS, kind: Kind = "slap",
                bounce_ns: Sequence[int] = (), release_bounce_ns: Sequence[int] = ()) -> None:
        """A hand on `seat`'s pad (or press button) from `t_ns` for `hold_ns`. `bounce_ns`: the lengths of
        the open/closed stretches the switch chatters through after first closing (and `release_bounce_ns`
        after opening), as a real contact does; the pad logic keeps the first edge."""
        self._check_open()
        edges = [(t_ns, True)]
        t, closed = t_ns, True
        for stretch in bounce_ns:
            t, closed = t + int(stretch), not closed
            edges.append((t, closed))
        if not closed:
            edges.append((t + 1, True))
        t, closed = t_ns + hold_ns, False
        edges.append((t, False))
        for stretch in release_bounce_ns:
            t, closed = t + int(stretch), not closed
            edges.append((t, closed))
        if closed:
            edges.append((t + 1, False))
        with self._wake:
            for at, level in edges:
                heapq.heappush(self._due, (at, next(self._seq), seat, kind, level))
            self._wake.notify()

    def hover(self, seat: int, t_ns: int) -> None:
        """A hand went for the pile and pulled back (a flinch), felt at `t_ns`."""
        self._check_open()
        with self._wake:
            heapq.heappush(self._due, (t_ns, next(self._seq), seat, "flinch", True))
            self._wake.notify()

    def _deliver_due(self) -> None:
        while not self._closing.is_set():
            with self._wake:
                if not self._due:
                    self._wake.wait(0.1)
                    continue
                left_ns = self._due[0][0] - self._clock()
                if left_ns > 0:
                    self._wake.wait(min(0.05, left_ns / 1e9 / self.speed))
                    continue
                t_ns, _seq, seat, kind, level = heapq.heappop(self._due)
            if kind == "flinch":
                self._flinch(seat, t_ns)
            else:
                self._edge(Channel(seat, "press" if kind == "press" else "slap"), t_ns, level)

    def _close_backend(self) -> None:
        with self._wake:
            self._wake.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=2)

    def _describe(self) -> str:
        return f"bots ({len(self._due)} edges to come)"

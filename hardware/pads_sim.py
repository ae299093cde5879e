"""Simulated pads for the demo and tests: inject edges, slaps, presses and flinches at chosen times.

Runs through the same `PadLogic` as the real pads, so debounce, stuck pads,
calibration offsets and tie margins behave exactly as on the table.
"""
from __future__ import annotations

import time

from .pad_logic import Channel, Kind, PadLogic
from .pad_source import Clock, PadSource
from .pad_timing import PadTiming
from referee.events import MS


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

"""Slap pads through libgpiod v2's Python package (`gpiod`), for tables that prefer it to gpiozero.

The kernel stamps each edge in the hard IRQ handler (`EdgeEvent.timestamp_ns`)
on the clock requested per line; we ask for `Clock.MONOTONIC` explicitly (the
kernel default since 5.7). The event's direction is the level the IRQ thread
read later, so `PadLogic` takes the first edge's time and lets the level settle
the rest. Sequence numbers (gpiolib-cdev.c): a request's `global_seqno`
advances on every hard IRQ, and bounce faster than the IRQ thread folds several
into one event, so its gaps are normal; only a gap in a line's own
`line_seqno` means the kernel's event FIFO overflowed, announced as
`lost_edges`. No kernel debounce: its stamps would be the settled edge, not the
first contact. The chip is the header's, found by its label (`chip="auto"`,
hardware/gpiochips.py), since its number depends on board and kernel.
"""
from __future__ import annotations

import importlib
import threading
import time
from datetime import timedelta
from typing import Any, Mapping

from .gpiochips import AUTO, header_chip_path
from .pad_errors import PadConfigError
from .pad_events import PadNotice
from .pad_logic import Channel, PadLogic
from .pad_source import Clock, PadSource
from .pad_timing import PadTiming
from .pads import KERNEL_TIE_US
from .pins import DEFAULT_PAD_PINS


class GpiodPads(PadSource):
    """Pads as lines of one gpiochip, requested with libgpiod v2.

    `lines`/`press_lines`: {seat: line offset} (on a Pi, offset = BCM number).
    `chip`: a gpiochip path, or "auto" for the header's chip found by label.
    `gpiod_module`: the `gpiod` package, imported here when omitted.
    `reader_thread=False` leaves reading to `read_pending()` calls.
    """

    source_name = "gpiod"

    def __init__(self, lines: Mapping[int, int] | None = None, *,
                 press_lines: Mapping[int, int] | None = None, chip: str = AUTO,
                 active_high: bool = False, pull_up: bool | None = None,
                 debounce_ms: float = 10.0, stuck_after_s: float = 3.0,
                 timing: PadTiming | None = None, clock: Clock = time.monotonic_ns,
                 watchdog_s: float | None = 0.25, reader_thread: bool = True,
                 consumer: str = "tabletop-referee", gpiod_module: Any = None) -> None:
        gpiod = gpiod_module if gpiod_module is not None else importlib.import_module("gpiod")
        self._gpiod = gpiod
        wiring = {Channel(s, "slap"): o for s, o in (DEFAULT_PAD_PINS if lines is None else lines).items()}
        wiring.update({Channel(s, "press"): o for s, o in (press_lines or {}).items()})
        if len(set(wiring.values())) != len(wiring):
            raise PadConfigError(f"a line is used twice in {wiring}")
        self._by_offset = {offset: ch for ch, offset in wiring.items()}
        self._wiring = wiring
        logic = PadLogic(wiring, source=self.source_name, debounce_ns=round(debounce_ms * 1e6),
                         stuck_after_ns=round(stuck_after_s * 1e9), backend_tie_us=KERNEL_TIE_US,
                         timing=timing)
        super().__init__(logic, clock=clock, watchdog_s=watchdog_s)
        self.chip = header_chip_path(gpiod, chip)
        line = gpiod.line
        up = (not active_high) if pull_up is None else pull_up
        settings = gpiod.LineSettings(
            direction=line.Direction.INPUT,
            edge_detection=line.Edge.BOTH,
            bias=line.Bias.PULL_UP if up else line.Bias.PULL_DOWN if active_high else line.Bias.DISABLED,
            active_low=not active_high,      # logical "active" = pressed, so RISING_EDGE = touch
            debounce_period=timedelta(0),
            event_clock=line.Clock.MONOTONIC,
        )
        self._request = gpiod.request_lines(self.chip, consumer=consumer,
                                            config={tuple(wiring.values()): settings})
        self._active_value = line.Value.ACTIVE
        self._rising = gpiod.EdgeEvent.Type.RISING_EDGE
        self._line_seqno: dict[int, int] = {offset: 0 for offset in self._by_offset}
        self._io_lock = threading.Lock()
        now = clock()
        for channel in wiring:
            level = self._read_level(channel)
            logic.start(channel, now, bool(level))
        self._reader: threading.Thread | None = None
        if reader_thread:
            self._reader = threading.Thread(target=self._read_loop, name="gpiod-pads", daemon=True)
            self._reader.start()
        self._start_watchdog()

    def read_pending(self, timeout_s: float = 0.0) -> int:
        """Wait up to `timeout_s` for edges and feed all that are queued; returns how many."""
        request = self._request
        # Wait outside the lock: holding it through the wait would starve level reads (a Lock is not fair).
        if request is None or not request.wait_edge_events(timeout_s):
            return 0
        with self._io_lock:
            if self._request is None:
                return 0
            events = list(self._request.read_edge_events())
        for ev in events:
            self._check_sequence(ev)
            channel = self._by_offset.get(ev.line_offset)
            if channel is not None:
                self._edge(channel, int(ev.timestamp_ns), ev.event_type == self._rising)
        return len(events)

    def _check_sequence(self, ev: Any) -> None:
        """A gap in the line's own line_seqno is an event the kernel's FIFO dropped (global_seqno
        gaps are bounce folded into one event, and edges on the request's other lines)."""
        offset = int(ev.line_offset)
        last, self._line_seqno[offset] = self._line_seqno.get(offset, 0), int(ev.line_seqno)
        lost = int(ev.line_seqno) - last - 1
        if lost > 0:
            channel = self._by_offset.get(offset)
            self._notice(PadNotice("lost_edges", None if channel is None else channel.seat,
                                   int(ev.timestamp_ns),
                                   f"the kernel dropped {lost} pad edge(s); check for a chattering pad"))

    def _read_level(self, channel: Channel) -> bool | None:
        with self._io_lock:
            if self._request is None:
                return None
            return self._request.get_value(self._wiring[channel]) == self._active_value

    def _read_loop(self) -> None:
        while not self._closing.is_set():
            self.read_pending(0.1)

    def _close_backend(self) -> None:
        self._closing.set()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=2)
        with self._io_lock:
            if self._request is not None:
                self._request.release()
                self._request = None

    def __enter__(self) -> "GpiodPads":
        return self

    def _describe(self) -> str:
        return f"{self.chip} kernel-timed"

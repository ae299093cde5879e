"""Pad calibration: which input answers each seat, how much it bounces, how late it is.

Each seat slaps when asked, `trials` times, together with a reference contact
(an extra input with negligible latency, struck by the same hand or a stick
that closes both). The pads run with no debounce while calibrating, so every
bounce arrives as its own edge. Per seat:

- wiring: the input that answered (a swapped cable shows up here);
- bounce: last minus first press edge within one slap;
- offset: median of (pad edge - reference edge): the pad's own latency,
  subtracted from every stamp in play (`PadTiming`);
- tie margin: the spread left after that correction (2.5 x the robust standard
  deviation, rounded up): closer than this, two seats cannot be ordered.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Callable, Sequence

from referee.core.events import Slap

from hardware.pad_events import PadEvent
from hardware.pad_source import PadSource

Perform = Callable[[int, int], None]          # (seat asked, trial) -> the slap has happened
SPREAD_K = 2.5


@dataclass
class SeatResult:
    """One seat's measurements over its trials."""

    seat: int
    answered_by: list[int] = field(default_factory=list)   # input per trial (-1: none)
    offsets_ns: list[int] = field(default_factory=list)
    bounces_ns: list[int] = field(default_factory=list)

    @property
    def wiring(self) -> int | None:
        got = [a for a in self.answered_by if a >= 0]
        return statistics.mode(got) if got else None

    @property
    def offset_ns(self) -> int:
        return int(round(statistics.median(self.offsets_ns))) if self.offsets_ns else 0

    @property
    def spread_ns(self) -> float:
        """Robust standard deviation of the offsets (1.4826 x median absolute deviation)."""
        if len(self.offsets_ns) < 2:
            return 0.0
        med = statistics.median(self.offsets_ns)
        return 1.4826 * statistics.median(abs(v - med) for v in self.offsets_ns)

    @property
    def tie_margin_us(self) -> int:
        return int(math.ceil(SPREAD_K * self.spread_ns / 1000)) if self.offsets_ns else 0

    @property
    def bounce_ms(self) -> float:
        return max(self.bounces_ns, default=0) / 1e6


@dataclass
class PadsResult:
    seats: list[SeatResult]
    backend_tie_us: int
    reference: bool

    @property
    def wiring_ok(self) -> bool:
        return all(s.wiring == s.seat for s in self.seats)

    @property
    def complete(self) -> bool:
        return all(s.wiring is not None for s in self.seats) and \
            len({s.wiring for s in self.seats}) == len(self.seats)

    @property
    def debounce_ms(self) -> float:
        """Longest bounce seen, with half again as slack and 1 ms more, rounded up to 0.5 ms."""
        worst = max((s.bounce_ms for s in self.seats), default=0.0)
        return math.ceil((worst * 1.5 + 1.0) * 2) / 2

    @property
    def table_tie_us(self) -> int:
        """The closest two slaps from different seats that this table orders honestly:
        the backend's own resolution plus the two worst seats' margins combined."""
        margins = sorted((s.tie_margin_us for s in self.seats), reverse=True) + [0, 0]
        return self.backend_tie_us + int(math.ceil(math.hypot(margins[0], margins[1])))

    def lines(self) -> list[str]:
        out = []
        for s in self.seats:
            wired = "no pad answered" if s.wiring is None else (
                f"input {s.wiring}" + ("" if s.wiring == s.seat else "  <-- NOT the seat's own input: swapped wiring?"))
            timing = (f"offset {s.offset_ns / 1000:+.0f} µs, spread ±{s.tie_margin_us} µs"
                      if self.reference else "offset not measured (no reference)")
            out.append(f"  seat {s.seat + 1}: {wired}; bounce {s.bounce_ms:.1f} ms; {timing}")
        out.append(f"debounce: {self.debounce_ms:.1f} ms")
        if self.reference:
            out.append(f"tie margin the table can promise: {self.table_tie_us} µs "
                       f"(backend {self.backend_tie_us} µs + calibration spread)")
        return out


def _first_slap(events: Sequence[PadEvent], seat: int) -> PadEvent | None:
    slaps = [e for e in events if isinstance(e.event, Slap) and e.seat == seat]
    return min(slaps, key=lambda e: e.raw_t_ns) if slaps else None


def calibrate_pads(pads: PadSource, seats: int, perform: Perform, *, trials: int = 10,
                   reference_seat: int | None = None,
                   progress: Callable[[str], None] | None = None) -> PadsResult:
    """Ask each seat to slap `trials` times; `pads` must run with no debounce and no timing."""
    results = [SeatResult(s) for s in range(seats)]
    inputs = [s for s in pads.seats if s != reference_seat]
    for seat in range(seats):
        for trial in range(trials):
            if progress and trial == 0:
                progress(f"seat {seat + 1}: {trials} slaps")
            pads.drain()
            perform(seat, trial)
            pads.poll(None)
            events = pads.drain()
            answered = [_first_slap(events, i) for i in inputs]
            firsts = [e for e in answered if e is not None]
            r = results[seat]
            if not firsts:
                r.answered_by.append(-1)
                continue
            first = min(firsts, key=lambda e: e.raw_t_ns)
            r.answered_by.append(first.seat)
            presses = sorted(e.raw_t_ns for e in events if isinstance(e.event, Slap) and e.seat == first.seat)
            r.bounces_ns.append(presses[-1] - presses[0])
            if reference_seat is not None:
                ref = _first_slap(events, reference_seat)
                if ref is not None:
                    r.offsets_ns.append(first.raw_t_ns - ref.raw_t_ns)
    backend_tie = max((pads.tie_us(s) for s in inputs), default=0)
    return PadsResult(results, backend_tie, reference_seat is not None)


def choose_thresholds(idle: Sequence[int], touched: Sequence[int]) -> tuple[int, int]:
    """MPR121 (touch, release) from deltas seen with nobody near and with a hand on the pad.

    Touch sits 40% of the way from the idle noise (its highest reading) to the
    weakest firm touch; release halfway down, never at or below the noise.
    Raises ValueError when a touch is not clearly above the noise.
    """
    noise = max(max(idle, default=0), 1)
    ordered = sorted(touched)
    if not ordered:
        raise ValueError("no touch readings")
    weak = ordered[len(ordered) // 10]
    if weak < 2 * noise + 4:
        raise ValueError(f"touch delta {weak} is too close to the idle noise {noise}: check the pad and its wire")
    touch = min(255, max(noise + 3, round(noise + 0.4 * (weak - noise))))
    release = min(touch - 1, max(noise + 1, round(touch / 2)))
    return touch, release


def sample_deltas(read: Callable[[], dict[int, int]], samples: int,
                  sleep: Callable[[float], None], every_s: float = 0.01) -> dict[int, list[int]]:
    """Delta readings per electrode (`chip.deltas`), `samples` times."""
    out: dict[int, list[int]] = {}
    for _ in range(samples):
        for e, v in read().items():
            out.setdefault(e, []).append(v)
        sleep(every_s)
    return out

"""Capacitive slap pads on an MPR121: each touch stamped by the IRQ line's falling edge.

The chip updates its touch status once per ESI x SFI (4 ms by default) and pulls
IRQ (active low) at the update where a touch or release shows; reading status
0x00/0x01 releases it. The falling edge is stamped like a GPIO pad (kernel time
via gpiozero's lgpio factory), the status is read, and every electrode that
changed gets that stamp less the known debounce delay (DT x ESI x SFI).

How far a stamp can be from the hand (see hardware/mpr121.py "Timing"):
- A touch shows at the first update after it: 0 to ESI x SFI (+ the scan that
  ends the update) late: the tie margin, `MPR121Config.tie_margin_us`, for a
  touch at least SFI x its threshold deep (else `faint_tie_margin_us`).
  Electrodes changed in one update share one stamp: a true tie within it.
- A status read more than one update period after the edge may hold changes of
  later updates: the tie widens by that lag.
- A change found by the watchdog (IRQ held low, its edge missed) happened some
  time since the line was last seen high. Touches known only to within more
  than `untimed_limit_ms` are not judged: a `lost_edges` notice says "check
  the table" instead of a tie seconds wide. Releases are applied either way.

Flinch, per seat: ELEPROX is one reading of all the electrodes together, so it
says a hand is near the table, not whose. At its rise (the approach), and every
`hover_poll_s` while it stays up, each seat's own electrode delta (baseline -
filtered, against its value at rest) says which seats have a hand above them:
the nearest at the approach is stamped at the approach (a hover barely crosses
ELEPROX's threshold: tie `faint_tie_margin_us`), a seat found later at the look
before (tie widened by the looks' interval). A seat whose hand leaves (or
ELEPROX falls) without touching its pads gets `Flinch`.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Mapping

from .edge_clock import TickKind, timed_factory
from .mpr121 import MPR121, STATUS_OVERCURRENT, STATUS_PROX, I2CBus, MPR121Config, open_smbus
from .pad_errors import PadConfigError
from .pad_events import PadNotice, spoken_pad
from .pad_logic import Channel, PadLogic
from .pad_source import Clock, PadSource
from .pad_timing import PadTiming
from .pads import CALLBACK_TIE_US
from .pins import DEFAULT_MPR121_ADDRESS, DEFAULT_MPR121_ELECTRODES, DEFAULT_MPR121_IRQ_PIN


#: A line low this long with no read means its edge was lost (a late callback would be refused anyway).
_MISSED_AFTER_NS = 50_000_000


class _IrqHandler:
    """Strong reference for gpiozero's weakly held `when_changed`."""

    __slots__ = ("_pads", "__weakref__")

    def __init__(self, pads: "Mpr121Pads") -> None:
        self._pads = pads

    def __call__(self, ticks: float, state: Any) -> None:
        if not state:  # falling: the chip has news
            self._pads._service(self._pads._irq_clock.stamp(ticks))


@dataclass
class _Hover:
    t_ns: int          # the approach
    tie_us: int
    touched: bool = False


class _Hovers:
    """Which seats have a hand above their pads during one ELEPROX episode (not thread safe)."""

    def __init__(self, seat_electrodes: Mapping[int, list[int]], threshold: int) -> None:
        self._electrodes = seat_electrodes
        self._on, self._off = threshold, max(1, threshold // 2)
        self._seats: dict[int, _Hover] = {}
        self._last_look_ns = 0
        self.active = False
        self.rest = [0] * 13       # deltas with no hand near: baselines read to 4 counts (8 high bits)

    def _by_seat(self, deltas: list[int]) -> dict[int, int]:
        return {s: max(deltas[e] - self.rest[e] for e in es) for s, es in self._electrodes.items()}

    def approach(self, t_ns: int, deltas: list[int], tie_us: int) -> None:
        """ELEPROX rose at `t_ns`: the nearest seat (and any already past the threshold) approached then."""
        self.active, self._last_look_ns, self._seats = True, t_ns, {}
        near = self._by_seat(deltas)
        best = max(near.values(), default=0)
        for seat, delta in near.items():
            if delta >= self._on or (delta == best > 0 and list(near.values()).count(best) == 1):
                self._seats[seat] = _Hover(t_ns, tie_us)

    def touched(self, seat: int) -> None:
        """The seat touched a pad: that hand did not flinch (a new hover after it has left may)."""
        if self.active:
            self._seats.setdefault(seat, _Hover(0, 0)).touched = True

    def look(self, now_ns: int, deltas: list[int], tie_us: int) -> list[tuple[int, int, int]]:
        """A look while ELEPROX is up: seats arriving, and (seat, t_ns, tie_us) of hands that left."""
        out = []
        window_us = (now_ns - self._last_look_ns) // 1000
        for seat, delta in self._by_seat(deltas).items():
            hover = self._seats.get(seat)
            if hover is None and delta >= self._on:
                self._seats[seat] = _Hover(self._last_look_ns, tie_us + window_us)
            elif hover is not None and delta < self._off:          # the hand left that pad
                if not hover.touched:
                    out.append((seat, hover.t_ns, hover.tie_us))
                del self._seats[seat]
        self._last_look_ns = now_ns
        return out

    def end(self) -> list[tuple[int, int, int]]:
        """ELEPROX fell: every hand still above a pad it never touched flinched."""
        out = [(s, h.t_ns, h.tie_us) for s, h in self._seats.items() if not h.touched]
        self._seats, self.active = {}, False
        return out


class Mpr121Pads(PadSource):
    """Seats on MPR121 electrodes: `electrodes={seat: electrode}`, `press_electrodes` likewise.

    `bus`: an smbus2-like object, or an I2C bus number to open with smbus2.
    `config`: sensor settings (sample interval, filters, thresholds, proximity);
    change thresholds later with `set_thresholds()`. `flinch=False` ignores proximity.
    """

    source_name = "mpr121"

    def __init__(self, electrodes: Mapping[int, int] | None = None, *, bus: I2CBus | int = 1,
                 address: int = DEFAULT_MPR121_ADDRESS, irq_pin: int | str = DEFAULT_MPR121_IRQ_PIN,
                 pin_factory: Any = None, press_electrodes: Mapping[int, int] | None = None,
                 config: MPR121Config | None = None, flinch: bool = True,
                 debounce_ms: float = 5.0, stuck_after_s: float = 3.0,
                 timing: PadTiming | None = None, allow_untimed: bool = False,
                 clock: Clock = time.monotonic_ns, watchdog_s: float | None = 0.25,
                 hover_poll_s: float = 0.01, untimed_limit_ms: float = 20.0) -> None:
        self.pin_factory, self._irq_clock = timed_factory(pin_factory, allow_untimed=allow_untimed)
        self.kernel_timestamps = self._irq_clock.kind is not TickKind.CALLBACK
        config = config or MPR121Config()
        wiring = {Channel(s, "slap"): e for s, e in
                  (DEFAULT_MPR121_ELECTRODES if electrodes is None else electrodes).items()}
        wiring.update({Channel(s, "press"): e for s, e in (press_electrodes or {}).items()})
        if len(set(wiring.values())) != len(wiring):
            raise PadConfigError(f"an electrode is used twice in {wiring}")
        if any(not 0 <= e < config.electrodes for e in wiring.values()):
            raise PadConfigError(f"electrodes must be 0..{config.electrodes - 1} (config.electrodes)")
        self._by_electrode = {e: ch for ch, e in wiring.items()}
        self._slap_electrodes = {ch.seat: e for ch, e in wiring.items() if ch.kind == "slap"}
        self.period_us = config.sample_period_us
        self.update_us = config.update_period_us
        tie = config.tie_margin_us + (0 if self.kernel_timestamps else CALLBACK_TIE_US)
        logic = PadLogic(wiring, source=self.source_name, debounce_ns=round(debounce_ms * 1e6),
                         stuck_after_ns=round(stuck_after_s * 1e9), backend_tie_us=tie, timing=timing)
        super().__init__(logic, clock=clock, watchdog_s=watchdog_s)
        self._io_lock = threading.RLock()
        self._untimed_limit_ns = round(untimed_limit_ms * 1e6)
        self._flinch_enabled = flinch and config.proximity != "off"
        seat_electrodes: dict[int, list[int]] = {}
        for ch, e in wiring.items():
            seat_electrodes.setdefault(ch.seat, []).append(e)
        self._hovers = _Hovers(seat_electrodes, config.hover_threshold)
        self._prox_up = threading.Event()
        self._hover_poll_s = hover_poll_s
        self._hover_thread: threading.Thread | None = None
        self._irq_pin: Any = None
        self._seen_high_ns = 0           # the line was high (nothing unread) at this time
        self._low_since: int | None = None
        self._stop_told = False
        self._handler = _IrqHandler(self)
        self.chip = MPR121(open_smbus(bus) if isinstance(bus, int) else bus, address, config)
        try:
            self._last_status = self.chip.read_status()  # also releases a pending IRQ
            now = self._seen_high_ns = clock()
            for channel, e in wiring.items():
                logic.start(channel, now, bool(self._last_status >> e & 1))
            self.pin_factory.reserve_pins(self, irq_pin)
            pin = self.pin_factory.pin(irq_pin)
            self._irq_pin = pin
            pin.function = "input"
            pin.pull = "up"
            pin.bounce = None
            pin.edges = "falling"
            pin.when_changed = self._handler
        except Exception:
            self.close()
            raise
        if self._flinch_enabled:
            self._hover_thread = threading.Thread(target=self._watch_hovers, name="mpr121-hovers", daemon=True)
            self._hover_thread.start()
        self._start_watchdog()

    def set_thresholds(self, touch: int, release: int, seats: list[int] | None = None) -> None:
        """Calibration: touch/release thresholds for the seats' slap electrodes (all by default)."""
        targets = None if seats is None else [self._slap_electrodes[s] for s in seats]
        with self._io_lock:
            self.chip.set_thresholds(touch, release, targets)

    def poll(self, now_ns: int | None = None) -> None:
        """Also recovers a missed IRQ edge (the line seen low on two looks 50 ms apart with no read
        between) and tells when the chip stopped measuring (over-current, or a reset)."""
        self._check_open()
        pin = self._irq_pin
        if pin is not None:
            now = self._clock()
            if pin.state:
                self._seen_high_ns, self._low_since = now, None
            elif self._low_since is None:
                self._low_since = now    # its callback may still be on its way
            elif now - self._low_since >= _MISSED_AFTER_NS:
                self._service(None)
        with self._io_lock:
            stopped = not self.closed and not self.chip.running()
        if stopped and not self._stop_told:         # over-current, or a reset: it measures nothing
            self._stop_told = True
            self._service(None)
            if not self._last_status & STATUS_OVERCURRENT:
                self._notice(PadNotice("lost_edges", None, self._clock(),
                                       "the touch sensor stopped measuring: check the table"))
        self._stop_told = stopped
        super().poll(now_ns)

    def _service(self, t_ns: int | None) -> None:
        """Read the status after an IRQ edge stamped `t_ns` (None: found low by the watchdog)."""
        if self.closed:
            return
        notices: list[PadNotice] = []
        flinches: list[tuple[int, int, int]] = []
        with self._io_lock:
            read_start = self._clock()
            status = self.chip.read_status()
            read_done = self._clock()
            self._low_since = None
            since = self._seen_high_ns
            self._seen_high_ns = read_start
            changed, self._last_status = status ^ self._last_status, status
            # The changes happened in [earliest, read_done]: at the edge, and after the line was last
            # seen high (a stale edge, older than the previous read, says nothing about these).
            earliest = since if t_ns is None else max(t_ns, since)
            window = read_done - earliest
            judged = window <= self._untimed_limit_ns
            if t_ns is not None and window <= self.update_us * 1000:
                tie = self._logic.backend_tie_us          # read within one update: all from the edge's update
            else:
                tie = self._logic.backend_tie_us + window // 1000
            config = self.chip.config
            changes = [(self._by_electrode[e], bool(status >> e & 1))
                       for e in sorted(self._by_electrode) if changed >> e & 1]
            if t_ns is not None and t_ns > since and not changed & ~STATUS_OVERCURRENT:
                # the chip pulled IRQ low for a change, yet the status reads as before: a touch came and
                # went before this read (the service ran late); whose and when is lost
                notices.append(PadNotice("lost_edges", None, read_done, "a pad was touched and released before "
                                         "the sensor was read: not judged, check the table"))
            if self._flinch_enabled and changed & STATUS_PROX:
                if status & STATUS_PROX and judged:       # a hover barely crosses ELEPROX's threshold
                    faint = tie - self._logic.backend_tie_us + config.faint_tie_margin_us
                    self._hovers.approach(earliest, self.chip.all_deltas(), faint)
                    self._prox_up.set()
                elif status & STATUS_PROX:
                    self._hovers.end()                    # approach time unknown: no flinch this time
                else:
                    self._prox_up.clear()
                    flinches = self._hovers.end()
            edges = []
            for channel, active in changes:
                if active:
                    self._hovers.touched(channel.seat)
                if active and not judged:
                    with self._lock:
                        self._logic.start(channel, read_done, True)
                    notices.append(PadNotice("lost_edges", channel.seat, read_done,
                                             f"{spoken_pad(channel.seat)} was touched at a time the sensor "
                                             "did not report: not judged, check the table"))
                    continue
                delay_ns = (config.touch_delay_us if active else config.release_delay_us) * 1000
                edges.append((channel, earliest - delay_ns, active))   # a release: judged or not, its
                #   earliest time, so its debounce window cannot swallow the next touch
        if status & STATUS_OVERCURRENT and changed & STATUS_OVERCURRENT:
            notices.append(PadNotice("overcurrent", None, earliest,
                                     "the touch sensor reports over-current: check the pad wiring"))
        for notice in notices:
            self._notice(notice)
        for channel, t, active in edges:
            self._edge(channel, t, active, tie)
        for seat, t, flinch_tie in flinches:
            self._flinch(seat, t, flinch_tie)

    def _watch_hovers(self) -> None:
        """While ELEPROX is up, look at each seat's electrode every `hover_poll_s`; while it is down,
        note each electrode's delta at rest every 0.1 s (first after the chip's first updates)."""
        rest_every = 2 * self.update_us / 1e6
        while not self._closing.is_set():
            if not self._prox_up.wait(rest_every):
                rest_every = 0.1
                with self._io_lock:
                    deltas = None if self.closed or self._last_status & 0x1FFF else self.chip.all_deltas()
                if deltas is not None and deltas[12] < self.chip.config.prox_release_threshold:
                    self._hovers.rest = deltas
                continue
            if self._closing.wait(self._hover_poll_s):
                continue
            with self._io_lock:
                if self.closed or not self._hovers.active:
                    continue
                deltas = self.chip.all_deltas()
                flinches = self._hovers.look(self._clock(), deltas, self.chip.config.faint_tie_margin_us)
            for seat, t, tie in flinches:
                self._flinch(seat, t, tie)

    def _read_level(self, channel: Channel) -> bool | None:
        return None  # the IRQ keeps the status current; the last edge is the level

    def _close_backend(self) -> None:
        if self._irq_pin is not None:
            try:
                self._irq_pin.when_changed = None
                self._irq_pin.close()
            except Exception:
                pass
            self._irq_pin = None
        self.pin_factory.release_all(self)
        if self._hover_thread is not None and self._hover_thread is not threading.current_thread():
            self._hover_thread.join(timeout=2)
        chip = getattr(self, "chip", None)
        if chip is not None:
            with self._io_lock:
                chip.close()

    def _conflicts_with(self, other: object) -> bool:
        return True

    def _describe(self) -> str:
        timing = "irq-timed" if self.kernel_timestamps else "UNTIMED"
        return f"0x{self.chip.address:02X} {timing} {self.update_us} µs"


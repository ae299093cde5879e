"""Capacitive slap pads on an MPR121: each touch stamped by the IRQ line's falling edge.

The chip raises IRQ (active low) when its touch status changes and drops it
when the status is read. The IRQ edge is stamped like a GPIO pad (kernel time
via gpiozero's lgpio factory), then status 0x00/0x01 is read and every
electrode that changed in that read gets that stamp. One change alone is
known to one sample period; several in one read are a tie: they may be up to
one period apart, plus however long the read came after the IRQ (the line
stays low for later changes until it is read).

Flinch: with proximity on, ELEPROX (the summed electrodes) rising marks a hand
approaching; if it falls again with no touch in between, the seat whose
electrode was nearest at the approach gets `Flinch`, stamped at the approach.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Mapping

from .edge_clock import TickKind, timed_factory
from .mpr121 import MPR121, STATUS_OVERCURRENT, STATUS_PROX, I2CBus, MPR121Config, open_smbus
from .pad_errors import PadConfigError
from .pad_events import PadNotice
from .pad_logic import Channel, PadLogic
from .pad_source import Clock, PadSource
from .pad_timing import PadTiming
from .pads import CALLBACK_TIE_US
from .pins import DEFAULT_MPR121_ADDRESS, DEFAULT_MPR121_ELECTRODES, DEFAULT_MPR121_IRQ_PIN


class _IrqHandler:
    """Strong reference for gpiozero's weakly held `when_changed`."""

    __slots__ = ("_pads", "__weakref__")

    def __init__(self, pads: "Mpr121Pads") -> None:
        self._pads = pads

    def __call__(self, ticks: float, state: Any) -> None:
        if not state:  # falling: the chip has news
            self._pads._service(self._pads._irq_clock.stamp(ticks), timed=True)


class Mpr121Pads(PadSource):
    """Seats on MPR121 electrodes: `electrodes={seat: electrode}`, `press_electrodes` likewise.

    `bus`: an smbus2-like object, or an I2C bus number to open with smbus2.
    `config`: sensor settings (sample period, thresholds, proximity); change
    thresholds later with `set_thresholds()`. `flinch=False` ignores proximity.
    """

    source_name = "mpr121"

    def __init__(self, electrodes: Mapping[int, int] | None = None, *, bus: I2CBus | int = 1,
                 address: int = DEFAULT_MPR121_ADDRESS, irq_pin: int | str = DEFAULT_MPR121_IRQ_PIN,
                 pin_factory: Any = None, press_electrodes: Mapping[int, int] | None = None,
                 config: MPR121Config | None = None, flinch: bool = True,
                 debounce_ms: float = 5.0, stuck_after_s: float = 3.0,
                 timing: PadTiming | None = None, allow_untimed: bool = False,
                 clock: Clock = time.monotonic_ns, watchdog_s: float | None = 0.25) -> None:
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
        tie = self.period_us if self.kernel_timestamps else self.period_us + CALLBACK_TIE_US
        logic = PadLogic(wiring, source=self.source_name, debounce_ns=round(debounce_ms * 1e6),
                         stuck_after_ns=round(stuck_after_s * 1e9), backend_tie_us=tie, timing=timing)
        super().__init__(logic, clock=clock, watchdog_s=watchdog_s)
        self._io_lock = threading.RLock()
        self._flinch_enabled = flinch and config.proximity != "off"
        self._approach: tuple[int, int | None] | None = None  # (t_ns, seat) while a hand hovers
        self._touched_since_approach = False
        self._irq_pin: Any = None
        self._last_read_ns = 0
        self._handler = _IrqHandler(self)
        self.chip = MPR121(open_smbus(bus) if isinstance(bus, int) else bus, address, config)
        try:
            self._last_status = self.chip.read_status()  # also releases a pending IRQ
            now = self._last_read_ns = clock()
            for channel, e in wiring.items():
                logic.start(channel, now, bool(self._last_status >> e & 1))
            pin_factory.reserve_pins(self, irq_pin)
            pin = pin_factory.pin(irq_pin)
            self._irq_pin = pin
            pin.function = "input"
            pin.pull = "up"
            pin.bounce = None
            pin.edges = "falling"
            pin.when_changed = self._handler
        except Exception:
            self.close()
            raise
        self._start_watchdog()

    def set_thresholds(self, touch: int, release: int, seats: list[int] | None = None) -> None:
        """Calibration: touch/release thresholds for the seats' slap electrodes (all by default)."""
        targets = None if seats is None else [self._slap_electrodes[s] for s in seats]
        with self._io_lock:
            self.chip.set_thresholds(touch, release, targets)

    def poll(self, now_ns: int | None = None) -> None:
        """Also recovers a missed IRQ edge: a line held low means unread news.

        Such changes are stamped now, with a tie covering the time since the previous read.
        """
        self._check_open()
        if self._irq_pin is not None and not self._irq_pin.state:
            self._service(self._clock(), timed=False)
        super().poll(now_ns)

    def _service(self, t_ns: int, *, timed: bool) -> None:
        if self.closed:
            return
        with self._io_lock:
            status = self.chip.read_status()
            read_done = self._clock()
            changed, self._last_status = status ^ self._last_status, status
            changes = [(self._by_electrode[e], bool(status >> e & 1))
                       for e in sorted(self._by_electrode) if changed >> e & 1]
            if timed:  # later changes in this read may be up to the read's lag after the IRQ
                lag_us = max(0, (read_done - t_ns) // 1000) if len(changes) > 1 else 0
            else:      # no edge: the change came some time since the previous read
                lag_us = max(0, (read_done - self._last_read_ns) // 1000)
            self._last_read_ns = read_done
            tie = self._logic.backend_tie_us + lag_us
            if any(active for _, active in changes):
                self._touched_since_approach = True
            flinch = self._proximity(status, changed, t_ns) if self._flinch_enabled else None
        if status & STATUS_OVERCURRENT and changed & STATUS_OVERCURRENT:
            self._notice(PadNotice("overcurrent", None, t_ns,
                                   "the touch sensor reports over-current: check the pad wiring"))
        for channel, active in changes:
            self._edge(channel, t_ns, active, tie)
        if flinch is not None:
            self._flinch(flinch[1], flinch[0], self._logic.backend_tie_us)

    def _proximity(self, status: int, changed: int, t_ns: int) -> tuple[int, int] | None:
        """Track ELEPROX; returns (approach t_ns, seat) when a hover ended without a touch."""
        if not changed & STATUS_PROX:
            return None
        if status & STATUS_PROX:
            self._approach = (t_ns, self._nearest_seat())
            self._touched_since_approach = bool(status & 0x0FFF)
            return None
        approach, self._approach = self._approach, None
        if approach is None or self._touched_since_approach or approach[1] is None:
            return None
        return approach[0], approach[1]

    def _nearest_seat(self) -> int | None:
        if len(self._slap_electrodes) == 1:
            return next(iter(self._slap_electrodes))
        deltas = self.chip.deltas(list(self._slap_electrodes.values()))
        seat_delta = {seat: deltas[e] for seat, e in self._slap_electrodes.items()}
        seat = max(seat_delta, key=lambda s: seat_delta[s])
        return seat if seat_delta[seat] > 0 else None

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
        chip = getattr(self, "chip", None)
        if chip is not None:
            with self._io_lock:
                chip.close()

    def _conflicts_with(self, other: object) -> bool:
        return True

    def _describe(self) -> str:
        timing = "irq-timed" if self.kernel_timestamps else "UNTIMED"
        return f"0x{self.chip.address:02X} {timing} {self.period_us} µs"

"""Switch slap pads on GPIO through gpiozero, stamped with the kernel's edge time.

`GpioPads({seat: gpio})` listens on each pin with the pin-level
`when_changed(ticks, state)` callback (the device-level `Button.when_pressed`
drops the stamp), converts ticks with `EdgeClock`, and feeds `PadLogic`.
With no factory given it uses gpiozero's default, lgpio built on the header's
gpiochip found by label (`edge_clock.default_pin_factory`). gpiozero's `bounce`
is left off on purpose: lgpio then reports the last bounce plus the period;
`PadLogic` keeps the first edge, whatever level its event says (the kernel
reads it later). See hardware/README.md for wiring.
"""
from __future__ import annotations

import time
from typing import Any, Mapping

from .edge_clock import TickKind, timed_factory
from .pad_errors import PadConfigError
from .pad_logic import Channel, PadLogic
from .pad_source import Clock, PadSource
from .pad_timing import PadTiming
from .pins import DEFAULT_PAD_PINS

#: What kernel GPIO stamps can promise: IRQ latency, tens of µs.
KERNEL_TIE_US = 50
#: Stamped when the Python callback ran: milliseconds under load.
CALLBACK_TIE_US = 10_000

PinSpec = int | str


class _PinHandler:
    """The strong reference gpiozero's weakly held `when_changed` needs: one per pin."""

    __slots__ = ("_pads", "_channel", "__weakref__")

    def __init__(self, pads: "GpioPads", channel: Channel) -> None:
        self._pads, self._channel = pads, channel

    def __call__(self, ticks: float, state: Any) -> None:
        self._pads._pin_changed(self._channel, ticks, state)


class GpioPads(PadSource):
    """Slap pads (and optional press buttons) on GPIO pins via gpiozero.

    `pins`: {seat: gpio} for slap pads (default `DEFAULT_PAD_PINS`);
    `press_pins`: {seat: gpio} for optional "press" buttons that produce `Press`.
    `active_high=False` means a pressed pad pulls the pin low (switch to ground,
    pull-up on); `pull_up` defaults to `not active_high`.
    Factories that cannot give kernel stamps raise `UntimedPinFactory` unless
    `allow_untimed=True`, which warns (`UntimedPadsWarning`) and widens `tie_us`.
    """

    source_name = "gpio"

    def __init__(self, pins: Mapping[int, PinSpec] | None = None, *,
                 press_pins: Mapping[int, PinSpec] | None = None, pin_factory: Any = None,
                 active_high: bool = False, pull_up: bool | None = None,
                 debounce_ms: float = 10.0, stuck_after_s: float = 3.0,
                 timing: PadTiming | None = None, allow_untimed: bool = False,
                 clock: Clock = time.monotonic_ns, watchdog_s: float | None = 0.25) -> None:
        self.pin_factory, self.edge_clock = timed_factory(pin_factory, allow_untimed=allow_untimed)
        self.kernel_timestamps = self.edge_clock.kind is not TickKind.CALLBACK
        self.active_high = active_high
        wiring = _wiring(DEFAULT_PAD_PINS if pins is None else pins, press_pins or {})
        logic = PadLogic(wiring, source=self.source_name, debounce_ns=round(debounce_ms * 1e6),
                         stuck_after_ns=round(stuck_after_s * 1e9),
                         backend_tie_us=KERNEL_TIE_US if self.kernel_timestamps else CALLBACK_TIE_US,
                         timing=timing)
        super().__init__(logic, clock=clock, watchdog_s=watchdog_s)
        self._wiring = wiring
        self._pins: dict[Channel, Any] = {}
        self._handlers: dict[Channel, _PinHandler] = {}
        self.pin_factory.reserve_pins(self, *wiring.values())
        try:
            pull = ("up" if not active_high else "down") if pull_up is None else ("up" if pull_up else "floating")
            now = clock()
            for channel, spec in wiring.items():
                pin = self.pin_factory.pin(spec)
                self._pins[channel] = pin
                pin.function = "input"
                pin.pull = pull
                pin.bounce = None
                pin.edges = "both"
                logic.start(channel, now, self._active(pin.state))
                handler = _PinHandler(self, channel)
                self._handlers[channel] = handler
                pin.when_changed = handler
        except Exception:
            self.close()
            raise
        self._start_watchdog()

    def _conflicts_with(self, other: object) -> bool:
        """gpiozero pin reservation: a pad pin is never shared."""
        return True

    def _active(self, state: Any) -> bool:
        return bool(state) == self.active_high

    def _pin_changed(self, channel: Channel, ticks: float, state: Any) -> None:
        self._edge(channel, self.edge_clock.stamp(ticks), self._active(state))

    def _read_level(self, channel: Channel) -> bool | None:
        pin = self._pins.get(channel)
        return None if pin is None else self._active(pin.state)

    def _close_backend(self) -> None:
        for pin in self._pins.values():
            try:
                pin.when_changed = None
                pin.close()
            except Exception:  # closing must release the rest regardless
                pass
        self._pins.clear()
        self._handlers.clear()
        self.pin_factory.release_all(self)

    def __enter__(self) -> "GpioPads":
        return self

    def _describe(self) -> str:
        timing = "kernel-timed" if self.kernel_timestamps else "UNTIMED"
        return f"{type(self.pin_factory).__name__} {timing}"


def _wiring(pins: Mapping[int, PinSpec], press_pins: Mapping[int, PinSpec]) -> dict[Channel, PinSpec]:
    wiring: dict[Channel, PinSpec] = {Channel(seat, "slap"): pin for seat, pin in pins.items()}
    wiring.update({Channel(seat, "press"): pin for seat, pin in press_pins.items()})
    used = [str(p) for p in wiring.values()]
    if len(set(used)) != len(used):
        raise PadConfigError(f"a pin is used twice in {dict(wiring)}")
    if any(not isinstance(ch.seat, int) or ch.seat < 0 for ch in wiring):
        raise PadConfigError("seats must be ints >= 0")
    return wiring

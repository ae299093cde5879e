"""Turn gpiozero pin-callback `ticks` into integer nanoseconds on CLOCK_MONOTONIC, and pick the factory.

Which factory stamps what (gpiozero 2.0):
- lgpio (`LGPIOFactory`, default on Pi 4/5 under Bookworm): lg requests lines
  through the kernel's GPIO character device (v2 uAPI, lgGpio.c) and its alert
  thread hands each event's `timestamp_ns` (taken in the hard IRQ handler, on
  CLOCK_MONOTONIC: lg never asks for EVENT_CLOCK_REALTIME) to gpiozero, which
  divides it by 1e9. Kernels before 5.7 stamped v1 events on CLOCK_REALTIME: a
  stamp larger than `REALTIME_FLOOR_S` (31 years of uptime) can only be that,
  so it is converted with the current REALTIME-MONOTONIC offset and warned about.
- mock (`MockFactory`): ticks are `time.monotonic()` seconds (or, with
  `TimedMockPin`, whatever the test chose) - same conversion.
- rpigpio, native, pigpio and anything unknown: the stamp is taken when the
  Python callback runs (pigpio's are 32-bit microsecond ticks on another
  epoch). Those are refused for judging unless explicitly allowed, and then
  stamped with `time.monotonic_ns()` in the callback.

Float seconds lose nothing that matters: a double holds monotonic seconds
to ~0.2 ns after 11 days of uptime, so `round(ticks * 1e9)` gives back the
kernel's nanoseconds exactly.

`default_pin_factory()` builds gpiozero's default lgpio factory on the header's
gpiochip found by label (hardware/gpiochips.py) instead of gpiozero's guess.
"""
from __future__ import annotations

import os
import time
import warnings
from enum import Enum
from typing import Any

from .pad_errors import PadClockWarning

REALTIME_FLOOR_S = 1.0e9


class TickKind(Enum):
    """How a pin factory's callback `ticks` relate to the moment of the edge."""

    KERNEL = "kernel"      # stamped by the kernel at the IRQ (lgpio)
    MOCK = "mock"          # test factory: monotonic seconds chosen by the driver of the pin
    CALLBACK = "callback"  # stamped when Python got round to it: not for disputes


def classify_factory(factory: Any) -> TickKind:
    """Tell, without importing optional libraries, what a factory's ticks mean."""
    for cls in type(factory).__mro__:
        module, name = cls.__module__, cls.__name__
        if module == "gpiozero.pins.lgpio" and name == "LGPIOFactory":
            return TickKind.KERNEL
        if module == "gpiozero.pins.mock" and name == "MockFactory":
            return TickKind.MOCK
    return TickKind.CALLBACK


class EdgeClock:
    """Converts one factory's callback ticks to CLOCK_MONOTONIC integer ns."""

    def __init__(self, kind: TickKind) -> None:
        self.kind = kind
        self._warned_realtime = False

    def stamp(self, ticks: float | None) -> int:
        """The edge's time in monotonic ns (callback time for untimed factories)."""
        if self.kind is TickKind.CALLBACK or ticks is None:
            return time.monotonic_ns()
        seconds = float(ticks)
        if seconds > REALTIME_FLOOR_S:
            if not self._warned_realtime:
                self._warned_realtime = True
                warnings.warn(PadClockWarning(
                    "GPIO edge stamps are on CLOCK_REALTIME (kernel older than 5.7?); "
                    "converting to CLOCK_MONOTONIC with the current offset"), stacklevel=2)
            offset = time.time_ns() - time.monotonic_ns()
            return round(seconds * 1e9) - offset
        return round(seconds * 1e9)

    def __repr__(self) -> str:
        return f"EdgeClock({self.kind.value})"


def edge_clock_for(factory: Any, *, allow_untimed: bool) -> EdgeClock:
    """The EdgeClock for a gpiozero factory; refuses callback-time stamping unless allowed (then warns)."""
    from .pad_errors import UntimedPadsWarning, UntimedPinFactory

    kind = classify_factory(factory)
    if kind is TickKind.CALLBACK:
        message = (f"{type(factory).__name__} stamps GPIO edges when Python runs the callback, "
                   "not when they happened; use the lgpio factory (or GpiodPads) to judge slaps")
        if not allow_untimed:
            raise UntimedPinFactory(message)
        warnings.warn(UntimedPadsWarning(message + " -- pads are NOT fit for disputes"), stacklevel=3)
    return EdgeClock(kind)


def default_pin_factory() -> Any:
    """gpiozero's process-wide pin factory; when it is to be lgpio (GPIOZERO_PIN_FACTORY unset or
    "lgpio"), built on the gpiochip labelled as the Pi's header rather than on gpiozero's guess."""
    from gpiozero import Device
    if Device.pin_factory is None:
        name = os.environ.get("GPIOZERO_PIN_FACTORY")
        if name is None or name.lower() == "lgpio":
            factory = _lgpio_factory(required=name is not None)
            if factory is not None and Device.pin_factory is None:
                Device.pin_factory = factory
        Device.ensure_pin_factory()
    return Device.pin_factory


def _lgpio_factory(*, required: bool) -> Any:
    """LGPIOFactory(chip=<header chip by label>); None (gpiozero falls back) unless `required`."""
    try:
        import lgpio
        from gpiozero.pins.lgpio import LGPIOFactory

        from .gpiochips import header_chip_number
        return LGPIOFactory(chip=header_chip_number(lgpio))  # None: no header label, gpiozero's guess
    except Exception:
        if required:
            raise
        return None


def timed_factory(pin_factory: Any, *, allow_untimed: bool) -> tuple[Any, EdgeClock]:
    """The pin factory to use (`default_pin_factory()` when None) and its EdgeClock, refusing
    factories that cannot stamp edges in the kernel unless `allow_untimed`."""
    if pin_factory is None:
        pin_factory = default_pin_factory()
    return pin_factory, edge_clock_for(pin_factory, allow_untimed=allow_untimed)

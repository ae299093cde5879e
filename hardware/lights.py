"""Seat and status lights on gpiozero RGB LEDs: the `Lights` port for a real table.

Blinks and pulses run on gpiozero's own background threads, so `show()`
returns at once; a pattern persists until the next `show()` for that light.
"""
from __future__ import annotations

import threading
from typing import Any, Sequence

from gpiozero import RGBLED

from .light_patterns import LIGHT_PATTERNS

Pins = tuple[int, int, int]


class LightsError(Exception):
    """Base class of every lights error."""


class LightsConfigError(LightsError, ValueError):
    """Pins that cannot work: not three per LED, or one pin used twice."""


class BadSeat(LightsError, ValueError):
    """A seat number that has no light."""


class UnknownPattern(LightsError, ValueError):
    """A pattern name that is not one of `referee.table.ports.PATTERNS`."""


class LightsClosed(LightsError, RuntimeError):
    """The lights were used after close()."""


def _check_pins(seats: Sequence[Sequence[int]], status: Sequence[int] | None) -> list[Pins]:
    leds = list(seats) + ([status] if status is not None else [])
    if not seats:
        raise LightsConfigError("RgbLights needs at least one seat's (r, g, b) pins")
    for i, rgb in enumerate(leds):
        what = "status" if status is not None and i == len(leds) - 1 else f"seat {i}"
        if len(rgb) != 3 or not all(isinstance(p, int) and not isinstance(p, bool) for p in rgb):
            raise LightsConfigError(f"{what}: expected three GPIO numbers (r, g, b), got {rgb!r}")
    flat = [p for rgb in leds for p in rgb]
    dup = sorted({p for p in flat if flat.count(p) > 1})
    if dup:
        raise LightsConfigError(f"GPIO pins used twice by the lights: {dup}")
    return [(int(r), int(g), int(b)) for r, g, b in leds]


class RgbLights:
    """One common-cathode RGB LED per seat (0-based) plus an optional status LED.

    `show(None, p)` drives the status LED; with no status LED it drives every
    seat (so "check the table" is still seen).
    """

    def __init__(self, seats: list[tuple[int, int, int]], status: tuple[int, int, int] | None = None,
                 *, pin_factory: Any = None) -> None:
        pins = _check_pins(seats, status)
        self._lock = threading.Lock()
        self._closed = False
        self._leds: list[RGBLED] = []
        try:
            for r, g, b in pins:
                self._leds.append(RGBLED(r, g, b, pin_factory=pin_factory))
        except Exception:
            for led in self._leds:
                led.close()
            raise
        self._status: RGBLED | None = self._leds.pop() if status is not None else None
        self._pins = pins
        self._patterns: dict[int | None, str] = {s: "off" for s in range(len(self._leds))}
        if self._status is not None:
            self._patterns[None] = "off"

    @property
    def seats(self) -> int:
        """How many seat lights there are."""
        return len(self._leds)

    @property
    def has_status(self) -> bool:
        return self._status is not None

    def pattern(self, seat: int | None) -> str:
        """The pattern `seat`'s light (None: status) shows now."""
        with self._lock:
            self._check_open()
            key = self._key(seat)
            if key is None and self._status is None:
                raise BadSeat("no status light is wired (show(None, ...) drives every seat)")
            return self._patterns[key]

    def show(self, seat: int | None, pattern: str) -> None:
        """Show `pattern` on `seat`'s light (None: the status light, or every seat without one)."""
        look = LIGHT_PATTERNS.get(pattern)
        if look is None:
            raise UnknownPattern(f"unknown light pattern {pattern!r}; known: {', '.join(LIGHT_PATTERNS)}")
        with self._lock:
            self._check_open()
            key = self._key(seat)
            targets = [key] if key is not None or self._status is not None else list(range(len(self._leds)))
            for k in targets:
                self._draw(self._led(k), pattern)
                self._patterns[k] = pattern

    def close(self) -> None:
        """Turn every light off and release its pins (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for led in self._all_leds():
                try:
                    led.off()
                finally:
                    led.close()

    def __enter__(self) -> "RgbLights":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._closed:
            return "<RgbLights closed>"
        seats = ", ".join(f"{s}: {self._patterns[s]}" for s in range(len(self._leds)))
        status = f" status={self._patterns[None]}" if self._status is not None else ""
        return f"<RgbLights seats=[{seats}]{status}>"

    # ---- internals -----------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise LightsClosed("RgbLights used after close()")

    def _key(self, seat: int | None) -> int | None:
        if seat is None:
            return None
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self._leds):
            raise BadSeat(f"no light for seat {seat!r}: seats are 0..{len(self._leds) - 1}")
        return seat

    def _led(self, key: int | None) -> RGBLED:
        if key is None:
            assert self._status is not None
            return self._status
        return self._leds[key]

    def _all_leds(self) -> list[RGBLED]:
        return self._leds + ([self._status] if self._status is not None else [])

    @staticmethod
    def _draw(led: RGBLED, pattern: str) -> None:
        look = LIGHT_PATTERNS[pattern]
        if look.effect == "solid":
            led.color = look.on_color          # stops any running blink first
        elif look.effect == "blink":
            led.blink(on_time=look.on_time, off_time=look.off_time,
                      on_color=look.on_color, off_color=look.off_color, background=True)
        else:
            led.pulse(fade_in_time=look.fade_time, fade_out_time=look.fade_time,
                      on_color=look.on_color, off_color=look.off_color, background=True)

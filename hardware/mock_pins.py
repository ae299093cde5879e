"""A gpiozero MockPin that tests, the demo and the bench can drive with a chosen edge timestamp.

The stock MockPin stamps every edge with `time.monotonic()` when driven; to
test microsecond ordering and bounce, this one delivers the stamp it is given
(as lgpio would deliver the kernel's), can delay the callback like a busy
Python thread, and honours `edges`.
"""
from __future__ import annotations

import time

from gpiozero.pins.mock import MockPin, PinState


class TimedMockPin(MockPin):
    """`drive(state, t_ns)` makes an edge stamped `t_ns` (CLOCK_MONOTONIC ns)."""

    _state: bool             # set by MockPin (untyped there)
    _last_change: float

    def drive(self, state: bool, t_ns: int, *, callback_delay_s: float = 0.0) -> bool:
        """Change the input level at `t_ns`; False when the level did not change (no edge)."""
        assert self._function == "input", "only inputs can be driven"
        state = bool(state)
        if self._state == state:
            return False
        ticks = t_ns / 1e9
        self._state = state
        self.states.append(PinState(ticks - self._last_change, state))
        self._last_change = ticks
        wanted = "rising" if state else "falling"
        if self._edges in ("both", wanted) and self._when_changed is not None:
            if callback_delay_s:
                time.sleep(callback_delay_s)
            self._call_when_changed()  # stock path: MockPin -> PiPin -> weakly held callback
        return True

    def drive_bouncing(self, state: bool, t_ns: int, *, bounce_ns: int, every_ns: int) -> int:
        """Reach `state` at `t_ns` and chatter until `t_ns + bounce_ns`, ending at `state`.

        Returns the number of edges driven.
        """
        edges, level, t = 0, bool(state), t_ns
        while t <= t_ns + bounce_ns:
            edges += self.drive(level, t)
            level = not level
            t += every_ns
        edges += self.drive(bool(state), t)
        return edges

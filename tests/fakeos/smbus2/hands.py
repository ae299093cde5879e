"""What the world's hands do to one MPR121's electrodes, in ADC counts (physics, not the datasheet).

The voltage an electrode charges to falls as its capacitance rises (datasheet 3,
"Capacitance Sensing"), so a hand lowers its counts. Numbers: an electrode rests
near REST_COUNTS (autoconfiguration's usual target, 5.11); a contact in
world.json drops its electrode CONTACT_DROP from t_us to t_us + hold_us (a palm
on a copper pad); a hover drops the seat's own electrodes HOVER_DROP and those
of the adjacent seats NEIGHBOUR_DROP. ELEPROX reads the electrodes charged
together: its drop is the sum of theirs (AN3893). Counts scale with CDC x CDT
against the reset 16 µA x 0.5 µs. No noise.
"""
from __future__ import annotations

import bisect

from world import World

REST_COUNTS = 700
PROX_REST_COUNTS = 640
CONTACT_DROP = 80
HOVER_DROP = 6
NEIGHBOUR_DROP = 2
_LONG_AGO = -(1 << 62)


class Hands:
    """Piecewise-constant drops of ELE0-11: `times[i]` is when `drops[i]` starts (at rest before t0)."""

    def __init__(self, w: World, bus: int, address: int, wiring: dict[int, tuple[int, str]]) -> None:
        self.world, self.bus, self.address, self.wiring = w, bus, address, wiring
        rng = w.random(f"mpr121:{bus}:{address:#x}")
        self.rest = [REST_COUNTS + rng.randint(-20, 20) for _ in range(12)]
        self.t0: int | None = None
        self.times: list[int] = [_LONG_AGO]
        self.drops: list[tuple[int, ...]] = [(0,) * 12]

    def refresh(self) -> None:
        """Read the world's contacts and hovers once its timeline has started (again)."""
        t0 = self.world.t0_ns()
        if t0 is None or t0 == self.t0:
            return
        self.t0 = t0
        events: list[tuple[int, int, int]] = []                    # (t_ns, electrode, +-drop)
        for e in self.wiring:
            for a, b in self.world.touch_intervals(self.bus, self.address, e):
                events += [(a, e, CONTACT_DROP), (b, e, -CONTACT_DROP)]
        for a, b, seat in self.world.hover_intervals(self.bus, self.address):
            for e, (s, _kind) in self.wiring.items():
                drop = HOVER_DROP if s == seat else NEIGHBOUR_DROP if abs(s - seat) == 1 else 0
                if drop:
                    events += [(a, e, drop), (b, e, -drop)]
        drops = [0] * 12
        self.times, self.drops = [_LONG_AGO], [tuple(drops)]
        for t, e, d in sorted(events):
            drops[e] += d
            if self.times[-1] != t:
                self.times.append(t)
                self.drops.append(())
            self.drops[-1] = tuple(drops)

    def index(self, t_ns: int) -> int:
        """The stretch in force at `t_ns`."""
        return bisect.bisect_right(self.times, t_ns) - 1

    def next_change(self, t_ns: int) -> int | None:
        """When the drops next change after `t_ns` (None: never)."""
        i = bisect.bisect_right(self.times, t_ns)
        return self.times[i] if i < len(self.times) else None

    def counts(self, i: int, prox_set: tuple[int, ...], scale: float) -> list[int]:
        """The 10-bit counts of ELE0-11 and ELEPROX during stretch `i`."""
        drops = self.drops[i]
        vals = [self.rest[e] - drops[e] for e in range(12)]
        vals.append(PROX_REST_COUNTS - sum(drops[e] for e in prox_set))
        return [min(1023, max(0, round(v * scale))) for v in vals]

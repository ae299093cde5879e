"""A deterministic stream of table inputs for journal tests: plays seen late by the camera,
random slaps (some on Jacks, most false), and clock ticks, in arrival order."""
from __future__ import annotations

import random
from dataclasses import dataclass

from referee.core.events import MS, Event, Play, Slap

GAME = "slapjack"
PLAYERS = 4
SEED = 7
HOLDBACK_NS = 120 * MS


@dataclass(frozen=True)
class Step:
    """One thing the runtime does: submit an event that arrived at `arrival_ns`, or advance the clock."""

    arrival_ns: int
    event: Event | None = None   # None: advance(arrival_ns)
    source: str = ""


def stream(cards: int = 200, seed: int = SEED) -> list[Step]:
    rng = random.Random(seed)
    steps: list[Step] = []
    for k in range(cards):
        t = (k + 1) * 700 * MS
        steps.append(Step(t + rng.randint(35, 90) * MS, Play(t), "camera"))
        for seat in range(PLAYERS):
            if rng.random() < 0.3:
                slap_t = t + rng.randint(150, 450) * MS + rng.randint(0, 999)
                steps.append(Step(slap_t + 200_000, Slap(seat, slap_t), "pads"))
        steps.extend(Step(t + dt * MS) for dt in (200, 400, 600))
    steps.sort(key=lambda s: (s.arrival_ns, s.event is None))
    return steps

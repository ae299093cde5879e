"""Scripted slaps for pad calibration without people: known offsets, bounce, jitter, wiring.

`ScriptedTable.perform` injects raw edges into `SimPads` exactly as a slap
on real hardware would produce them; `write_events`/`EdgeReplay` keep the
same edges in a JSON-lines file so `referee calibrate pads --events FILE`
can be run non-interactively (each line: asked seat, trial, [[input, t_ns, active], ...]).
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from hardware.pads_sim import SimPads

Edge = tuple[int, int, bool]


@dataclass
class ScriptedTable:
    """Hands that slap when asked. Times in ns; `wiring[seat]` is the input the seat's pad is on."""

    offsets_ns: Sequence[int]
    bounce_ns: Sequence[int] = ()         # how long each input's contact chatters
    jitter_ns: int = 20_000               # uniform spread of each pad's latency per slap
    ref_jitter_ns: int = 2_000
    wiring: Sequence[int] | None = None
    seed: int = 0
    period_ns: int = 1_000_000_000
    t0_ns: int = 5_000_000_000
    hold_ns: int = 80_000_000
    log: list[tuple[int, int, list[Edge]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.n = 0

    def edges(self, seat: int, reference: int | None) -> list[Edge]:
        """The raw edges of one slap by `seat` (and the reference contact closed with it)."""
        t = self.t0_ns + self.n * self.period_ns
        self.n += 1
        out: list[Edge] = []
        if reference is not None:
            r = t + self.rng.randint(0, self.ref_jitter_ns)
            out += [(reference, r, True), (reference, r + self.hold_ns, False)]
        pad = self.wiring[seat] if self.wiring is not None else seat
        first = t + self.offsets_ns[pad] + self.rng.randint(0, self.jitter_ns)
        out.append((pad, first, True))
        bounce = self.bounce_ns[pad] if self.bounce_ns else 0
        at = first
        while bounce:                      # chatter: open and close again every ~0.3-0.9 ms
            opened = at + self.rng.randint(150_000, 450_000)
            closed = opened + self.rng.randint(150_000, 450_000)
            if closed > first + bounce:    # the contact has settled: the last close is within `bounce`
                break
            out += [(pad, opened, False), (pad, closed, True)]
            at = closed
        out.append((pad, first + self.hold_ns, False))
        return sorted(out, key=lambda e: e[1])

    def bind(self, pads: SimPads, reference: int | None):  # type: ignore[no-untyped-def]
        """A `perform(seat, trial)` that slaps on `pads`."""
        def perform(seat: int, trial: int) -> None:
            edges = self.edges(seat, reference)
            self.log.append((seat, trial, edges))
            for inp, t, active in edges:
                pads.edge(inp, t, active)
        return perform


def write_events(log: Sequence[tuple[int, int, list[Edge]]], path: str | Path) -> Path:
    with Path(path).open("w", encoding="utf-8") as f:
        for seat, trial, edges in log:
            f.write(json.dumps({"seat": seat, "trial": trial, "edges": [list(e) for e in edges]}) + "\n")
    return Path(path)


class EdgeReplay:
    """Recorded slaps from a JSON-lines file, replayed in the order they were asked."""

    def __init__(self, path: str | Path) -> None:
        self.trials: dict[tuple[int, int], list[Edge]] = {}
        for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines()):
            if not line.strip():
                continue
            row = json.loads(line)
            try:
                self.trials[(int(row["seat"]), int(row["trial"]))] = [
                    (int(i), int(t), bool(a)) for i, t, a in row["edges"]]
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{path}:{n + 1}: not a recorded slap: {exc}") from None

    @property
    def seats(self) -> int:
        return 1 + max(s for s, _ in self.trials) if self.trials else 0

    @property
    def trials_per_seat(self) -> int:
        return 1 + max(t for _, t in self.trials) if self.trials else 0

    @property
    def inputs(self) -> int:
        return 1 + max(i for edges in self.trials.values() for i, _, _ in edges) if self.trials else 0

    def bind(self, pads: SimPads):  # type: ignore[no-untyped-def]
        def perform(seat: int, trial: int) -> None:
            for inp, t, active in self.trials.get((seat, trial), []):
                pads.edge(inp, t, active)
        return perform

"""A simulated camera with a known capture latency, for calibration tests, the bench and `--source sim`.

Frames come from `referee.vision.simulate.PileSimulator`; each is handed over
`latency_ns` (plus seeded jitter) after its capture stamp, on a `SimClock`, so
latency measurement can be checked against the truth without waiting in real time.
"""
from __future__ import annotations

import random
from typing import Iterable, Iterator

import numpy as np

from referee.core.cards import Card
from referee.vision.simulate import PileSimulator

Frame = tuple[np.ndarray, int]


class SimClock:
    """A monotonic clock the simulated camera moves forward."""

    def __init__(self, t_ns: int = 0) -> None:
        self.t_ns = t_ns

    def __call__(self) -> int:
        return self.t_ns

    def advance_to(self, t_ns: int) -> None:
        self.t_ns = max(self.t_ns, t_ns)


def lagged(frames: Iterable[Frame], clock: SimClock, latency_ns: int, jitter_ns: int = 0,
           seed: int = 0) -> Iterator[Frame]:
    """Deliver each frame `latency_ns` + uniform(0, jitter_ns) after its stamp."""
    rng = random.Random(seed)
    for frame, t_ns in frames:
        clock.advance_to(t_ns + latency_ns + (rng.randint(0, jitter_ns) if jitter_ns else 0))
        yield frame, t_ns


def one_card_drop(card: str = "QH", *, seed: int = 0, size: int = 480, fps: float = 30.0,
                  idle_frames: int = 30) -> PileSimulator:
    """An empty table, then one card dropped where the pile will be, then a still table."""
    return PileSimulator([Card.parse(card)], seed=seed, size=size, fps=fps, idle_frames=idle_frames)


def rest_box(card: str = "QH", *, seed: int = 0, size: int = 480, fps: float = 30.0,
             idle_frames: int = 30) -> tuple[PileSimulator, tuple[int, int, int, int]]:
    """A one-card simulator and the true bounding box of the card where it comes to rest.

    The truth comes from the renderer's own placement of the card (recorded by
    running the simulator once), not from the frames calibration looks at.
    """
    from referee.vision import render

    quads: list[np.ndarray] = []
    original = render.composite

    def recording(img, p, **kw):  # type: ignore[no-untyped-def]
        quads.append(p.quad())
        return original(img, p, **kw)

    render.composite = recording
    try:
        for _ in one_card_drop(card, seed=seed, size=size, fps=fps, idle_frames=idle_frames).frames():
            pass
    finally:
        render.composite = original
    q = quads[-1]
    x0, y0 = np.floor(q.min(0)).astype(int)
    x1, y1 = np.ceil(q.max(0)).astype(int)
    x0, y0 = max(0, int(x0)), max(0, int(y0))
    x1, y1 = min(size, int(x1)), min(size, int(y1))
    return one_card_drop(card, seed=seed, size=size, fps=fps, idle_frames=idle_frames), (x0, y0, x1 - x0, y1 - y0)

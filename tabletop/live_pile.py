"""The simulated camera of the demo: renders the pile (or slapstick's row) as
cards land, with a hand bringing each one, for the real vision pipeline to read.

Frames carry the virtual time they were "captured" at; the pipeline stamps a
card with the first frame that showed it, exactly as with a real camera.
"""
from __future__ import annotations

import random

import numpy as np

from referee.cards import Card
from referee.events import MS
from referee.vision import render

FRAME_MS = 33


class LivePile:
    """The table as the camera sees it: a background, and the cards laid on it so far."""

    def __init__(self, *, seed: int = 0, size: int = 480, row: bool = False,
                 style: render.CardStyle | None = None) -> None:
        self.rng = random.Random(seed)
        self.size = size
        self.row = row
        self.style = style or render.STYLES["classic"]
        self.table = render.random_table(self.rng, (size, size))
        self.image = self.table.copy()
        self.cards: list[Card] = []
        self.last_placement: render.Placement | None = None
        self.width = size * (0.2 if row else 0.3)

    def clear(self) -> None:
        self.image = self.table.copy()
        self.cards.clear()
        self.last_placement = None

    def drop(self, card: Card) -> render.Placement:
        """Lay `card` on the pile (slightly askew) or at the end of the row."""
        c = self.size / 2
        if self.row:
            k = len(self.cards)
            x = self.width * 0.7 + (k % 8) * self.width * 0.45
            center = (x, c + (k // 8) * self.width * 0.2 - self.width * 0.3)
            angle = self.rng.uniform(-6, 6)
        else:
            center = (c + self.rng.uniform(-0.12, 0.12) * self.width, c + self.rng.uniform(-0.12, 0.12) * self.width)
            angle = self.rng.uniform(-35, 35)
        placement = render.Placement(card, center, self.width * self.rng.uniform(0.97, 1.03), angle, self.style)
        render.composite(self.image, placement, rng=self.rng)
        self.cards.append(card)
        self.last_placement = placement
        return placement

    def frame(self, *, hand: bool = False) -> np.ndarray:
        img = self.image.copy()
        if hand:
            render.draw_hand(img, self.rng, (self.size * 0.5, self.size * 0.85), self.width * 0.7, angle=-90)
        return render.finish(img, self.rng, noise=1.5)

    def frames_for_drop(self, card: Card, t_ns: int, settle: int = 4) -> list[tuple[np.ndarray, int]]:
        """What the camera sees from the moment `card` lands at `t_ns` until it has settled."""
        self.drop(card)
        return [(self.frame(), t_ns + i * FRAME_MS * MS) for i in range(settle + 1)]

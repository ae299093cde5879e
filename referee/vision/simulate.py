"""A simulated table: rendered camera frames of cards being dropped on a pile.

Each drop slides a card in from the table edge for a few blurred frames and
lets it settle; optional hands reach over the pile and leave. The truth (which
card, first frame that showed it) comes with the frames, for tests, the bench
and the demo's simulated camera.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Iterator, Sequence

import cv2
import numpy as np

from ..core.cards import Card
from . import render


@dataclass(frozen=True)
class Drop:
    """Ground truth for one card: its identity and the first frame (index, t_ns) showing it."""

    card: Card
    frame: int
    t_ns: int


class PileSimulator:
    """Renders (frame, t_ns) for `cards` dropped one by one, bottom first.

    `row=True` lays them in slapstick's overlapping row instead of a pile;
    `hands` is the chance of a hand hovering over the pile between drops.
    """

    def __init__(self, cards: Sequence[Card], *, seed: int = 0, size: int = 480, fps: float = 30.0,
                 style: render.CardStyle | None = None, row: bool = False, hands: float = 0.0,
                 idle_frames: int = 4, slide_frames: int = 4, t0_ns: int = 1_000_000_000, noise: float = 2.0) -> None:
        self.cards = list(cards)
        self.rng = random.Random(seed)
        self.size = size
        self.period_ns = int(round(1e9 / fps))
        self.style = style or render.STYLES["classic"]
        self.row = row
        self.hands = hands
        self.idle_frames = idle_frames
        self.slide_frames = slide_frames
        self.t0_ns = t0_ns
        self.noise = noise
        self.drops: list[Drop] = []
        self._table = render.random_table(self.rng, (size, size))
        self._light = self._lighting()

    def __repr__(self) -> str:
        return f"PileSimulator({len(self.cards)} cards, size={self.size}, row={self.row})"

    def _lighting(self) -> np.ndarray:
        s = self.size
        yy, xx = np.mgrid[0:s, 0:s].astype(np.float32) / s
        gx, gy = self.rng.uniform(-0.25, 0.25), self.rng.uniform(-0.25, 0.25)
        return (1 + gx * (xx - 0.5) + gy * (yy - 0.5))[..., None]

    def _camera(self, img: np.ndarray, frame_no: int) -> np.ndarray:
        out = img.astype(np.float32) * self._light
        if self.noise:
            out += np.random.default_rng(frame_no).normal(0, self.noise, out.shape).astype(np.float32)
        return np.clip(out, 0, 255).astype(np.uint8)

    def _rest(self, k: int, width: float) -> tuple[tuple[float, float], float]:
        s, r = self.size, self.rng
        if self.row:
            n = max(1, len(self.cards))
            step = min(width * 0.45, (s - 1.4 * width) / n)
            return (width * 0.7 + k * step, s / 2 + r.uniform(-5, 5)), r.uniform(-6, 6)
        return (s / 2 + r.uniform(-0.12, 0.12) * s, s / 2 + r.uniform(-0.12, 0.12) * s), r.uniform(0, 360)

    def frames(self) -> Iterator[tuple[np.ndarray, int]]:
        """Yield (BGR frame, t_ns) for the whole sequence; `self.drops` fills in as it goes."""
        s, r = self.size, self.rng
        width = s * (0.2 if self.row else 0.3)
        base = self._table.copy()
        n = 0

        def emit(img: np.ndarray) -> tuple[np.ndarray, int]:
            nonlocal n
            out = (self._camera(img, n), self.t0_ns + n * self.period_ns)
            n += 1
            return out

        for _ in range(self.idle_frames):
            yield emit(base)
        for k, card in enumerate(self.cards):
            if self.hands and r.random() < self.hands:
                hand_at = (s / 2 + r.uniform(-0.1, 0.1) * s, s / 2 + r.uniform(-0.1, 0.1) * s)
                ang = r.uniform(0, 360)
                for _ in range(3):
                    img = base.copy()
                    render.draw_hand(img, random.Random(k), hand_at, s * 0.22, ang)
                    yield emit(img)
                for _ in range(self.idle_frames):
                    yield emit(base)
            (ex, ey), angle = self._rest(k, width)
            face = render.render_card(card, self.style, rng=r)
            d = r.uniform(0, 2 * math.pi) if not self.row else math.pi / 2
            far = 0.5 * s
            for i in range(self.slide_frames):
                f = (self.slide_frames - i) / self.slide_frames
                c = (ex + math.cos(d) * far * f, ey + math.sin(d) * far * f)
                p = render.Placement(card, c, width, angle + 40 * f, self.style)
                q = p.quad()
                if len(self.drops) <= k and (q.max(0) > 2).all() and (q.min(0) < s - 2).all():
                    self.drops.append(Drop(card, n, self.t0_ns + n * self.period_ns))
                img = base.copy()
                render.composite(img, p, face=face)
                kx = max(1, int(far / self.slide_frames * 0.3))
                img = cv2.blur(img, (kx, kx))
                yield emit(img)
            if len(self.drops) <= k:
                self.drops.append(Drop(card, n, self.t0_ns + n * self.period_ns))
            render.composite(base, render.Placement(card, (ex, ey), width, angle, self.style), face=face)
            for _ in range(self.idle_frames + 3):
                yield emit(base)

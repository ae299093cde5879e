"""Which blobs `pair_candidates` offers the reader as an index's suit."""
from __future__ import annotations

import math
import random

import cv2
import numpy as np

from referee.cards import Card
from referee.vision import render
from referee.vision.index_detect import find_blobs, pair_candidates


def test_print_specks_beside_a_rank_do_not_crowd_out_its_suit() -> None:
    img = np.full((480, 480, 3), (40, 110, 40), np.uint8)
    # the card's lower half is off the image: only its top-left index shows
    render.composite(img, render.Placement(Card.parse("7C"), (240, 400), 200, 0.0, render.STYLES["classic"]),
                     rng=random.Random(1))
    seven = min((b for b in find_blobs(img).blobs if b.cx < 200), key=lambda b: b.cy)
    ext = max(seven.w, seven.h)
    for a in (-60, -30, 0, 30, 60):  # five specks nearer the 7 than its club is
        x = seven.cx + 0.75 * ext * math.cos(math.radians(a))
        y = seven.cy + 0.75 * ext * math.sin(math.radians(a))
        cv2.circle(img, (int(x), int(y)), 4, (30, 30, 30), -1)
    frame = find_blobs(img)
    seven = next(b for b in frame.blobs if abs(b.cx - seven.cx) < 1 and abs(b.cy - seven.cy) < 1)
    below = [b for b in frame.blobs if b.size > 0.5 * seven.size and 0 < b.cy - seven.cy < 2 * ext
             and abs(b.cx - seven.cx) < ext]
    assert len(below) == 1  # the club under the 7
    suits = {c.suit.idx for c in pair_candidates(frame) if c.rank == (seven,)}
    assert below[0].idx in suits

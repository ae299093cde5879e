"""Photos of one known card (`Shot`), labelled for a deck store: its corner indices named, the rest "-".

Calibration shows the deck's own cards one at a time, flattened to the card. Every candidate on such a photo is
labelled: the printed corner indices with the card, everything else (pips, court art, wrong pairings) "-" so it
votes against naming.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from .deck_reader import NOT_INDEX
from .index_pairing import Candidate
from .lone_marks import is_mark
from .store_rows import Labelled, candidates, labelled


@dataclass
class Shot:
    """One photo of one known card, flattened to the card (any rotation by 90°)."""

    card: str
    image: np.ndarray
    name: str = ""


def upright(card_image: np.ndarray) -> np.ndarray:
    """A card photo turned portrait (indices sit in the corners of the short edges)."""
    h, w = card_image.shape[:2]
    return cv2.rotate(card_image, cv2.ROTATE_90_CLOCKWISE) if w > h else card_image


def index_mask(cands: Sequence[Candidate], size: tuple[int, int], *, corner_x: float = 0.25,
               corner_y: float = 0.22) -> np.ndarray:
    """Which candidates of a flattened, portrait card are its printed corner indices.

    An index sits in a corner, reads along the card's long side with the rank
    nearer the short edge: at the top corners the rank is above the suit, at
    the bottom corners (printed upside down) below it.
    """
    w, h = size
    out = np.zeros(len(cands), bool)
    for i, c in enumerate(cands):
        top = c.cy < h / 2
        in_corner = min(c.cx, w - c.cx) < corner_x * w and min(c.cy, h - c.cy) < corner_y * h
        # a lone mark (a Joker's) reads either way up: both of its readings are the card
        out[i] = in_corner and abs(c.uy) > 0.8 and (is_mark(c) or (c.uy > 0) == top)
    return out


def relit(image: np.ndarray) -> list[np.ndarray]:
    """The shot as taken, plus a warmer dimmer and a cooler brighter version (a lamp switched on later
    still matches)."""
    f = image.astype(np.float32)
    warm = f * np.array([0.8, 0.9, 1.0], np.float32) * 0.8
    cool = f * np.array([1.1, 1.0, 0.85], np.float32) * 1.1
    return [image] + [np.clip(v, 0, 255).astype(np.uint8) for v in (warm, cool)]


def label_shot(shot: Shot) -> Labelled:
    """Every candidate on a card shot, labelled with the card or "-"."""
    img = upright(shot.image)
    cands, x, _, size = candidates(img)
    is_index = index_mask(cands, size)
    return labelled(cands, x, [shot.card if ok else NOT_INDEX for ok in is_index])

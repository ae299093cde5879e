"""Checks a named corner index must pass before its name is reported.

All limits here were measured on project-rendered indices only (TrueType and
Hershey faces, tools/train_index_classifier.py scenes): the real photographs
are never used to choose them.

- Mirror symmetry: a lone suit pip (a club or heart from a card's centre
  pattern paired with its neighbour pip) is left-right symmetric; rank glyphs
  such as 4, 7 or J are not. A rank patch more symmetric than any rendered
  instance of that rank (plus a margin) is a pip, not that rank.
- One blob, one index: a rank or suit blob already used by a more confident
  named index cannot be read again as part of another.
"""
from __future__ import annotations

import numpy as np

from .index_detect import RANK_PATCH, Candidate, Frame, _patch

# highest mirror-IoU of each rank's patch on 500 rendered validation scenes (seed 31) + 0.03
MIRROR_MAX = {"2": 0.87, "3": 0.85, "4": 0.80, "5": 0.91, "7": 0.70, "10": 0.84, "J": 0.87, "K": 0.83,
              "JOKER": 0.73}
INK = 100


def mirror_iou(p: np.ndarray) -> float:
    a = p > INK
    b = a[:, ::-1]
    return float((a & b).sum()) / max(1, int((a | b).sum()))


def plausible(frame: Frame, cand: Candidate, rank: str) -> bool:
    """Whether the rank glyph of `cand` can be `rank` by the shape checks above."""
    cap = MIRROR_MAX.get(rank)
    if cap is None:
        return True
    p, _, _ = _patch(frame, cand.rank, cand.ux, cand.uy, RANK_PATCH)
    return mirror_iou(p) <= cap

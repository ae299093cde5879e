"""Checks a named corner index must pass before its name is reported (`plausible`).

They veto readings the glyphs cannot be: a heart or diamond needs red ink, a spade or club ink that is not red; a
rank is at most three times its suit's height; a lone pip (symmetric) or a pip paired with its neighbour pip (rank
and suit the same shape) is no index; a "5" needs a 5's left stroke. One blob belongs to one index: that rule is
`recognize.claim`'s. Limits from rendered indices only: docs/vision.md, Shape checks.
"""
from __future__ import annotations

import numpy as np

from .glyph_measures import INK, mirror_iou
from .index_features import RANK_PATCH
from .index_pairing import Candidate
from .ink_blobs import Frame
from .rank_shapes import fine_rank, has_five_stroke
from .upright_patch import _extent, _patch

# a rank patch more symmetric than this (its mirror IoU) is a lone pip: each rank's highest on rendered true indices
# plus 0.03 (docs/vision.md, Shape checks)
MIRROR_MAX = {"2": 0.87, "3": 0.85, "4": 0.80, "5": 0.91, "7": 0.70, "10": 0.84, "J": 0.87, "K": 0.83,
              "JOKER": 0.73}
# a rank patch overlapping its suit drawn the same way more than this is a pip paired with a pip: each rank's
# highest on rendered true indices plus 0.03; "10" (a ring, as round as many pips) is not checked
SAME_SHAPE_MAX = {"A": 0.68, "2": 0.69, "3": 0.73, "4": 0.76, "5": 0.76, "6": 0.84, "7": 0.62, "8": 0.79,
                  "9": 0.79, "J": 0.72, "Q": 0.82, "K": 0.70, "JOKER": 0.83}
# a rank's height over its suit's: printed indices are 1.2-2 and 99% of rendered ones under 3; court art read as a
# rank over a pip (a King's robe) stands 3.5-4.2
RANK_OVER_SUIT_MAX = 3.0
RED_SUIT_MIN = 50  # a heart or diamond's suit blob is read red (`Blob.red`: ink_blobs.RED_FEATURE, or 0)


def same_shape_iou(rank_patch: np.ndarray, frame: Frame, cand: Candidate) -> float:
    """Overlap of the rank patch with the suit blob drawn the same way (1.0: the same shape)."""
    s, _, _ = _patch(frame, (cand.suit,), cand.ux, cand.uy, RANK_PATCH)
    a, b = rank_patch > INK, s > INK
    return float((a & b).sum()) / max(1, int((a | b).sum()))


def rank_over_suit(cand: Candidate) -> float:
    """The rank's ink height over its suit's, both along the index's rank-to-suit direction."""
    _, _, top, bottom = _extent(np.concatenate([b.pts for b in cand.rank]), 0.0, 0.0, cand.ux, cand.uy)
    _, _, s_top, s_bottom = _extent(cand.suit.pts, 0.0, 0.0, cand.ux, cand.uy)
    return (bottom - top) / max(s_bottom - s_top, 1.0)


def plausible(frame: Frame, cand: Candidate, rank: str, suit: str = "") -> bool:
    """Whether `cand` can be read as `rank` (and `suit`, "" for a Joker) by the checks above. Each answer is kept
    on the candidate: a reading is checked for its corner pair and again for its claim."""
    known = cand.checked.get((rank, suit))
    if known is None:
        known = cand.checked[(rank, suit)] = _plausible(frame, cand, rank, suit)
    return known


def _plausible(frame: Frame, cand: Candidate, rank: str, suit: str) -> bool:
    """`plausible`, checked."""
    if suit in ("H", "D") and cand.suit.red < RED_SUIT_MIN or suit in ("S", "C") and cand.suit.is_red:
        return False
    if rank != "JOKER" and rank_over_suit(cand) > RANK_OVER_SUIT_MAX:
        return False
    cap = MIRROR_MAX.get(rank)
    same = SAME_SHAPE_MAX.get(rank)
    if cap is None and same is None:
        return True
    p, _, _ = _patch(frame, cand.rank, cand.ux, cand.uy, RANK_PATCH)
    if cap is not None and mirror_iou(p) > cap:
        return False
    if same is not None and same_shape_iou(p, frame, cand) > same:
        return False
    return rank != "5" or has_five_stroke(fine_rank(frame, cand))

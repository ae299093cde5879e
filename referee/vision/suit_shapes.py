"""Shape tests on a suit pip that settle the readers' doubts: spade or club, heart or diamond.

Where a pip read as one suit has that suit's shape, `recognize` adds the partner suit's probability to it; a
shape never renames a suit. Pips are drawn upright at `STROKE_PATCH` px. Every limit was chosen on rendered pips
only, the widest that let at most about 0.2% of the partner suit through: docs/vision.md, Shape checks.
"""
from __future__ import annotations

import cv2
import numpy as np

from .glyph_measures import (STROKE_PATCH, _both_sides, _upper_dents, deepest_upper_dent, lobe_gaps, stem_neck,
                             width_near_top)
from .index_pairing import Candidate
from .ink_blobs import Frame
from .upright_patch import _patch

SPADE_TIP_MAX = 0.35  # a spade's ink 10% below its top spans under 35% of its width: a point, not a club's lobe
CLUB_DENT_MAX = 0.045  # and no dent in its upper 60% is 4.5% of its height deep (a printed spade's sides curve in
#                       4-5% below its point)
SPADE_GAPS_MAX = 0.04  # and no dents this deep on both sides: no gaps between lobes
STEM_NECK_MAX = 0.2  # a pip drawn sharply enough to show its stem: a row 65-95% down spans under 20% of its width
SHARP_SPADE_DENT_MAX = 0.06  # such a pip is a spade with sides curving in up to 6% (no dent that deep in its upper 60%)
SHARP_SPADE_GAPS_MAX = 0.055  # and under 5.5% on both sides (blurred pips keep the stricter limits above: a blurred
#                              club's lobes melt into a spade-like blob)
CLUB_GAPS_MIN = 0.10  # a club has a gap over 10% of its height deep between its top lobe and each side lobe
CLUB_TOP_MIN = 0.30  # and its top lobe's ink 10% below its top spans over 30% of its width
DIAMOND_TIP_MAX = 0.40  # a diamond's ink 10% below its top spans under 40% of its width: a point, not a heart's lobes
DIAMOND_DENT_MAX = 0.07  # and no dent in its upper 60% is 7% of its height deep: no notch between lobes
HEART_TOP_MIN = 0.70  # a heart's ink 10% below its top spans over 70% of its width: two lobes
HEART_DENT_MIN = 0.07  # with a notch between them over 7% of its height deep
STUB_OPEN = 3  # px at STROKE_PATCH: a pip failing its shape test is tried again opened by this much (a stub of
# a card's printed edge, 1-2 px thick there, dents a spade or a diamond like a lobe gap or a notch)
_STUB_KERNEL = np.ones((STUB_OPEN, STUB_OPEN), np.uint8)


def suit_shaped(frame: Frame, cand: Candidate, suit: str) -> bool:
    """Whether the candidate's suit blob has the shape of `suit`: a spade's or a diamond's point and no gaps
    between lobes, a club's three lobes with a gap on each side of the top one, or a heart's two lobes with a
    notch; as drawn, or once opened by `STUB_OPEN` px (a stub of a card's printed edge left on the pip)."""
    p, _, _ = _patch(frame, (cand.suit,), cand.ux, cand.uy, STROKE_PATCH)
    return pip_shaped(p, suit) or pip_shaped(without_stubs(p), suit)


def without_stubs(p: np.ndarray) -> np.ndarray:
    """A drawn pip opened by `STUB_OPEN` px: strokes thinner than that (a stub of a card's printed edge) gone."""
    return cv2.morphologyEx(p, cv2.MORPH_OPEN, _STUB_KERNEL)


def pip_shaped(p: np.ndarray, suit: str) -> bool:
    """Whether a drawn pip (`STROKE_PATCH` px) has the shape of `suit` (see `suit_shaped`)."""
    if suit == "S":
        return spade_outline(p)
    if suit == "C":  # the top width first: it is the cheaper test
        return width_near_top(p) > CLUB_TOP_MIN and lobe_gaps(p) > CLUB_GAPS_MIN
    if suit == "D":
        return width_near_top(p) < DIAMOND_TIP_MAX and deepest_upper_dent(p) < DIAMOND_DENT_MAX
    if suit == "H":
        return width_near_top(p) > HEART_TOP_MIN and deepest_upper_dent(p) > HEART_DENT_MIN
    return False


def spade_outline(p: np.ndarray) -> bool:
    """A drawn pip with a spade's point and no gaps between lobes: its top narrow, no dent in its upper 60% as
    deep as `CLUB_DENT_MAX`, and not a dent of `SPADE_GAPS_MAX` on both sides (a club's, however shallow).
    Printed spades' sides curve in 4-5% of their height below the point, mostly on one side more than the
    other; rendered clubs with gaps that shallow have them on both sides. A pip sharp enough to show its stem's
    neck may curve in further (SHARP_SPADE_*): a blurred club's lobes melt, its stem with them."""
    if width_near_top(p) >= SPADE_TIP_MAX:
        return False
    dents = _upper_dents(p, 0.6)
    deepest, both = max((d for d, _ in dents), default=0.0), _both_sides(dents)
    if deepest < CLUB_DENT_MAX and both < SPADE_GAPS_MAX:
        return True
    return deepest < SHARP_SPADE_DENT_MAX and both < SHARP_SPADE_GAPS_MAX and stem_neck(p) < STEM_NECK_MAX

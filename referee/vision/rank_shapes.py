"""Shape tests on a rank glyph that settle the readers' doubts: 3 or 5, 6 or 8 (or 5), J or 7, 10 or a ring.

The readers, trained on rendered faces, doubt between such ranks on real cards. Where a glyph has the shape of
what it was read as, `recognize` adds the doubted rank's probability to it; only a "5" shaped as a 3 is renamed.
Glyphs are drawn upright at `STROKE_PATCH` px (`fine_rank`). Every limit was chosen on rendered glyphs only:
docs/vision.md, Shape checks.
"""
from __future__ import annotations

import numpy as np

from .glyph_measures import (STROKE_PATCH, _row_extents, counter_heights, left_stroke, right_return, right_waist,
                             top_indent, top_left_ink)
from .index_pairing import Candidate
from .ink_blobs import SOLID_FILL, Blob, Frame
from .upright_patch import _extent, _patch

THREE_RETURN_MIN = 2 / 3  # a 3 has ink in the right 45% of more than 2/3 of its rows 20-35% down (its upper stroke)
THREE_WAIST_MIN = 0.05  # and its right edge dips in over 5% of its width (2 px drawn) at a waist 20-65% down
SIX_TOP_INDENT_MIN = 0.15  # a 6's ink in its top 12% of rows starts over 15% of its width in from its left edge
SIX_CORNER_INK_MAX = 0.38  # and under 38% of its top-left corner (top 20%, left 30%) is ink
TEN_BAR_WIDTH_MAX = 0.45  # a 10's "1" is a bar: under 0.45 of its height wide
TEN_BAR_HEIGHT = (0.75, 1.3)  # and about as tall as its "0" (times the ring's height)
TEN_GAP_MAX = 0.6  # with at most 0.6 of the ring's height of paper between them
TEN_ALIGN_MAX = 0.2  # their middles at most 0.2 of the ring's height apart up and down
SOLID_BAR_MIN_PX = 12  # a solid part that small beside a ring is a speck, not a 10's bar
JACK_FOOT_MIN = 0.6  # a J's widest ink row in its bottom quarter spans over 60% of its width (its hook to its stem)
JACK_DRIFT_MAX = 0.08  # and its right edge moves under 8% of its width from 30% to 65% down (an upright stem)


def has_five_stroke(fine: np.ndarray) -> bool:
    """Whether a glyph (drawn at STROKE_PATCH) has a 5's upright stroke: ink in its left quarter on every row
    from 15% to 45% of its height."""
    return left_stroke(fine) >= 0.999


def fine_rank(frame: Frame, cand: Candidate) -> np.ndarray:
    """The candidate's rank glyph drawn upright at STROKE_PATCH, for the shape tests."""
    return _patch(frame, cand.rank, cand.ux, cand.uy, STROKE_PATCH)[0]


def five_is_three(frame: Frame, cand: Candidate) -> bool:
    """Whether a candidate read "5" is a 3 (`three_shaped`)."""
    return three_shaped(fine_rank(frame, cand))


def three_shaped(fine: np.ndarray) -> bool:
    """Whether a glyph (drawn by `fine_rank`) read "5" is a 3: no 5's left stroke, a 3's upper stroke on the right
    below its top and a 3's waist (a 5's bowl alone, its top stroke broken off, has neither a left stroke nor a
    waist)."""
    return not has_five_stroke(fine) and right_return(fine) > THREE_RETURN_MIN and has_three_waist(fine)


def seven_not_three(frame: Frame, cand: Candidate) -> bool:
    """Whether a candidate read "7" is no 3: its right edge has no 3's waist (a 7's runs down-left in one
    stroke)."""
    return not has_three_waist(fine_rank(frame, cand))


def has_three_waist(fine: np.ndarray) -> bool:
    """Whether a glyph's (drawn by `fine_rank`) right edge dips in at a 3's waist."""
    return right_waist(fine) > THREE_WAIST_MIN


def jack_not_seven(frame: Frame, cand: Candidate) -> bool:
    """Whether a candidate read "J" is no 7: an upright stem down its right side ending in a hook that spans its
    foot (a 7's stroke runs down-left to a narrow foot)."""
    return jack_shaped(fine_rank(frame, cand))


def jack_shaped(fine: np.ndarray) -> bool:
    """A glyph (drawn by `fine_rank`) with a J's stem and hook: taller than wide, its bottom quarter's widest row
    spans over `JACK_FOOT_MIN` of its width and its right edge drifts under `JACK_DRIFT_MAX` between 30% and 65%
    down."""
    rows = _row_extents(fine)
    if rows is None:
        return False
    w, h, inked, left, right = rows
    foot = slice(int(0.75 * h), h)
    spans = np.where(inked[foot], right[foot] - left[foot] + 1, 0)
    upper, lower = int(0.30 * h), int(0.65 * h)
    if h < w or not (inked[upper] and inked[lower]):  # a J stands upright; a lone bar is no J
        return False
    return spans.max() > JACK_FOOT_MIN * w and abs(int(right[upper]) - int(right[lower])) < JACK_DRIFT_MAX * w


def six_or_eight(fine: np.ndarray) -> str | None:
    """"6" for a glyph (drawn by `fine_rank`) with one counter, in its lower half; "8" for two, one in each
    half; else None."""
    counters = counter_heights(fine)
    if len(counters) == 1 and counters[0] > 0.5:
        return "6"
    if len(counters) == 2 and counters[0] < 0.5 < counters[1]:
        return "8"
    return None


def six_not_five(fine: np.ndarray) -> bool:
    """Whether a glyph's (drawn by `fine_rank`) top is a 6's, not a 5's: its top row of ink starts well in from
    its left edge and its top-left corner is mostly paper (a 5 whose bowl damage closed has a 6's counter,
    never a 6's top)."""
    return top_indent(fine) > SIX_TOP_INDENT_MIN and top_left_ink(fine) < SIX_CORNER_INK_MAX


def _box(blob: Blob, ux: float, uy: float) -> tuple[float, float, float, float]:
    """The blob's extent (left, right, top, bottom) in an index frame with "down" along (ux, uy)."""
    return _extent(blob.pts, 0.0, 0.0, ux, uy)


def _solid_parts(frame: Frame, blob: Blob, reach: float) -> list[np.ndarray]:
    """Pixel coordinates of the ink parts within `reach` of `blob`'s centre that `find_blobs` set aside as
    solid (filling over `SOLID_FILL` of their box): a "1" bar printed square to the image is one, and so is a
    stripe of the tablecloth; only the bar's size and place beside a ring make it a 10's."""
    H, W = frame.labels.shape
    x0, y0 = max(0, int(blob.cx - reach)), max(0, int(blob.cy - reach))
    x1, y1 = min(W, int(blob.cx + reach) + 1), min(H, int(blob.cy + reach) + 1)
    win = frame.labels[y0:y1, x0:x1]
    ids, counts = np.unique(win, return_counts=True)
    kept = {b.idx for b in frame.blobs}
    out = []
    for i, n in zip(ids, counts):
        if i == 0 or i in kept or n < SOLID_BAR_MIN_PX:
            continue
        ys, xs = np.nonzero(win == i)
        if n > SOLID_FILL * (np.ptp(xs) + 1) * (np.ptp(ys) + 1):
            out.append(np.stack([xs + x0, ys + y0], 1).astype(np.float32))
    return out


def ten_shaped(frame: Frame, cand: Candidate) -> bool:
    """Whether the index is a 10: a ring (one counter, mid-height) with a thin upright bar about its height on its
    left. The bar is the rank's other glyph, or, for a ring offered alone, an ink blob of its colour beside it or
    a solid part (a plain bar square to the image, which is no blob)."""
    ux, uy = cand.ux, cand.uy
    boxes = sorted(((_box(b, ux, uy), b) for b in cand.rank), key=lambda t: t[0][0])
    if len(boxes) > 2:
        return False
    (r0, _, rt, rb), ring = boxes[-1]
    h = rb - rt
    counters = counter_heights(_patch(frame, (ring,), ux, uy, STROKE_PATCH)[0])
    if len(counters) != 1 or not 0.3 < counters[0] < 0.7:  # a ring's counter sits mid-glyph; a 6's or 9's does not
        return False
    if len(boxes) == 2:
        bars = [boxes[0][1].pts]
    else:
        bars = [b.pts for b in frame.blobs if b.idx != ring.idx and b.is_red == ring.is_red
                and abs(b.cx - ring.cx) < 2 * h and abs(b.cy - ring.cy) < 2 * h] + _solid_parts(frame, ring, 2 * h)
    for bar in bars:
        b0, b1, bt, bb = _extent(bar, 0.0, 0.0, ux, uy)
        bh = bb - bt
        if (TEN_BAR_HEIGHT[0] * h < bh < TEN_BAR_HEIGHT[1] * h and b1 - b0 < TEN_BAR_WIDTH_MAX * bh
                and -0.1 * h < r0 - b1 < TEN_GAP_MAX * h and  # touching, or a little overlap, counts
                abs((bt + bb) - (rt + rb)) / 2 < TEN_ALIGN_MAX * h):
            return True
    return False

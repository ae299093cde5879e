"""Measures of one glyph or pip drawn upright in a uint8 patch: its ink box, its edges row by row, its counters
and the dents in its outline. The shape tests (`rank_shapes`, `suit_shapes`, `index_vetoes`) are built on them.
Fractions are of the glyph's own ink box, so they do not depend on the patch size."""
from __future__ import annotations

import cv2
import numpy as np

from .glyph_counters import enclosed_paper

INK = 100  # a patch pixel above this is ink
STROKE_PATCH = 40  # px: the shape tests draw glyphs finer than the readers' patches (a 20 px row is 5% of a glyph)


def mirror_iou(p: np.ndarray) -> float:
    """Overlap of the patch's ink with its own left-right mirror image (1.0: symmetric, as a lone pip is)."""
    a = p > INK
    b = a[:, ::-1]
    return float((a & b).sum()) / max(1, int((a | b).sum()))


def _ink_box(p: np.ndarray) -> tuple[int, int, int, int] | None:
    """(left, top, width, height) of the patch's ink, or None for a blank patch."""
    ys, xs = np.nonzero(p > INK)
    if len(xs) == 0:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


def _row_extents(p: np.ndarray) -> tuple[int, int, np.ndarray, np.ndarray, np.ndarray] | None:
    """(width, height, whether each row has ink, its leftmost and rightmost ink column) over the patch's ink box,
    columns counted from the box's left; None for a blank patch. The edge tests read the glyph's outline so."""
    box = _ink_box(p)
    if box is None:
        return None
    x0, y0, w, h = box
    ink = p[y0:y0 + h, x0:x0 + w] > INK
    return w, h, np.asarray(ink.any(1)), ink.argmax(1), w - 1 - ink[:, ::-1].argmax(1)


def band_rows(p: np.ndarray, top: float, bottom: float, left: float, right: float) -> float:
    """Fraction of glyph rows between `top` and `bottom` of its height with ink between `left` and `right` of
    its width."""
    box = _ink_box(p)
    if box is None:
        return 0.0
    x0, y0, w, h = box
    xa = x0 + int(round(left * w))
    reg = p[y0 + int(round(top * h)):y0 + int(round(bottom * h)), xa:max(xa + 1, x0 + int(round(right * w)))] > INK
    return float(reg.any(1).mean()) if reg.size else 0.0


def top_indent(p: np.ndarray, rows: float = 0.12) -> float:
    """How far right of the glyph's left edge its ink starts in its top `rows` (a fraction of its width): a 6's
    top curls in from its middle, a 5's bar starts at its upright stroke."""
    box = _ink_box(p)
    if box is None:
        return 0.0
    x0, y0, w, h = box
    cols = np.flatnonzero((p[y0:y0 + max(1, int(round(rows * h))), x0:x0 + w] > INK).any(0))
    return float(cols[0]) / float(w) if len(cols) else 1.0


def top_left_ink(p: np.ndarray, rows: float = 0.2, cols: float = 0.3) -> float:
    """Share of the glyph's top-left corner (its top `rows`, left `cols`) that is ink: a 5's corner, where its
    bar meets its upright stroke, is solid; a 6's is mostly the paper outside its curve."""
    box = _ink_box(p)
    if box is None:
        return 1.0
    x0, y0, w, h = box
    return float((p[y0:y0 + int(round(rows * h)), x0:x0 + int(round(cols * w))] > INK).mean())


def left_stroke(p: np.ndarray, band: float = 0.25, top: float = 0.15, bottom: float = 0.45) -> float:
    """Fraction of glyph rows between `top` and `bottom` of its height with ink in its left `band`."""
    return band_rows(p, top, bottom, 0.0, band)


def right_return(p: np.ndarray) -> float:
    """Fraction of glyph rows 20-35% down with ink in the right 45%: a 3's upper stroke, a 5's empty corner."""
    return band_rows(p, 0.20, 0.35, 0.55, 1.0)


def right_waist(p: np.ndarray, top: float = 0.2, bottom: float = 0.65) -> float:
    """How deep (fraction of the glyph's width) its right edge dips in between a reach above and a reach below,
    deepest among rows `top` to `bottom` of its height: a 3's cusp between its two strokes; a lone bowl's ")"
    has one bulge and no dip."""
    rows = _row_extents(p)
    if rows is None:
        return 0.0
    w, h, inked, _, right = rows
    right = np.where(inked, right, -1)
    above = np.maximum.accumulate(right)
    below = np.maximum.accumulate(right[::-1])[::-1]
    dip = np.where(inked, np.minimum(above, below) - right, 0)  # a row with no ink (a broken glyph) is no dip
    band = slice(int(top * h), max(int(top * h) + 1, int(bottom * h)))
    return float(dip[band].max()) / w


def counter_heights(p: np.ndarray, min_area: int = 4) -> list[float]:
    """Centre heights (0 top, 1 bottom of the glyph) of the glyph's enclosed counters of at least `min_area` px."""
    box = _ink_box(p)
    if box is None:
        return []
    _, y0, _, h = box
    return sorted((c - y0) / h for c in enclosed_paper(p > INK, min_area))


def width_near_top(p: np.ndarray, depth: float = 0.10) -> float:
    """Width of the ink row `depth` of the glyph's height below its top, as a fraction of the glyph's width."""
    box = _ink_box(p)
    if box is None:
        return 1.0
    _, y0, w, h = box
    row = np.flatnonzero(p[y0 + int(round(depth * h))] > INK)
    return float(row[-1] - row[0] + 1) / float(w) if len(row) else 0.0


def _upper_dents(p: np.ndarray, upper: float) -> list[tuple[float, float]]:
    """(depth, side) of each dent in the outline of the glyph's largest ink part whose deepest point lies in its
    upper `upper`: depth as a fraction of the part's height, side < 0 left of its middle, > 0 right."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats((p > INK).astype(np.uint8))
    if n < 2:
        return []
    part = (labels == 1 + int(stats[1:, cv2.CC_STAT_AREA].argmax())).astype(np.uint8)
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(outline, returnPoints=False)
    if len(hull) < 4:
        return []
    try:
        dents = cv2.convexityDefects(outline, hull)
    except cv2.error:  # a self-touching outline (rare at this size): no dents measured
        return []
    if dents is None:
        return []
    x, y = outline[:, 0, 0], outline[:, 0, 1]
    top, height, middle = int(y.min()), int(y.max() - y.min() + 1), (int(x.min()) + int(x.max())) / 2
    far, depth = dents.reshape(-1, 4)[:, 2], dents.reshape(-1, 4)[:, 3]
    upper_ones = y[far] - top < upper * height   # all dents at once, not a Python loop over them
    return list(zip((depth[upper_ones] / 256.0 / height).tolist(), (x[far[upper_ones]] - middle).tolist()))


def deepest_upper_dent(p: np.ndarray, upper: float = 0.6) -> float:
    """Depth (fraction of the glyph's height) of the deepest dent in the outline of its largest ink part,
    among dents whose deepest point lies in the upper `upper` of the glyph (a club's gaps between lobes)."""
    return max((d for d, _ in _upper_dents(p, upper)), default=0.0)


def lobe_gaps(p: np.ndarray, upper: float = 0.6) -> float:
    """Depth of the shallower of the deepest upper dents left and right of the glyph's middle: a club has a
    gap between its top lobe and each side lobe; a damaged spade rarely has one on both sides."""
    return _both_sides(_upper_dents(p, upper))


def _both_sides(dents: list[tuple[float, float]]) -> float:
    """The shallower of the deepest dent left and the deepest right of the middle (`_upper_dents`)."""
    return min(max((d for d, side in dents if side < 0), default=0.0),
               max((d for d, side in dents if side > 0), default=0.0))


def stem_neck(p: np.ndarray, top: float = 0.65, bottom: float = 0.95) -> float:
    """The narrowest ink row between `top` and `bottom` of the pip's height with a row at least as wide below it, as
    a fraction of the pip's width: a stem drawn sharply is a narrow neck above its foot (0.1-0.3); a blurred pip's
    bottom is a blob (0.4 and over); a pip narrowing to a point has no row below as wide (1.0, no neck)."""
    rows = _row_extents(p)
    if rows is None:
        return 1.0
    w, h, inked, left, right = rows
    lower = slice(int(top * h), h)
    # rows without ink are no neck (a pip is one blob; a gap is damage)
    widths = (right - left + 1)[lower][inked[lower]]
    band = int(bottom * h) - int(top * h)
    below = np.maximum.accumulate(widths[::-1])[::-1]  # the widest row from each row down
    necks = [widths[j] for j in range(min(band, len(widths) - 1)) if below[j + 1] >= widths[j]]
    return float(min(necks)) / float(w) if necks else 1.0

"""Cut lines (a card's edge, a covering card's printed border) off the pips and glyphs they touch.

A glyph merged with a line reads as another glyph or as nothing. Both cuts work in place on OpenCV's
connected-component labels, stats and centres, before `ink_blobs.find_blobs` keeps the glyph-sized parts.
Limits: docs/vision.md, Cutting lines off glyphs.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

LINE_SPAN_MAX = 0.95    # a pip cut free of a line spans at most 0.95 of the merged blob: the line reached beyond
LINE_CORE_KEEPS = 0.4   # and keeps at least 0.4 of its ink
LINE_BLOB_AREA_MAX = 1500  # px at working size: a pip and its line, not a patch of table
LINE_INK_PER_PX = 2.0   # what is cut has at most 2 px of ink per px of its length: a line, not a glyph's stroke
LINE_FILL_MAX = 0.6     # a pip with a line fills under 0.6 of its box


def _keep_part(labels: np.ndarray, stats: np.ndarray, cents: np.ndarray, i: int, mine: np.ndarray,
               keep: np.ndarray) -> None:
    """Blob `i` (`mine`, a mask over its box) keeps only its pixels in `keep`: the rest become background and
    its box, area and centre are those of what is kept."""
    bx, by = int(stats[i, 0]), int(stats[i, 1])
    ys, xs = np.nonzero(keep)   # row by row: ys ascends
    labels[by:by + mine.shape[0], bx:bx + mine.shape[1]][mine & ~keep] = 0
    x0, x1 = int(xs.min()), int(xs.max())
    stats[i] = (bx + x0, by + int(ys[0]), x1 - x0 + 1, int(ys[-1] - ys[0]) + 1, len(xs))
    # integer sums over the count: np.mean's own float64 sum of these small integers is exact, so the same centre
    cents[i] = (bx + int(xs.sum()) / len(xs), by + int(ys.sum()) / len(ys))


def _by_label(lab: np.ndarray, px: np.ndarray, width: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Pixels (flat positions `px` in an image `width` wide, row by row, and their labels `lab`) grouped by label,
    each label's still row by row: (labels, (rows, columns)). Lets one pass serve every blob."""
    order = np.argsort(lab, kind="stable")
    return lab[order], np.divmod(px[order], width)


def trim_lines(ink: np.ndarray, labels: np.ndarray, stats: np.ndarray, cents: np.ndarray, min_h: int) -> None:
    """Cut thin lines (a card's edge, the next card's shadow) off the solid pips they touch.

    A pip merged with a line reads as no suit at all. The pip's core survives a 3x3 opening, the line does
    not: a blob whose core spans at most `LINE_SPAN_MAX` of it keeps its core grown back by a pixel inside the
    blob, when the cut part is line-thin. Glyph strokes the opening also removes (a 5's bar, a 7's leg) fail
    these tests and stay. Updates `labels`, `stats` and `cents` in place."""
    core = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    core_px = np.flatnonzero(core.view(bool))   # row by row
    core_lab = labels.ravel()[core_px]
    kept = np.bincount(core_lab, minlength=len(stats))
    x, y, w, h, area = (stats[:, k] for k in range(5))
    ext = np.maximum(w, h)
    # a solid pip keeps much of its ink; with a line its box grows emptier
    maybe = ((kept >= 0.25 * area) & (area >= 20) & (area < LINE_FILL_MAX * w * h) & (area <= LINE_BLOB_AREA_MAX)
             & (ext * LINE_SPAN_MAX >= min_h))
    maybe[0] = False
    todo = np.flatnonzero(maybe)
    if not len(todo):
        return
    # every candidate's core extent at once (box by box was slow), row by row within a blob
    of_todo = maybe[core_lab]
    lab, (cy, cx) = _by_label(core_lab[of_todo], core_px[of_todo], labels.shape[1])
    first = np.searchsorted(lab, todo)
    last = np.searchsorted(lab, todo, side="right") - 1
    col_span = np.maximum.reduceat(cx, first) - np.minimum.reduceat(cx, first)
    span = np.maximum(cy[last] - cy[first], col_span) + 3  # grown back by a pixel each side
    grow = np.ones((3, 3), np.uint8)
    for i in todo[(span <= LINE_SPAN_MAX * ext[todo]) & (span >= min_h)].tolist():
        bx, by, bw, bh = int(x[i]), int(y[i]), int(w[i]), int(h[i])
        mine = labels[by:by + bh, bx:bx + bw] == i
        keep = cv2.dilate(core[by:by + bh, bx:bx + bw] & mine.view(np.uint8), grow).view(bool) & mine
        if np.count_nonzero(keep) < LINE_CORE_KEEPS * area[i]:
            continue
        rys, rxs = np.nonzero(mine & ~keep)   # row by row: rys ascends
        if not len(rxs) or len(rxs) > LINE_INK_PER_PX * max(int(rxs.max() - rxs.min()) + 1, int(rys[-1] - rys[0]) + 1):
            continue
        _keep_part(labels, stats, cents, i, mine, keep)


THIN_MIN_SPAN = 5        # px at working size: shorter pieces are a glyph's serifs and corners
THIN_INK_PER_PX = 1.3    # a hairline has at most 1.3 px of ink per px of its length (a glyph's thin bar has more)
THIN_STRAIGHT_SD = 0.7   # px: a straight piece's ink lies within this spread across its own axis
THIN_CURVED_SPAN = 1.3   # a piece that is not straight is cut only when it reaches 1.3 times the glyph's core
THIN_POKES_OUT = 2       # px a piece must reach out of the core's box: inside it, it is the glyph's own stroke
THIN_KEEPS = 0.5         # the glyph left must keep half the blob's ink
THIN_KEPT_STRAIGHT_SD = 1.2  # and not be a line itself (a 10's "1", a hairline cut from a hairline)
_SQUARE2 = np.ones((2, 2), np.uint8)
_SQUARE3 = np.ones((3, 3), np.uint8)


def _axis_spread(xs: np.ndarray, ys: np.ndarray) -> float:
    """The standard deviation of points across their own main axis (px): about 0.3 for a one-pixel line."""
    x, y = xs - xs.mean(), ys - ys.mean()
    a, b, c = float(x @ x) / len(x), float(x @ y) / len(x), float(y @ y) / len(x)
    # the smaller eigenvalue of the 2 x 2 covariance in closed form (quicker than np.linalg.eigvalsh)
    return math.sqrt(max((a + c) / 2 - math.hypot((a - c) / 2, b), 0.0))


def trim_thin_lines(labels: np.ndarray, stats: np.ndarray, cents: np.ndarray, min_h: int, max_h: int) -> None:
    """Cut hairlines (a covering card's printed edge, its rounded corner) off the glyphs they touch.

    A rank glyph merged with the next card's edge line reads as another rank or as nothing (a 5 as a K or a
    Q). The glyph's strokes survive a 2x2 opening, a one-pixel line does not; what the opening
    removes (less the pixel the core grows back) is cut where it is a hairline: at least `THIN_MIN_SPAN` long,
    about a pixel wide, reaching out of the glyph's core, and straight (or, curved, longer than the core). Blobs that
    are lines themselves and glyph strokes inside the core's box stay. Updates `labels`, `stats` and `cents`
    in place; a cut blob keeps its largest remaining piece."""
    ink = (labels > 0).view(np.uint8)
    core = cv2.morphologyEx(cv2.copyMakeBorder(ink, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0), cv2.MORPH_OPEN,
                            _SQUARE2)[1:-1, 1:-1]
    # an opening never joins two 8-connected components, so the whole-image core is each blob's own
    thin = cv2.subtract(ink, cv2.dilate(core, _SQUARE3))
    n, pieces = cv2.connectedComponentsWithAlgorithm(thin, 8, cv2.CV_32S, cv2.CCL_BBDT)
    # each piece's extent and ink from its few pixels (OpenCV's stats pass over the whole image costs more)
    thin_px = np.flatnonzero(thin.view(bool))
    lab, (ys, xs) = _by_label(pieces.ravel()[thin_px], thin_px, labels.shape[1])
    starts = np.flatnonzero(np.diff(lab, prepend=-1))
    piece_area = np.zeros(n, np.int64)
    span = np.zeros(n, np.int64)
    if len(starts):
        ends = np.append(starts[1:], len(lab)) - 1    # each piece's pixels still row by row: its rows are its ends
        found = lab[starts]
        piece_area[found] = ends - starts + 1
        span[found] = np.maximum(np.maximum.reduceat(xs, starts) - np.minimum.reduceat(xs, starts),
                                 ys[ends] - ys[starts]) + 1
    hair = (span >= THIN_MIN_SPAN) & (piece_area <= THIN_INK_PER_PX * span)
    hair[0] = False
    if not hair.any():
        return
    x, y, w, h, area = (stats[:, k] for k in range(5))
    ext = np.maximum(w, h)
    glyph_sized = (ext >= min_h) & (ext <= max_h) & (area >= 20) & (area <= LINE_BLOB_AREA_MAX)
    # a piece is connected ink, so all of it lies in one blob: any one of its pixels names its owner (all at once)
    hair_px = thin_px[hair[pieces.ravel()[thin_px]]]
    found, first = np.unique(pieces.ravel()[hair_px], return_index=True)
    owners: dict[int, list[int]] = {}
    for piece, owner in zip(found.tolist(), labels.ravel()[hair_px[first]].tolist()):
        if glyph_sized[owner]:
            owners.setdefault(owner, []).append(piece)
    for i, js in owners.items():
        bx, by, bw, bh = int(x[i]), int(y[i]), int(w[i]), int(h[i])
        mine = labels[by:by + bh, bx:bx + bw] == i
        core_rows, core_cols = np.nonzero(core[by:by + bh, bx:bx + bw].view(bool) & mine)
        if not len(core_rows):
            continue
        r0, r1, c0, c1 = (int(v) for v in (core_rows.min(), core_rows.max(), core_cols.min(), core_cols.max()))
        core_span = max(r1 - r0, c1 - c0) + 1
        cut = np.zeros(mine.shape, bool)
        for j in js:
            ys, xs = np.nonzero(pieces[by:by + bh, bx:bx + bw] == j)
            pokes = max(c0 - int(xs.min()), int(xs.max()) - c1, r0 - int(ys.min()), int(ys.max()) - r1)
            if pokes >= THIN_POKES_OUT and (_axis_spread(xs, ys) <= THIN_STRAIGHT_SD
                                             or span[j] >= THIN_CURVED_SPAN * core_span):
                cut[ys, xs] = True
        if not cut.any():
            continue
        m, rest, rstats, _ = cv2.connectedComponentsWithStats((mine & ~cut).view(np.uint8), connectivity=8)
        if m < 2:
            continue
        big = 1 + int(np.argmax(rstats[1:, 4]))
        if rstats[big, 4] < THIN_KEEPS * area[i] or max(rstats[big, 2], rstats[big, 3]) < min_h:
            continue
        keep = rest == big
        if _axis_spread(*np.nonzero(keep)[::-1]) <= THIN_KEPT_STRAIGHT_SD:
            continue
        _keep_part(labels, stats, cents, i, mine, keep)

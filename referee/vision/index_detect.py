"""Find corner-index candidates: a rank glyph with its suit symbol beside it.

Ink (black or red print on light card stock) is separated from the card by
comparing each pixel's green channel with the local paper brightness; its colour
is read against that paper (`ink_colour`). Each pair of nearby ink blobs of one
colour (the suit pip's; a rank of no certain colour takes it) becomes a
candidate, read in the pair's own rotated frame (rank above, suit below), so any
card rotation works.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import cast

import cv2
import numpy as np

from .area_shrink import shrink_area
from .ink_colour import DULL, OTHER, RED, balance, could_be_red, ink_contrasts, ink_colour, paper_gains

RANK_PATCH = 20
SUIT_PATCH = 14
CTX_PATCH = 10
N_GEOM = 8
PAPER_FRACTION = 0.35
# what the readers are shown for red ink, however red the camera made it: the median red-minus-green of red glyphs
# on the rendered scenes they were trained on (tools/train_index_classifier.py make_scene, 150 scenes: 114)
RED_FEATURE = 114.0
SOLID_FILL = 0.8  # an ink part filling more of its box is solid (a filled box, a stripe, a plain bar), no glyph
N_FEATURES = RANK_PATCH * RANK_PATCH + SUIT_PATCH * SUIT_PATCH + CTX_PATCH * CTX_PATCH + N_GEOM


@dataclass
class Blob:
    """One connected ink component."""

    idx: int
    x: int
    y: int
    w: int
    h: int
    area: int
    cx: float
    cy: float
    red: float  # RED_FEATURE for red print (`ink_colour`), 0.0 for black
    pts: np.ndarray  # (N, 2) float32 pixel coordinates (x, y)
    dull: bool = False  # dark ink of no certain colour (`ink_colour.DULL`): a rank whose suit pip tells its colour
    reddish: bool = False  # red, or dark ink with less red contrast than green and blue: may be a red index's rank

    @property
    def may_be_red(self) -> bool:
        """Whether it may be the rank of a red index."""
        return self.red > 0 or self.reddish

    @property
    def may_be_black(self) -> bool:
        """Whether it may be the rank of a black index."""
        return self.red <= 0

    @property
    def size(self) -> float:
        return math.sqrt(self.area)

    @property
    def is_red(self) -> bool:
        return self.red > 0


@dataclass
class Candidate:
    """A possible index: rank blob(s) above a suit blob in a rotated frame."""

    rank: tuple[Blob, ...]
    suit: Blob
    ux: float
    uy: float
    scale: float
    cx: float
    cy: float
    # the shape checks' answers by (rank, suit): a reading is checked for its corner pair and again for its claim
    checked: dict[tuple[str, str], bool] = field(default_factory=dict, init=False, repr=False, compare=False)

    @functools.cached_property
    def blob_ids(self) -> frozenset[int]:
        """The blobs it reads (its rank glyphs and its suit): one blob belongs to one index. Kept once drawn:
        claims and corner pairs ask for it ~150 times a photo."""
        return frozenset(b.idx for b in self.rank) | {self.suit.idx}


@dataclass
class Frame:
    """Per-image maps the candidate reader needs."""

    labels: np.ndarray
    norm: np.ndarray  # green channel over local paper brightness, 0..255
    blobs: list[Blob]


def ink_maps(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ink mask, normalised brightness, red-minus-green) for a BGR image."""
    b, g, r = cv2.split(bgr)
    small = cv2.resize(g, (max(1, g.shape[1] // 4), max(1, g.shape[0] // 4)), interpolation=cv2.INTER_AREA)
    bg = cv2.dilate(small, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    bg = cv2.blur(bg, (5, 5))
    bg = cv2.resize(bg, (g.shape[1], g.shape[0]), interpolation=cv2.INTER_LINEAR)
    bg = np.maximum(bg, g)
    norm = cv2.divide(g, bg, scale=255)
    bluish = cv2.subtract(b, r) > 45
    ink = (norm < 165) & (bg > 90) & ~bluish
    redness = cv2.subtract(r, g)
    return ink.astype(np.uint8), norm, redness


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
    each label's still row by row: (labels, (rows, columns))."""
    order = np.argsort(lab, kind="stable")
    return lab[order], np.divmod(px[order], width)


def trim_lines(ink: np.ndarray, labels: np.ndarray, stats: np.ndarray, cents: np.ndarray, min_h: int) -> None:
    """Cut thin lines (a card's edge, the next card's shadow) off the solid pips they touch.

    A pip merged with a line reads as no suit at all (real Bicycle spades under a card edge). The pip's
    core survives a 3x3 opening, the line does not: a blob whose core spans at most `LINE_SPAN_MAX` of it
    keeps its core grown back by a pixel inside the blob, when the cut part is line-thin. Glyph strokes
    the opening also removes (a 5's bar, a 7's leg) fail these tests and stay. Short stubs count too: a pip
    whose core spans up to 0.95 of it, filling up to 0.6 of its box (0.7 and 0.5 until session 24; stock
    reader on scenes-bicycle 1813 -> 1823 of 1935 named, wrong 2 -> 1; Piatnik unchanged). Updates
    `labels`, `stats` and `cents` in place."""
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
    # each one's core extent at once (box by box, it was a fifth of this function's time), row by row within a blob
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
    # the smaller eigenvalue of the 2 x 2 covariance in closed form (np.linalg.eigvalsh: ~4x the time)
    return math.sqrt(max((a + c) / 2 - math.hypot((a - c) / 2, b), 0.0))


def trim_thin_lines(labels: np.ndarray, stats: np.ndarray, cents: np.ndarray, min_h: int, max_h: int) -> None:
    """Cut hairlines (a covering card's printed edge, its rounded corner) off the glyphs they touch.

    A rank glyph merged with the next card's edge line reads as another rank or as nothing (real Bicycle "5"s
    read as K or Q). The glyph's strokes survive a 2x2 opening, a one-pixel line does not; what the opening
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
    # each piece's extent and ink from its pixels (a few thousand: OpenCV's stats pass over the whole image cost
    # more than the labelling)
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


@dataclass
class _Parts:
    """`find_blobs`' ink components before their colour is read: labels, stats, centres, which are glyph-sized
    parts printed on paper (`ok`), the ink and paper masks and the green-over-paper map."""

    labels: np.ndarray
    stats: np.ndarray
    cents: np.ndarray
    ok: np.ndarray
    ink: np.ndarray
    paper: np.ndarray
    norm: np.ndarray


def _glyph_parts(bgr: np.ndarray, min_h: int, max_h: int) -> _Parts:
    """The ink parts of `find_blobs`, colour not yet read."""
    seen = balance(bgr, paper_gains(bgr))   # the paper tests below ask for colourless paper: a warm light is no table
    ink, norm, _ = ink_maps(seen)
    # BBDT: the same labels and stats as the default algorithm (checked on all 1016 real photographs) at
    # about half its time here (0.5 ms against 0.9 ms on a 384 px image)
    _, labels, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(ink, 8, cv2.CV_32S, cv2.CCL_BBDT)
    trim_lines(ink, labels, stats, cents, min_h)
    trim_thin_lines(labels, stats, cents, min_h, max_h)
    x, y, w, h, area = (stats[:, k] for k in range(5))
    ext = np.maximum(w, h)
    ok = (ext >= min_h) & (ext <= max_h) & (area >= 20) & (area <= SOLID_FILL * w * h) & (area >= 0.08 * w * h)
    ok[0] = False
    B, G, R = cv2.split(seen)
    v = cv2.max(cv2.max(B, G), R)
    spread = cv2.subtract(v, cv2.min(cv2.min(B, G), R))
    paper = ((v > 100) & (spread < 0.35 * v)).astype(np.uint8)
    integ = cv2.integral(paper)
    H, W = ink.shape
    m = ext // 2 + 2
    x0, y0 = np.maximum(0, x - m), np.maximum(0, y - m)
    x1, y1 = np.minimum(W, x + w + m), np.minimum(H, y + h + m)
    frac = (integ[y1, x1] - integ[y0, x1] - integ[y1, x0] + integ[y0, x0]) / ((x1 - x0) * (y1 - y0) - area + 1)
    ok &= frac >= PAPER_FRACTION  # printed on a card, not on a busy table
    return _Parts(labels, stats, cents, ok, ink, paper.view(bool), norm)


def glyph_contrasts(bgr: np.ndarray, *, min_h: int = 7, max_h: int = 160
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(centres, areas, contrasts, paper colours) of every glyph-sized ink part on paper whose colour
    `find_blobs` reads (`ink_colour.ink_contrasts`), before any is set aside for its colour: for measuring."""
    parts = _glyph_parts(bgr, min_h, max_h)
    ids = np.flatnonzero(parts.ok)
    contrast, paper_col = ink_contrasts(bgr, parts.labels, ids, parts.paper, parts.ink, parts.stats)
    return parts.cents[ids], parts.stats[ids, 4], contrast, paper_col


def find_blobs(bgr: np.ndarray, *, min_h: int = 7, max_h: int = 160) -> Frame:
    """Connected ink components of glyph size, printed in black or red on light paper (lines cut off pips
    and glyphs)."""
    parts = _glyph_parts(bgr, min_h, max_h)
    labels, stats, cents, ok, ink, norm = parts.labels, parts.stats, parts.cents, parts.ok, parts.ink, parts.norm
    x, y, w, h, area = (stats[:, k] for k in range(5))
    W = ink.shape[1]
    # every kept blob's pixels in one pass, row by row within each blob as its own box lists them (a numpy call or
    # ten a blob cost ~30 us each: ~0.9 ms a photo)
    ids = np.flatnonzero(ok)
    px = np.flatnonzero(np.take(ok, labels))   # np.nonzero over the whole image: 10x slower
    lab, (ys, xs) = _by_label(labels.ravel()[px], px, W)
    counts = np.bincount(lab, minlength=len(ok))[ids].tolist()
    starts = np.concatenate([[0], np.cumsum(counts)]).tolist()
    # red, black, dull or other, each against its own paper (`ink_colour`); the reader is shown one red for every red
    contrast, paper_col = ink_contrasts(bgr, labels, ids, parts.paper, ink, stats)
    colours = ink_colour(contrast, paper_col).tolist()
    reddish = could_be_red(contrast, paper_col).tolist()
    # each blob's points: every step-th of its pixels (about 200 at most), cut from one array for all blobs
    steps = np.maximum(1, np.array(counts, np.int64) // 200)
    nth = np.arange(len(lab)) - np.repeat(starts[:-1], counts)
    kept_px = nth % np.repeat(steps, counts) == 0
    pts_all = np.stack([xs[kept_px], ys[kept_px]], 1).astype(np.float32)
    pts_of = np.split(pts_all, np.cumsum(np.add.reduceat(kept_px, starts[:-1]) if len(ids) else [])[:-1])
    bx, by, bw, bh, barea = (v.tolist() for v in (x, y, w, h, area))
    blobs: list[Blob] = []
    for k, i in enumerate(ids.tolist()):
        if colours[k] == OTHER:
            continue  # black, red or dull print, not coloured art
        blobs.append(Blob(i, bx[i], by[i], bw[i], bh[i], barea[i], float(cents[i][0]), float(cents[i][1]),
                          RED_FEATURE if colours[k] == RED else 0.0, pts_of[k], colours[k] == DULL, reddish[k]))
    return Frame(labels, norm, blobs)


def _extent(pts: np.ndarray, ox: float, oy: float, ux: float, uy: float) -> tuple[float, float, float, float]:
    """Bounding box of points in the frame with x along v=(uy,-ux) and y along u."""
    dx, dy = pts[:, 0] - ox, pts[:, 1] - oy
    a = dx * uy - dy * ux
    b = dx * ux + dy * uy
    return float(a.min()), float(a.max()) + 1, float(b.min()), float(b.max()) + 1


def _extents(pts: list[np.ndarray], ox: np.ndarray, oy: np.ndarray, ux: np.ndarray, uy: np.ndarray
             ) -> np.ndarray:
    """`_extent` of many point sets at once, bit for bit (the same float32 arithmetic, one pass over all
    points): an (n, 4) array of a0, a1, b0, b1. `features` needs two per candidate."""
    counts = np.array([len(q) for q in pts])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    allp = np.concatenate(pts)
    ex, ey, eux, euy = (np.repeat(np.asarray(v, np.float32), counts) for v in (ox, oy, ux, uy))
    dx, dy = allp[:, 0] - ex, allp[:, 1] - ey
    a = dx * euy - dy * eux
    b = dx * eux + dy * euy
    return np.stack([np.minimum.reduceat(a, starts), np.maximum.reduceat(a, starts) + np.float64(1),
                     np.minimum.reduceat(b, starts), np.maximum.reduceat(b, starts) + np.float64(1)], 1)


def _column_mean(pts: np.ndarray, k: int) -> np.float32:
    """`pts[:, k].mean()` of float32 points, bit for bit (numpy's pairwise float32 sum over the column, divided as
    its mean divides), without the mean's Python wrapper: a third of its time, and pairing takes ~70 a photo."""
    return np.float32(float(np.add.reduce(pts[:, k])) / len(pts))


def pair_candidates(frame: Frame, max_partners: int = 4, near: tuple[float, float, float] | None = None
                    ) -> list[Candidate]:
    """Every plausible (rank, suit) pairing; a "10" is its two digits merged. With `near` (x, y, radius),
    only those centred within the radius of (x, y), and only glyphs that could centre one there are tried
    (a merged group's centre is within 1.5 of its first glyph's extents of that glyph).

    Each glyph is tried with its `max_partners` nearest same-colour blobs as the suit, those at least
    half its size first (and the nearest at least its own size when none of those is), none much heavier
    in ink (a thin glyph, a 7 or a J, with a solid pip no longer than itself up to twice its size: real
    Bicycle hearts under a 7 weigh 1.6-1.7 times the 7). A merged group is offered unmerged as well: in a
    fanned pile the next card's index stands on the same line as this one's, and the merged pair ("Q8",
    "JJ") would hide this card's own index. The reader decides between them (the surer reading claims the
    blobs)."""
    blobs = frame.blobs
    if not blobs:
        return []
    c = np.array([[b.cx, b.cy] for b in blobs], np.float32)
    s = np.array([b.size for b in blobs], np.float32)
    red = np.array([b.is_red for b in blobs])
    dull = np.array([b.dull for b in blobs])
    may_red = np.array([b.may_be_red for b in blobs])
    may_black = ~red
    ext = np.array([max(b.w, b.h) for b in blobs], np.float32)
    thin = np.array([b.area < 0.25 * b.w * b.h for b in blobs])  # strokes filling under a quarter of its box
    d = np.sqrt(((c[:, None, :] - c[None, :, :]) ** 2).sum(-1))
    # who may partner whom (row: the glyph), all at once: the same float32 tests as one row at a time
    si, ei = s[:, None], ext[:, None]
    # the suit pip's colour is the index's: a suit has a certain colour, and its rank is of that colour or may be
    # (a thin stroke's colour is the first a sensor loses)
    same = ~dull[None, :] & np.where(red[None, :], may_red[:, None], may_black[:, None])
    may_partner = ((d > 0.45 * ei) & (d < 2.0 * ei) & same
                   & ((s < 1.6 * si) | (thin[:, None] & (s < 2.0 * si) & (ext <= ei)))
                   & (s > 0.3 * si) & (ext < 1.5 * ei))
    ratio = ext[None, :] / ei
    alike = (may_red[:, None] & may_red[None, :]) | (may_black[:, None] & may_black[None, :])
    may_stand_beside = (d < 1.3 * ei) & alike & (0.6 < ratio) & (ratio < 1.6)
    np.fill_diagonal(may_stand_beside, False)
    # each glyph's partners nearest first, those at least half its size before the rest (print specks and
    # frame-line pieces beside a rank must not take the places of the suit below it), ties in blob order; all
    # rows at once (row by row, a third of this function's time)
    order = np.lexsort((d, s[None, :] < 0.5 * si, ~may_partner))
    n_partners = may_partner.sum(1)
    # a suit pip is often heavier than its rank glyph (Bicycle's clubs under a thin 7: over twice its ink);
    # where lighter blobs nearer the glyph (the covering card's print) take every place, the nearest
    # partner at least the glyph's size is tried as well
    heavy = np.take_along_axis(s[None, :] >= si, order, 1) & (np.arange(len(blobs)) < n_partners[:, None])
    later, heavier_later = heavy[:, max_partners:], np.full(len(blobs), -1)
    need = ~heavy[:, :max_partners].any(1) & later.any(1)
    if need.any():
        heavier_later[need] = max_partners + later[need].argmax(1)
    beside_of: list[list[int]] = [[] for _ in blobs]
    for i, k in zip(*(v.tolist() for v in np.nonzero(may_stand_beside))):
        beside_of[i].append(k)
    out: list[Candidate] = []
    seen: set[tuple[tuple[int, ...], int]] = set()
    centre: dict[tuple[int, ...], tuple[float, float]] = {}  # a glyph group's ink centre, shared by its pairings
    tried = range(len(blobs)) if near is None else np.nonzero(
        np.hypot(c[:, 0] - near[0], c[:, 1] - near[1]) <= near[2] + 1.5 * ext)[0]
    for i in tried:
        a = blobs[i]
        partners = order[i, :min(max_partners, int(n_partners[i]))].tolist()
        if heavier_later[i] >= 0:
            partners.append(int(order[i, heavier_later[i]]))
        beside = beside_of[i]
        for j in partners:
            bsuit = blobs[j]
            ux, uy = (c[j] - c[i]) / d[i, j]
            group = [a]
            # merge side-by-side digits ("10"): same colour (or dull), same line, similar size
            for k in beside:
                if k == j or not (blobs[k].may_be_red if bsuit.is_red else blobs[k].may_be_black):
                    continue
                dx, dy = c[k] - c[i]
                across = dx * uy - dy * ux
                along = dx * ux + dy * uy
                if abs(along) < 0.3 * ext[i] and 0.25 * ext[i] < abs(across):
                    group.append(blobs[k])
            groups = [group, [a]] if len(group) > 1 else [group]
            for grp in groups:
                key = (tuple(sorted(g.idx for g in grp)), bsuit.idx)
                if key in seen:
                    continue
                seen.add(key)
                members = tuple(g.idx for g in grp)   # in order: the mean is summed in this order
                if members not in centre:
                    pts = np.concatenate([g.pts for g in grp]) if len(grp) > 1 else a.pts
                    centre[members] = cast(tuple[float, float], (_column_mean(pts, 0), _column_mean(pts, 1)))
                rx, ry = centre[members]
                dd = math.hypot(bsuit.cx - rx, bsuit.cy - ry)
                if dd < 1e-3:
                    continue
                ux, uy = (bsuit.cx - rx) / dd, (bsuit.cy - ry) / dd
                out.append(Candidate(tuple(grp), bsuit, ux, uy, dd, float(rx), float(ry)))
    if near is not None:
        x, y, radius = near
        out = [cd for cd in out if (cd.cx - x) ** 2 + (cd.cy - y) ** 2 <= radius * radius]
    return out


MARK_COUNTERS_MIN = 3  # a monogram Joker mark encloses several counters (Bicycle's: 4-6); digits, letters, pips 0-2
MARK_MIN_EXTENT = 12  # px at working size: smaller blobs' counters are print specks and noise


def enclosed_paper(ink: np.ndarray, min_area: int = 2) -> list[float]:
    """Centre rows (in `ink`'s pixels) of the regions of paper a boolean ink mask encloses, 4-connected and at
    least `min_area` px: a glyph's counters."""
    # the border joins all outside paper (copyMakeBorder and no Python loop: about 8 us less a call than np.pad)
    paper = cv2.copyMakeBorder((~ink).view(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=1)
    _, labels, stats, centres = cv2.connectedComponentsWithStats(paper, connectivity=4)
    counter = stats[:, cv2.CC_STAT_AREA] >= min_area
    counter[0] = counter[labels[0, 0]] = False   # ink, and the paper outside
    return (centres[counter, 1] - 1.0).tolist()


def count_enclosed(ink: np.ndarray, min_area: int = 2) -> int:
    """How many counters `enclosed_paper` finds, without their centres (OpenCV's labels alone, no stats: about
    half its time; it runs on every glyph-size blob)."""
    paper = cv2.copyMakeBorder((~ink).view(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=1)
    n, labels = cv2.connectedComponents(paper, connectivity=4)
    counter = np.bincount(labels.ravel(), minlength=n) >= min_area
    counter[0] = counter[labels[0, 0]] = False   # ink, and the paper outside
    return int(np.count_nonzero(counter))


def enclosed_counters(frame: Frame, blob: Blob) -> int:
    """How many counters (enclosed paper, at least 2 px) the blob's ink has."""
    return count_enclosed(frame.labels[blob.y:blob.y + blob.h, blob.x:blob.x + blob.w] == blob.idx)


def mark_candidates(frame: Frame) -> list[Candidate]:
    """Lone marks: glyph-size blobs enclosing `MARK_COUNTERS_MIN` or more counters, each offered as its own
    rank and suit, upright along its long axis both ways. A Joker's corner mark has no suit glyph beside it,
    so `pair_candidates` never offers it; a deck store learns its deck's mark from these. The stock readers
    never see them. Measured on scenes-bicycle (session 16), not adopted: a 64-unit MLP on marks from 3000
    rendered monogram-Joker scenes called 1 of 110 real Joker marks a mark at 0.9 (none at 0.97), 61 of 3676 other
    real marks (court art, table textures) one; pairing like-shaped marks at a card's opposite corners
    (`corner_pairs.opposite_corners`, upright patch overlap >= 0.8) found 18 of the 27 Jokers showing both
    corners, but also the cells of a net tablecloth, and the ink around a mark (Jokers' up to 0.30 of the
    ring within 30% of its size, the net's 0.33) leaves no margin between them."""
    return lone_marks([b for b in frame.blobs
                       if max(b.w, b.h) >= MARK_MIN_EXTENT and enclosed_counters(frame, b) >= MARK_COUNTERS_MIN])


def lone_marks(blobs: list[Blob]) -> list[Candidate]:
    """Each blob offered as a lone mark (`mark_candidates`), upright along its long axis both ways."""
    out: list[Candidate] = []
    for b in blobs:
        pts = b.pts - b.pts.mean(0)
        _, vecs = np.linalg.eigh(pts.T @ pts)
        ux, uy = float(vecs[0, 1]), float(vecs[1, 1])  # the long axis: the larger eigenvalue's vector
        length = float(np.ptp(pts @ vecs[:, 1]))
        for sign in (1.0, -1.0):
            out.append(Candidate((b,), b, sign * ux, sign * uy, max(length, 1.0), b.cx, b.cy))
    return out


def is_mark(cand: Candidate) -> bool:
    """Whether the candidate is a lone mark (`mark_candidates`), not a rank over a suit."""
    return len(cand.rank) == 1 and cand.rank[0] is cand.suit


def _blob_mask(frame: Frame, blobs: tuple[Blob, ...]) -> tuple[np.ndarray, int, int, np.ndarray]:
    """(mask of the blobs' ink over their bounding box, x0, y0, their points)."""
    if len(blobs) == 1:   # most glyphs: their own box
        b = blobs[0]
        return (frame.labels[b.y:b.y + b.h, b.x:b.x + b.w] == b.idx).astype(np.uint8) * 255, b.x, b.y, b.pts
    x0 = min(b.x for b in blobs)
    y0 = min(b.y for b in blobs)
    x1 = max(b.x + b.w for b in blobs)
    y1 = max(b.y + b.h for b in blobs)
    sub = frame.labels[y0:y1, x0:x1]
    mask = np.zeros(sub.shape, np.uint8)
    for b in blobs:
        mask[sub == b.idx] = 255
    return mask, x0, y0, np.concatenate([b.pts for b in blobs])


def _patch(frame: Frame, blobs: tuple[Blob, ...], ux: float, uy: float, size: int
           ) -> tuple[np.ndarray, float, float]:
    """The blobs' ink drawn upright in a size x size patch (aspect kept); returns (patch, w, h)."""
    mask, x0, y0, pts = _blob_mask(frame, blobs)
    ox, oy = float(blobs[0].cx), float(blobs[0].cy)
    return _warp_upright(mask, x0, y0, ox, oy, ux, uy, _extent(pts, ox, oy, ux, uy), size)


def _cached_mask(frame: Frame, blobs: tuple[Blob, ...], cache: dict) -> tuple[np.ndarray, int, int, np.ndarray]:
    """`_blob_mask`, kept in `cache` by blob numbers: a glyph is in many pairings."""
    key = tuple(b.idx for b in blobs)
    if key not in cache:
        cache[key] = _blob_mask(frame, blobs)
    return cache[key]


def _warp_upright(mask: np.ndarray, x0: int, y0: int, ox: float, oy: float, ux: float, uy: float,
                  extent: tuple[float, float, float, float], size: int) -> tuple[np.ndarray, float, float]:
    """`_patch` once the points' extent in the glyph's frame is known."""
    a0, a1, b0, b1 = extent
    w, h = a1 - a0, b1 - b0
    k = max(w, h) / (size - 2)
    ca, cb = (a0 + a1) / 2, (b0 + b1) / 2
    vx, vy = uy, -ux
    # dst (px, py) -> src = o + (ca + (px - size/2) k) v + (cb + (py - size/2) k) u
    m = np.array([[vx * k, ux * k, ox + (ca - size / 2 * k) * vx + (cb - size / 2 * k) * ux],
                  [vy * k, uy * k, oy + (ca - size / 2 * k) * vy + (cb - size / 2 * k) * uy]], np.float32)
    m[0, 2] -= x0
    m[1, 2] -= y0
    p = cv2.warpAffine(mask, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                       borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return p, w, h


def _as_scalars(f32: np.ndarray, value: np.ndarray) -> np.ndarray:
    """`value` (float64) as a Python float meets a candidate's direction in scalar arithmetic: cast to float32
    where the direction is an np.float32 (`f32`: pair candidates; lone marks carry Python floats)."""
    return np.where(f32, value.astype(np.float32).astype(np.float64), value)


def _scalar_op(f32: np.ndarray, result: np.ndarray) -> np.ndarray:
    """A result rounded to float32 where the scalar arithmetic it stands for ran in float32 (`f32`)."""
    return np.where(f32, result.astype(np.float32).astype(np.float64), result)


def _direction_times(f32: np.ndarray, direction: np.ndarray, value: np.ndarray) -> np.ndarray:
    """A candidate's direction component times a Python float, rounded as the scalar product is."""
    return _scalar_op(f32, direction * _as_scalars(f32, value))


def _upright_matrices(extents: np.ndarray, ox: np.ndarray, oy: np.ndarray, ux: np.ndarray, uy: np.ndarray,
                      f32: np.ndarray, x0: np.ndarray, y0: np.ndarray, size: int) -> np.ndarray:
    """`_warp_upright`'s warp matrices for many glyphs at once, bit for bit: (n, 2, 3) float32. Each operation
    is rounded as the scalar code's is (float32 where a candidate's direction is an np.float32, `f32`)."""
    a0, a1, b0, b1 = extents.T
    k = np.maximum(a1 - a0, b1 - b0) / (size - 2)
    ca, cb = (a0 + a1) / 2, (b0 + b1) / 2
    t1, t2 = ca - size / 2 * k, cb - size / 2 * k
    vx, vy = uy, -ux
    mul = functools.partial(_direction_times, f32)   # a direction component times a Python float

    def add(p: np.ndarray, q: np.ndarray) -> np.ndarray:   # a Python float (or float32) plus a float32
        return _scalar_op(f32, _as_scalars(f32, p) + q)

    m = np.empty((len(k), 2, 3), np.float32)
    m[:, 0, 0], m[:, 0, 1] = mul(vx, k), mul(ux, k)
    m[:, 1, 0], m[:, 1, 1] = mul(vy, k), mul(uy, k)
    m[:, 0, 2] = _scalar_op(f32, add(ox, mul(vx, t1)) + mul(ux, t2))
    m[:, 1, 2] = _scalar_op(f32, add(oy, mul(vy, t1)) + mul(uy, t2))
    m[:, 0, 2] -= x0.astype(np.float32)
    m[:, 1, 2] -= y0.astype(np.float32)
    return m


def _context_matrices(cands: list[Candidate], f32: np.ndarray) -> np.ndarray:
    """`_context`'s warp matrices for many candidates at once, bit for bit (as `_upright_matrices`)."""
    size = CTX_PATCH
    L = np.array([cd.scale for cd in cands], np.float64)
    ux = np.array([cd.ux for cd in cands], np.float64)
    uy = np.array([cd.uy for cd in cands], np.float64)
    cx = np.array([cd.cx for cd in cands], np.float64)
    cy = np.array([cd.cy for cd in cands], np.float64)
    k = 3.2 * L / size
    vx, vy = uy, -ux
    mul = functools.partial(_direction_times, f32)
    ox = _scalar_op(f32, _as_scalars(f32, cx) + mul(ux, 0.4 * L))
    oy = _scalar_op(f32, _as_scalars(f32, cy) + mul(uy, 0.4 * L))
    m = np.empty((len(cands), 2, 3), np.float32)
    m[:, 0, 0], m[:, 0, 1] = mul(vx, k), mul(ux, k)
    m[:, 1, 0], m[:, 1, 1] = mul(vy, k), mul(uy, k)
    m[:, 0, 2] = _scalar_op(f32, ox - mul(_scalar_op(f32, vx + ux), size / 2 * k))
    m[:, 1, 2] = _scalar_op(f32, oy - mul(_scalar_op(f32, vy + uy), size / 2 * k))
    return m


def _context(frame: Frame, cand: Candidate) -> np.ndarray:
    """Paper brightness around the index (edges, neighbours), coarse, in the index's frame."""
    size, L = CTX_PATCH, cand.scale
    k = 3.2 * L / size
    ux, uy = cand.ux, cand.uy
    vx, vy = uy, -ux
    ox, oy = cand.cx + 0.4 * L * ux, cand.cy + 0.4 * L * uy
    m = np.array([[vx * k, ux * k, ox - size / 2 * k * (vx + ux)],
                  [vy * k, uy * k, oy - size / 2 * k * (vy + uy)]], np.float32)
    return cv2.warpAffine(frame.norm, m, (size, size), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)


FILL_INK = 0.15  # a patch column or row with a pixel above this (of 1.0) holds ink


def fill_rank_width(p: np.ndarray) -> np.ndarray:
    """A rank patch (floats 0..1, glyph centred) with an upright glyph stretched to be as wide as it is tall.

    Faces draw the same digit narrow or wide (real Bicycle 3s and 10s are wider than most fonts);
    filling the width makes them alike, and the glyph's own proportions stay in the geometry
    features. Glyphs wider than tall are left as they are. This per-patch cv2 form is the definition the
    width-filled twin was trained with; the reader runs `fill_rank_widths`, tested against it."""
    cols = np.flatnonzero(p.max(0) > FILL_INK)
    rows = np.flatnonzero(p.max(1) > FILL_INK)
    if len(cols) < 2 or len(rows) < 2:
        return p
    x0, x1, y0, y1 = cols[0], cols[-1] + 1, rows[0], rows[-1] + 1
    w, h = x1 - x0, y1 - y0
    if w >= h:
        return p
    out = np.zeros_like(p)
    ox = (p.shape[1] - h) // 2
    out[y0:y1, ox:ox + h] = cv2.resize(p[y0:y1, x0:x1], (int(h), int(h)), interpolation=cv2.INTER_LINEAR)
    return out


def _columns(patches: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Patch n's columns cols[n] (every row), for a stack of patches (one flat take: take_along_axis's broadcast
    index cost twice its time)."""
    m, rows, width = patches.shape
    first = (np.arange(m) * (rows * width))[:, None, None] + (np.arange(rows) * width)[None, :, None]
    return np.take(patches.reshape(-1), first + cols[:, None, :])


def fill_rank_widths(X: np.ndarray) -> np.ndarray:
    """Feature rows (as `features` makes them) with every rank patch width-filled as `fill_rank_width` does.

    All rows at once (it is on the hot path of the default reader): rows map 1:1, and each filled column
    interpolates two glyph columns with cv2's INTER_LINEAR coordinates and clamping, in float32."""
    X = X.copy()
    side = RANK_PATCH
    patches = X[:, :side * side].reshape(len(X), side, side)
    ink = patches > FILL_INK   # thresholded once: two maxima over the float patches took twice as long
    col_ink, row_ink = np.asarray(ink.any(1)), np.asarray(ink.any(2))
    x0, x1 = col_ink.argmax(1), side - col_ink[:, ::-1].argmax(1)
    y0, y1 = row_ink.argmax(1), side - row_ink[:, ::-1].argmax(1)
    w, h = x1 - x0, y1 - y0
    todo = np.flatnonzero((col_ink.sum(1) >= 2) & (row_ink.sum(1) >= 2) & (w < h))
    if len(todo) == 0:
        return X
    x0, w, h, y0, y1 = (a[todo, None] for a in (x0, w, h, y0, y1))
    j = np.arange(side)[None, :] - (side - h) // 2  # destination column within the h-wide glyph
    fx = ((j + 0.5) * (1.0 / (h / w)) - 0.5).astype(np.float32)
    sx = np.floor(fx)
    a = fx - sx
    sx = sx.astype(np.int64)
    a[sx < 0], sx[sx < 0] = 0, 0
    at_end = sx >= w - 1
    a[at_end] = 0
    sx = np.minimum(sx, w - 1)
    left = np.clip(x0 + sx, 0, side - 1)
    right = np.clip(x0 + np.minimum(sx + 1, w - 1), 0, side - 1)
    src = patches[todo]
    filled = _columns(src, left) * (np.float32(1) - a)[:, None, :] + _columns(src, right) * a[:, None, :]
    rows = np.arange(side)[None, :]
    keep = ((j >= 0) & (j < h))[:, None, :] & ((rows >= y0) & (rows < y1))[:, :, None]
    patches[todo] = np.where(keep, filled, np.float32(0))
    X[:, :side * side] = patches.reshape(len(X), side * side)
    return X


def blur3(patches: np.ndarray) -> np.ndarray:
    """cv2.GaussianBlur(p, (3, 3), 0) of every uint8 patch in an (n, h, w) stack at once, bit for bit: the
    [1 2 1] / 4 kernel both ways, mirrored borders (BORDER_REFLECT_101), rounded half up."""
    q = np.pad(patches.astype(np.uint16), ((0, 0), (1, 1), (1, 1)), mode="reflect")
    h = q[:, :, :-2] + 2 * q[:, :, 1:-1] + q[:, :, 2:]
    return ((h[:, :-2] + 2 * h[:, 1:-1] + h[:, 2:] + 8) >> 4).astype(np.uint8)


def features(frame: Frame, cands: list[Candidate]) -> np.ndarray:
    """One feature row per candidate: rank patch, suit patch, context patch, geometry."""
    n = len(cands)
    X = np.zeros((n, N_FEATURES), np.float32)
    ranks = np.zeros((n, RANK_PATCH, RANK_PATCH), np.uint8)
    suits = np.zeros((n, SUIT_PATCH, SUIT_PATCH), np.uint8)
    cache: dict = {}
    at_suit, at_ctx, at_geom = RANK_PATCH ** 2, RANK_PATCH ** 2 + SUIT_PATCH ** 2, N_FEATURES - N_GEOM
    if n == 0:
        return X
    glyphs = [g for cd in cands for g in (cd.rank, (cd.suit,))]       # rank, suit, rank, suit, ...
    masks = [_cached_mask(frame, g, cache) for g in glyphs]
    ox, oy = [float(g[0].cx) for g in glyphs], [float(g[0].cy) for g in glyphs]
    ux, uy = [cd.ux for cd in cands for _ in (0, 1)], [cd.uy for cd in cands for _ in (0, 1)]
    extents = _extents([m[3] for m in masks], np.array(ox), np.array(oy), np.array(ux, np.float32),
                       np.array(uy, np.float32))
    # every warp matrix at once, each number rounded as the scalar code rounds it (`_warp_upright`, `_context`)
    f32 = np.array([isinstance(cd.ux, np.float32) and isinstance(cd.uy, np.float32) for cd in cands])
    mixed = [k for k, cd in enumerate(cands) if isinstance(cd.ux, np.float32) != isinstance(cd.uy, np.float32)]
    x0, y0 = np.array([m[1] for m in masks]), np.array([m[2] for m in masks])
    ux2, uy2, ox2, oy2 = (np.array(v, np.float64) for v in (ux, uy, ox, oy))
    at_rank, at_pip = slice(0, None, 2), slice(1, None, 2)
    rank_m, suit_m = (_upright_matrices(extents[at], ox2[at], oy2[at], ux2[at], uy2[at], f32, x0[at], y0[at], side)
                      for at, side in ((at_rank, RANK_PATCH), (at_pip, SUIT_PATCH)))
    ctx_m = _context_matrices(cands, f32)
    ctx = np.empty((n, CTX_PATCH, CTX_PATCH), np.uint8)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    for k in range(n):
        ranks[k] = cv2.warpAffine(masks[2 * k][0], rank_m[k], (RANK_PATCH, RANK_PATCH), flags=flags,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        suits[k] = cv2.warpAffine(masks[2 * k + 1][0], suit_m[k], (SUIT_PATCH, SUIT_PATCH), flags=flags,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        ctx[k] = cv2.warpAffine(frame.norm, ctx_m[k], (CTX_PATCH, CTX_PATCH),
                                flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_CONSTANT,
                                borderValue=0)
    for k in mixed:   # a hand-made candidate mixing float types: the scalar code itself
        cd = cands[k]
        ranks[k] = _warp_upright(masks[2 * k][0], masks[2 * k][1], masks[2 * k][2], ox[2 * k], oy[2 * k], cd.ux,
                                 cd.uy, tuple(extents[2 * k].tolist()), RANK_PATCH)[0]
        suits[k] = _warp_upright(masks[2 * k + 1][0], masks[2 * k + 1][1], masks[2 * k + 1][2], ox[2 * k + 1],
                                 oy[2 * k + 1], cd.ux, cd.uy, tuple(extents[2 * k + 1].tolist()), SUIT_PATCH)[0]
        ctx[k] = _context(frame, cd)
    X[:, at_ctx:at_geom] = ctx.reshape(n, -1) / 255.0
    w, h = extents[:, 1] - extents[:, 0], extents[:, 3] - extents[:, 2]
    L = np.array([cd.scale for cd in cands], np.float64)
    X[:, at_geom:] = np.column_stack([
        w[at_rank] / L, h[at_rank] / L, w[at_pip] / L, h[at_pip] / L,
        [len(cd.rank) - 1 for cd in cands],
        [min(cd.suit.red, 150) / 100.0 for cd in cands],   # the rank's colour is its suit's (`pair_candidates`)
        [cd.suit.area / max(1.0, sum(b.area for b in cd.rank)) for cd in cands],
        [min(cd.suit.red, 150) / 100.0 for cd in cands]])
    # soften stroke-width differences between fonts
    X[:, :at_suit] = blur3(ranks).reshape(n, at_suit) / 255.0
    X[:, at_suit:at_ctx] = blur3(suits).reshape(n, at_ctx - at_suit) / 255.0
    return X


WORK_SIDE = 384


def prepare(bgr: np.ndarray, work_side: int = WORK_SIDE) -> tuple[np.ndarray, float]:
    """Shrink so the longer side is at most `work_side` px (speed); returns (image, scale)."""
    h, w = bgr.shape[:2]
    s = min(1.0, work_side / max(h, w))
    if s < 1.0:   # INTER_AREA's pixels; 720 -> 384 px in 0.74 ms against OpenCV's 1.9 (`area_shrink`)
        bgr = shrink_area(bgr, (max(1, round(w * s)), max(1, round(h * s))))
    return bgr, s

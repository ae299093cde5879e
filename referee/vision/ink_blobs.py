"""Find the ink of card print: glyph-sized black or red blobs on light card stock.

Ink is a pixel whose green is well under the local paper brightness; its colour is read against that paper
(`ink_colour`). Lines touching a glyph are cut off first (`line_trim`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .ink_colour import DULL, OTHER, RED, balance, could_be_red, ink_colour, ink_contrasts, paper_gains
from .line_trim import _by_label, trim_lines, trim_thin_lines

PAPER_FRACTION = 0.35  # a glyph's surroundings are at least this much paper: print on a card, not a busy table
# the red the readers are shown for any red ink, so a dull camera does not move their features: the median
# red-minus-green of red glyphs in their rendered training scenes (docs/vision.md, Red or black)
RED_FEATURE = 114.0
SOLID_FILL = 0.8  # an ink part filling more of its box is solid (a filled box, a stripe, a plain bar), no glyph


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
        """The square root of its ink area: a size that grows with the glyph's height."""
        return math.sqrt(self.area)

    @property
    def is_red(self) -> bool:
        """Whether it was read as red print."""
        return self.red > 0


@dataclass
class Frame:
    """One image's ink: its component labels, its brightness over paper and the glyph-sized blobs kept."""

    labels: np.ndarray  # OpenCV's connected-component labels (after the lines were cut off)
    norm: np.ndarray  # green channel over local paper brightness, 0..255
    blobs: list[Blob]


def ink_maps(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ink mask, brightness over the local paper, red-minus-green) for a BGR image.

    The paper brightness is the green channel's local maximum, smoothed; ink is under 0.65 of it, on paper bright
    enough to be card, and not bluish (table or art)."""
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
    # BBDT: the same labels and stats as OpenCV's default algorithm, in about half the time
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
    """The glyph-sized ink blobs of a BGR image at working size, printed in black, red or a dull dark on light
    paper, with lines cut off them; coloured art is left out."""
    parts = _glyph_parts(bgr, min_h, max_h)
    labels, stats, cents, ok, ink, norm = parts.labels, parts.stats, parts.cents, parts.ok, parts.ink, parts.norm
    x, y, w, h, area = (stats[:, k] for k in range(5))
    W = ink.shape[1]
    # every kept blob's pixels in one pass (not a few numpy calls a blob), row by row within each blob
    ids = np.flatnonzero(ok)
    px = np.flatnonzero(np.take(ok, labels))   # far quicker than np.nonzero over the whole image
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

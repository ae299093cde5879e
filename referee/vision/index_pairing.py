"""Pair ink blobs into candidate corner indices: a rank glyph with its suit pip beside it.

Each candidate is read in its own rotated frame (rank above, suit below), so any card rotation works.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from .ink_blobs import Blob, Frame


@dataclass
class Candidate:
    """A possible index: rank blob(s) above a suit blob, in the frame whose "down" runs from rank to suit."""

    rank: tuple[Blob, ...]  # one glyph, or a 10's two digits
    suit: Blob
    ux: float  # (ux, uy): the unit direction from the rank's ink centre to the suit's
    uy: float
    scale: float  # the rank-to-suit distance (px); a lone mark's length
    cx: float  # (cx, cy): the rank's ink centre (px at working size)
    cy: float
    # the shape checks' answers by (rank, suit): a reading is checked for its corner pair and again for its claim
    checked: dict[tuple[str, str], bool] = field(default_factory=dict, init=False, repr=False, compare=False)

    @functools.cached_property
    def blob_ids(self) -> frozenset[int]:
        """The blobs it reads (its rank glyphs and its suit): one blob belongs to one index. Cached: claims and
        corner pairs ask for it often."""
        return frozenset(b.idx for b in self.rank) | {self.suit.idx}


def _column_mean(pts: np.ndarray, k: int) -> np.float32:
    """`pts[:, k].mean()` of float32 points, bit for bit (numpy's pairwise float32 sum over the column, divided as
    its mean divides), without the mean's slower Python wrapper: pairing takes many."""
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

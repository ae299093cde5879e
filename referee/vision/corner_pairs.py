"""A card prints its index twice, at opposite corners: two readings of one rank there back each other.

The two corner indices of one card are the same glyphs turned half a turn, at the same size, each
standing below and to the right of the other in its own upright frame (x along v = (uy, -ux), y along
u, the rank-to-suit direction); a deck printing all four corners has a second such pair, each to the
other's left. Where both corners of a card are read as the same name, and each is the surest reading
of its own blobs, the rank is wrong only if both readers are (1 - (1 - r1)(1 - r2)), but the suit
gains nothing: its pips are blurred alike, and a blurred spade read as a club at one corner is read so
at the other (rendered validation, tools/calibrate_confidence.py, seeds 778-781: ten of the twelve
wrong names that pairs of corners made when they backed the whole reading were spade/club swaps; backing
the rank alone, times the weaker corner's suit probability, named 8-12 more cards on each seed and no
wrong one). The cut-off stays the single readings' one.

Pure geometry and arithmetic on the readings; the shape checks stay in `index_vetoes`, `rank_shapes` and `suit_shapes`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ..core.cards import Card
from .index_pairing import Candidate

PAIR_FLOOR = 0.5          # each corner's own reading names the card at least as likely as not
OPPOSITE_COS_MAX = -0.9   # the two up directions point opposite ways (within about 25 degrees)
SCALE_RATIO_MAX = 1.25    # the same index size: rank-to-suit distances within a quarter of each other
# Where the other corner's index stands, in rank-to-suit distances, from physical card proportions: a card
# is 1.3-1.6 times as tall as wide and its indices sit near its edges, so the other index is further down
# than across, never more than 2.5 times; it is at least a glyph height and a half away either way.
DOWN_MIN, ACROSS_MIN = 1.5, 0.8
DOWN_PER_ACROSS = (1.0, 2.5)

Reading = tuple[float, Card, Candidate]   # (confidence, card, the candidate read as it)


class Corner(NamedTuple):
    """One candidate's reading with its parts: the rank's and the suit's probability (1.0 for a Joker's)."""

    conf: float
    card: Card
    cand: Candidate
    rank_p: float
    suit_p: float


def _seen_from(a: Candidate, b: Candidate) -> tuple[float, float]:
    """Where `b`'s index centre stands in `a`'s upright frame: (down, right), in `a`'s rank-to-suit distances."""
    dx, dy = b.cx - a.cx, b.cy - a.cy
    return (dx * a.ux + dy * a.uy) / a.scale, (dx * a.uy - dy * a.ux) / a.scale


def _one_way(a: Candidate, b: Candidate) -> int:
    """+1 (-1) where `b` stands down and to the right (left) of `a` as a card's other corner would; else 0."""
    down, right = _seen_from(a, b)
    across = abs(right)
    if down > DOWN_MIN and across > ACROSS_MIN and DOWN_PER_ACROSS[0] < down / across < DOWN_PER_ACROSS[1]:
        return 1 if right > 0 else -1
    return 0


def opposite_corners(a: Candidate, b: Candidate) -> bool:
    """Whether `a` and `b` stand as one card's two corner indices (a half turn apart, same size)."""
    if a.ux * b.ux + a.uy * b.uy > OPPOSITE_COS_MAX:
        return False
    if max(a.scale, b.scale) > SCALE_RATIO_MAX * min(a.scale, b.scale):
        return False
    side = _one_way(a, b)
    return side != 0 and side == _one_way(b, a)


def either_corner(p1: float, p2: float) -> float:
    """The chance that not both corners' readings are wrong."""
    return 1.0 - (1.0 - p1) * (1.0 - p2)


def paired_confidence(a: Corner, b: Corner) -> float:
    """A card's confidence from its two corners read as the same name: the rank backed by both, the suit not."""
    return either_corner(a.rank_p, b.rank_p) * min(a.suit_p, b.suit_p)


def back_pairs(readings: Sequence[Corner], plausible: Callable[[Candidate, Card], bool]
               ) -> list[Reading]:
    """(confidence, card, candidate) for each reading (given most confident first), a reading whose card's other
    corner reads the same name taking the pair's confidence where that is higher (`paired_confidence`, the best
    partner). A corner takes part only when its reading is at least `PAIR_FLOOR`, passes `plausible`, and no
    surer reading of another name shares its blobs. Returns them most confident first."""
    own: list[int] = []   # readings that are the surest name on their own blobs
    for i, r in enumerate(readings):
        if r.conf < PAIR_FLOOR:
            break
        if not any(readings[j].card != r.card and readings[j].cand.blob_ids & r.cand.blob_ids for j in range(i)):
            own.append(i)
    confs = [r.conf for r in readings]
    for n, i in enumerate(own):
        a = readings[i]
        for j in own[n + 1:]:
            b = readings[j]
            if a.card != b.card or a.cand.blob_ids & b.cand.blob_ids or not opposite_corners(a.cand, b.cand):
                continue
            if not (plausible(a.cand, a.card) and plausible(b.cand, b.card)):  # plausible keeps its answers
                continue
            both = paired_confidence(a, b)
            confs[i], confs[j] = max(confs[i], both), max(confs[j], both)
    out = [(confs[k], r.card, r.cand) for k, r in enumerate(readings)]
    out.sort(key=lambda t: -t[0])
    return out

"""Name every card whose corner index is visible in a still image.

The image is shrunk to working size (`working_size`), its ink found (`ink_blobs`) and paired into candidate
indices (`index_pairing`), whose feature rows (`index_features`) the index classifier reads. Glyph shapes settle
the readers' doubts (`rank_shapes`, `suit_shapes`) and veto impossible readings (`index_vetoes`); a card's two
corners may back each other (`corner_pairs`). Each card identity is reported once (its best index), with a
confidence that is the product of the rank and suit probabilities. Below `min_conf` it is not named, unless a
second look at its index, finer than the shrunk first look, agrees surely enough.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from ..core.cards import JOKER, Card
from .classifier import RANK_CLASSES, SUIT_CLASSES, IndexModel, default_model
from .corner_pairs import PAIR_FLOOR, Corner, Reading, back_pairs
from .index_features import features
from .index_pairing import Candidate, pair_candidates
from .index_vetoes import plausible
from .ink_blobs import Frame, find_blobs
from .rank_shapes import fine_rank, has_three_waist, jack_shaped, six_not_five, six_or_eight, ten_shaped, three_shaped
from .suit_shapes import suit_shaped
from .working_size import prepare

# The cuts: the lowest confidence at which rendered validation scenes keep precision 0.995 or better
# (docs/vision.md, The cut on rendered scenes). The CNN's and the MLP's alone are the measured alternatives'.
CNN_MIN_CONFIDENCE = 0.97
MLP_MIN_CONFIDENCE = 0.97
MIN_CONFIDENCE = 0.97  # the default agreeing pair's, with the shape settles, corner pairs and the second look
# The second look (`second_look`): readings from SECOND_LOOK_FLOOR up to the cut are read again on a crop
# SECOND_LOOK_RADIUS rank-to-suit distances around the index, at the scale that would shrink the whole image to
# SECOND_LOOK_SIDE (the first look reads it at WORK_SIDE). The floor is the corner pairs': below it the first look
# was more likely wrong than right. Two looks that each fall short may still agree surely enough
# (`agreeing_looks`): their doubts add, shrunk by TWO_LOOKS_SHRINK. Chosen on rendered scenes: docs/vision.md, The
# second look.
SECOND_LOOK_FLOOR = PAIR_FLOOR
SECOND_LOOK_SIDE = 512
SECOND_LOOK_RADIUS = 3.0
SECOND_LOOK_NEAR = 1.0  # the closer look reads only candidates centred this near the first look's index
TWO_LOOKS_SHRINK = 0.3
THREE, FIVE, SIX, SEVEN, EIGHT, TEN, JACK = (RANK_CLASSES.index(r) for r in ("3", "5", "6", "7", "8", "10", "J"))
TEN_DOUBTS = [RANK_CLASSES.index(r) for r in ("10", "Q", "9", "8")]  # single glyphs with a counter, as a 10's "0" is
SUIT_PARTNER = {"S": "C", "C": "S", "H": "D", "D": "H"}  # the suit each is doubted against; its shape settles it
SUIT_DOUBT = np.array([SUIT_CLASSES.index(SUIT_PARTNER[x]) for x in SUIT_CLASSES[:4]])  # by suit class number
DOUBT_MIN = 1e-3  # a doubt (partner suit, other ranks) read less likely is not settled: it would add under 0.001
JOKER_RANK, NOT_AN_INDEX = RANK_CLASSES.index(JOKER), RANK_CLASSES.index("-")


@dataclass(frozen=True)
class Detection:
    """A named card: identity, confidence, where its index is (x, y) and its outline if known."""

    card: Card
    confidence: float
    center: tuple[float, float]
    quad: tuple[tuple[float, float], ...] | None = None

    def as_json(self) -> dict:
        return {"rank": self.card.rank, "suit": self.card.suit, "card": str(self.card),
                "confidence": round(self.confidence, 3),
                "center": [round(self.center[0], 1), round(self.center[1], 1)],
                "quad": [list(map(lambda v: round(v, 1), p)) for p in self.quad] if self.quad else None}


def score_frame(image: np.ndarray, model: IndexModel | None = None, near: tuple[float, float, float] | None = None
                ) -> tuple[Frame, list[Candidate], np.ndarray, np.ndarray]:
    """The blob frame and all candidates in `image` (only those centred within `near`'s (x, y, radius) when
    given) with their rank and suit probabilities."""
    model = model or default_model()
    frame = find_blobs(image)
    cands = pair_candidates(frame, near=near)
    pr, ps = model.predict(features(frame, cands))
    return frame, cands, pr, ps


def _settle_by_shape(frame: Frame, cands: list[Candidate], pr: np.ndarray, ps: np.ndarray, r: np.ndarray,
                     s: np.ndarray, min_conf: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Each row's rank and suit probability, where the glyph's shape settles the readers' doubts (may set `r`).

    A "5" shaped like a 3 is a 3 (and no J either, unless it has a J's stem and hook), and a "7" without a 3's
    waist is no 3; a "6" or "8" whose counters are a 6's or an 8's is that rank (and a 6 with a 6's top, not a
    5's, is not a 5); a "J" with a stem and a hook is no 7; a "10" whose ring has a bar beside it is not a Q, 9
    or 8; a spade with a point and no dents between lobes is not a club, nor a club with a gap each side of its
    top lobe a spade; a diamond (a point, no notch) or a heart (two lobes and a notch) is not the other red
    suit. The readers' probability of the read rank or suit and its doubts becomes that part's probability;
    the shape never renames a 6, 7, 8 or J, a 10 or a suit. Rows that could not reach `min_conf` even so are
    not looked at (when None, all are), nor doubts read under `DOUBT_MIN` (but a 5's 3: that renames). Settles
    tried and left out: docs/vision.md, Shape checks."""
    rows = np.arange(len(r))
    rank_p, suit_p = pr[rows, r].copy(), ps[rows, s].copy()
    either_suit = suit_p + ps[rows, SUIT_DOUBT[s]]
    for read, doubt in ((FIVE, THREE), (SEVEN, THREE), (SIX, EIGHT), (EIGHT, SIX), (JACK, SEVEN)):
        either = pr[:, read] + pr[:, doubt]
        could = r == read
        gains = pr[:, FIVE] if read == SIX else pr[:, JACK] if read == FIVE else 0.0  # a 6's 5 doubt, a 3's J doubt
        if read != FIVE:   # a 3-shaped "5" is renamed however sure the 5 is: every one is looked at
            could &= either + gains - pr[:, read] >= DOUBT_MIN
        if min_conf is not None:
            could &= (either + gains) * either_suit >= min_conf
        for i in np.nonzero(could)[0]:
            fine = fine_rank(frame, cands[i])  # every shape test reads the one drawn glyph
            if read == FIVE:
                if three_shaped(fine):
                    r[i], rank_p[i] = THREE, either[i]
                    if not jack_shaped(fine):  # a 3's waist and no J's stem and hook: no J either
                        rank_p[i] += pr[i, JACK]
            elif read == SEVEN:
                if not has_three_waist(fine):
                    rank_p[i] = either[i]
            elif read == JACK:
                if jack_shaped(fine):
                    rank_p[i] = either[i]
            elif six_or_eight(fine) == RANK_CLASSES[read]:
                rank_p[i] = either[i]
                if read == SIX and six_not_five(fine):
                    rank_p[i] += pr[i, FIVE]
    ten_or_ring = pr[:, TEN_DOUBTS].sum(1)
    could = (r == TEN) & (ten_or_ring - pr[:, TEN] >= DOUBT_MIN)
    if min_conf is not None:
        could &= ten_or_ring * either_suit >= min_conf
    for i in np.nonzero(could)[0]:
        if ten_shaped(frame, cands[i]):
            rank_p[i] = ten_or_ring[i]
    could = (r != JOKER_RANK) & (r != NOT_AN_INDEX) & (either_suit - suit_p >= DOUBT_MIN)
    if min_conf is not None:
        could &= rank_p * either_suit >= min_conf
    for i in np.nonzero(could)[0]:
        if suit_shaped(frame, cands[i], SUIT_CLASSES[s[i]]):
            suit_p[i] = either_suit[i]
    return rank_p, suit_p


def recognize(image: np.ndarray, *, min_conf: float = MIN_CONFIDENCE, model: IndexModel | None = None,
              include_unsure: bool = False) -> list[Detection]:
    """Cards named in a BGR image, most confident first (one per identity). A card read below `min_conf` gets
    a second look (`second_look`) when the image was shrunk to be read; with `include_unsure` every reading
    is reported at its first look's confidence."""
    if include_unsure:
        small, scale = prepare(image)
        frame, cands, pr, ps = score_frame(small, model)
        return _by_confidence(claim(frame, read_rows(frame, cands, pr, ps, None), scale))
    return recognize_at_cuts(image, (min_conf,), model=model)[min_conf]


def recognize_at_cuts(image: np.ndarray, cuts: Sequence[float], *, model: IndexModel | None = None
                      ) -> dict[float, list[Detection]]:
    """`recognize(image, min_conf=cut)` for every cut, the first look read once (choosing a cut reads each
    photo at many)."""
    small, scale = prepare(image)
    frame, cands, pr, ps = score_frame(small, model)
    by_floor: dict[float, list[Reading]] = {}
    out: dict[float, list[Detection]] = {}
    for cut in cuts:
        floor = min(cut, SECOND_LOOK_FLOOR)
        if floor not in by_floor:
            by_floor[floor] = read_rows(frame, cands, pr, ps, floor)
        readings = by_floor[floor]
        used: set[int] = set()
        best = claim(frame, [t for t in readings if t[0] >= cut], scale, used)
        for detection in second_look(image, frame, [t for t in readings if t[0] < cut], scale, used, best, cut,
                                     model):
            best[detection.card] = detection
        out[cut] = _by_confidence(best)
    return out


def second_look(image: np.ndarray, frame: Frame, unsure: list[Reading], scale: float, used: set[int],
                named: dict[Card, Detection], min_conf: float, model: IndexModel | None) -> list[Detection]:
    """Cards the first look read below `min_conf`, named when a closer look agrees.

    The first look reads a shrunk image, where a small index loses the strokes that tell a 3 from a 5. Each
    unsure reading of a card not yet named, whose glyphs no sure reading claimed and whose shape fits, is
    read again on a crop around its index at a finer scale (SECOND_LOOK_SIDE for the whole image, never
    above the photograph's own). It is named only when that reading is the same card, the two looks together
    reach `min_conf` (`agreeing_looks`), and its pip has its suit's shape (`suit_shaped`): without that,
    the closer look confirmed blurred spade/club swaps. Jokers are left out: a finer scale restores strokes,
    and the stock reader has no strokes for a Joker."""
    h, w = image.shape[:2]
    finer = min(1.0, SECOND_LOOK_SIDE / max(h, w))
    if finer <= scale:
        return []
    found: list[Detection] = []
    looked: set[Card] = set()
    for first, card, cd in unsure:
        if card in named or card in looked or card.is_joker or cd.blob_ids & used:
            continue
        if not plausible(frame, cd, card.rank, card.suit):
            continue
        looked.add(card)
        cx, cy, half = cd.cx / scale, cd.cy / scale, SECOND_LOOK_RADIUS * cd.scale / scale
        x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
        crop = image[y0:min(h, int(cy + half) + 1), x0:min(w, int(cx + half) + 1)]
        if crop.size == 0:
            continue
        size = (max(1, round(crop.shape[1] * finer)), max(1, round(crop.shape[0] * finer)))
        closer = cv2.resize(crop, size, interpolation=cv2.INTER_AREA) if finer < 1.0 else crop
        small, crop_scale = prepare(closer)
        k = crop_scale * finer  # original px to the closer look's px
        index_at = ((cx - x0) * k, (cy - y0) * k, SECOND_LOOK_NEAR * cd.scale / scale * k)
        cframe, ccands, cpr, cps = score_frame(small, model, index_at)
        for conf, again, ccd in read_rows(cframe, ccands, cpr, cps, closer_floor(min_conf)):
            sure = agreeing_looks(first, conf)
            if again != card or sure < min_conf:
                continue
            if plausible(cframe, ccd, card.rank, card.suit) and suit_shaped(cframe, ccd, card.suit):
                found.append(Detection(card, sure, (x0 + ccd.cx / k, y0 + ccd.cy / k)))
                used |= cd.blob_ids
                break
    return found


def agreeing_looks(first: float, closer: float) -> float:
    """How sure two looks reading the same card are together: the closer look's confidence, or more when
    their doubts, added and shrunk by TWO_LOOKS_SHRINK, leave more (not independent readings: they share the
    glyph and the readers, so their doubts add rather than multiply)."""
    return max(closer, 1.0 - TWO_LOOKS_SHRINK * ((1.0 - first) + (1.0 - closer)))


def closer_floor(min_conf: float) -> float:
    """The lowest closer-look confidence that can still be named at `min_conf` (with a first look of 1.0)."""
    return min(min_conf, max(0.0, 1.0 - (1.0 - min_conf) / TWO_LOOKS_SHRINK))


def _by_confidence(best: dict[Card, Detection]) -> list[Detection]:
    """The detections, most confident first."""
    return sorted(best.values(), key=lambda d: -d.confidence)


def read_rows(frame: Frame, cands: list[Candidate], pr: np.ndarray, ps: np.ndarray,
              min_conf: float | None) -> list[Reading]:
    """Each candidate's reading (its best rank, and suit unless a Joker, as the shape settles them) that
    reaches `min_conf` (None: every reading of an index), alone or with its card's other corner read the
    same (`corner_pairs`), most confident first."""
    read: list[Corner] = []
    if len(cands):
        # each row's best rank (and suit, unless a Joker) at once; only rows that can be named become cards
        floor = None if min_conf is None else min(min_conf, PAIR_FLOOR)  # a corner may reach the cut paired
        r = pr.argmax(1)
        s = ps[:, :4].argmax(1)
        joker = r == JOKER_RANK
        rank_p, suit_p = _settle_by_shape(frame, cands, pr, ps, r, s, floor)
        suit_p = np.where(joker, 1.0, suit_p)
        confs = rank_p * suit_p
        keep = r != NOT_AN_INDEX
        if floor is not None:
            keep &= confs >= floor
        for i in np.nonzero(keep)[0]:
            card = Card(JOKER) if joker[i] else Card(RANK_CLASSES[r[i]], SUIT_CLASSES[s[i]])
            read.append(Corner(float(confs[i]), card, cands[i], float(rank_p[i]), float(suit_p[i])))
    read.sort(key=lambda t: -t.conf)
    named = back_pairs(read, lambda cd, card: plausible(frame, cd, card.rank, card.suit))
    return named if min_conf is None else [t for t in named if t[0] >= min_conf]


def claim(frame: Frame, named: list[Reading], scale: float, used: set[int] | None = None,
          best: dict[Card, Detection] | None = None) -> dict[Card, Detection]:
    """Readings in order, each claiming its blobs: one blob belongs to one index (the first reading to
    claim it, so pass the surest first), and a reading the glyph's shape rules out (`plausible`) is
    dropped. Returns each card's first detection (added to `best` when given; `used` holds the blobs
    already claimed and is updated)."""
    used = set() if used is None else used
    best = {} if best is None else best
    for conf, card, cd in named:
        blobs = cd.blob_ids
        if blobs & used or not plausible(frame, cd, card.rank, card.suit):
            continue
        used |= blobs
        if card not in best:
            best[card] = Detection(card, conf, (cd.cx / scale, cd.cy / scale))
    return best

"""How a deck store's votes and the index reader's readings of one image are merged into named cards.

The reader (the store's adapted pair, else the committed one) reads first: where it is sure, its readings claim
their glyphs (`stock_first`), and the store names the rest (`store_after`). Where the two read the same glyphs as
different cards, neither is taken (`disagreeing`). docs/vision.md ("A learned deck") has the measurements that
chose each rule and constant.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..core.cards import Card
from .classifier import NO_INDEX as NO_INDEX_CLASS
from .classifier import IndexModel, default_model
from .deck_reader import NOT_INDEX
from .index_pairing import Candidate
from .ink_blobs import Frame
from .lone_marks import is_mark
from .recognize import Detection, Reading, claim, read_rows

Votes = tuple[list[str], np.ndarray, np.ndarray]   # per candidate: card or "-", confidence, distance to that card

VETO = 0.5            # a store vote is dropped where the reader reads its candidate as another card this surely
LOOK_FLOOR = 0.9      # a store vote this sure, short of the store's cut, gets the stock reader's second look
NO_INDEX_SURE = 0.99  # a candidate the deck's reader calls no index this surely is not searched (`DeckStore.name`)


def stock_read(frame: Frame, cands: Sequence[Candidate], x: np.ndarray, cut: float | None,
               model: IndexModel | None = None) -> tuple[list[Reading], np.ndarray]:
    """The stock reader's readings (`model`: a store's adapted pair; None: the committed one) of the
    rank-over-suit candidates (it never learned lone marks) that reach `cut` (None: all), surest first; and how
    likely it found each candidate no index at all (0 for lone marks)."""
    rows = [i for i, c in enumerate(cands) if not is_mark(c)]
    no_index = np.zeros(len(cands))
    if not rows:
        return [], no_index
    pr, ps = (model or default_model()).predict(x[rows])
    no_index[rows] = pr[:, NO_INDEX_CLASS]
    return read_rows(frame, [cands[i] for i in rows], pr, ps, cut), no_index


def disagreeing(cands: Sequence[Candidate], stock: Sequence[Reading], voted: Votes,
                store_at: float, checked: tuple[float, float]) -> tuple[list[Reading], Votes]:
    """The stock readings and store votes less those the other contradicts: a vote whose candidate the reader
    reads as another card at `VETO` or more, and a reading in `checked` (lo <= confidence < hi) whose
    candidate the store names another card (votes it at `store_at`, the store's cut). Where the two read the
    same glyphs as different cards, one is wrong and neither is sure. `DeckStore.name` checks the readings
    between the store's stock cut and the stock reader's own cut: the store searches each one's glyphs."""
    names, conf, dist = voted
    row = {id(c): i for i, c in enumerate(cands)}
    read: dict[int, tuple[float, str]] = {}
    for c, card, cand in stock:
        i = row.get(id(cand))
        if i is not None and c >= VETO and c > read.get(i, (0.0, ""))[0]:
            read[i] = (c, str(card))

    def store_names_another(t: Reading) -> bool:
        i = row.get(id(t[2]))
        return (checked[0] <= t[0] < checked[1] and i is not None and names[i] not in (NOT_INDEX, str(t[1]))
                and conf[i] >= store_at)

    kept = [t for t in stock if not store_names_another(t)]
    names, conf, dist = list(names), conf.copy(), dist.copy()
    for i, (_, named) in read.items():
        if names[i] not in (NOT_INDEX, named):
            names[i], conf[i], dist[i] = NOT_INDEX, 0.0, np.inf
    return kept, (names, conf, dist)


def stock_first(frame: Frame, stock: Sequence[Reading], scale: float) -> tuple[dict[Card, Detection], set[int]]:
    """The stock readings' cards and the blobs they claimed (`recognize.claim`), surest first: they come before
    the store's (`store_after`), because the stock reader at a high cut is rarely wrong and, where the two read
    the same glyphs differently, the store was the wrong one more often."""
    best: dict[Card, Detection] = {}
    used: set[int] = set()
    claim(frame, list(stock), scale, used, best)
    return best, used


def store_after(cands: Sequence[Candidate], scale: float, voted: Votes,
                floor: float | None, first: dict[Card, Detection], used: set[int],
                claimed: set[int] | None = None, mark_floor: float | None = None) -> list[Detection]:
    """The cards an image's readings name, most supported first, once the stock readings have claimed theirs
    (`stock_first`: `first`, `used`; not changed): the store's `vote` rows reaching `floor` (None: all), surest
    first, each claiming its blobs (one blob belongs to one index); a lone mark needs `mark_floor` too (a
    store's `mark_conf`). All blobs claimed by then are added to `claimed` when given."""
    mark_need = 0.0 if floor is None else max(floor, mark_floor or 0.0)
    names, conf, dist = voted
    best = dict(first)
    if claimed is None:
        used = set(used)
    else:
        claimed |= used
        used = claimed  # the loop below adds each claim in place
    evidence = {card: det.confidence for card, det in best.items()}
    for i in np.lexsort((dist, -conf)):      # surest first; of equally sure, the closest match
        name, c, cd = names[i], float(conf[i]), cands[i]
        if name == NOT_INDEX or (floor is not None and c < (mark_need if is_mark(cd) else floor)):
            continue
        blobs = cd.blob_ids
        if blobs & used:
            continue
        used |= blobs
        card = Card.parse(name)
        evidence[card] = evidence.get(card, 0.0) + c
        if card not in best:
            best[card] = Detection(card, c, (cd.cx / scale, cd.cy / scale))
    # most supported first: a card shows several indices, a stray match is one
    return sorted(best.values(), key=lambda det: (-evidence[det.card], -det.confidence))

"""A per-deck nearest-neighbour store of corner indices: the recognizer adapted to one deck.

The stock classifier was trained on rendered cards; a real deck's index font and court art can fool it.
Calibration shows the deck's own cards, so a store keeps the rows of every candidate on those photos
(`store_rows`: true corner indices labelled with their card, everything else "-" so it votes against naming)
and names a candidate at game time by its nearest stored rows (`neighbour_search`). It also keeps the stock
reader adapted to the deck (`deck_reader`), whose sure readings come first (`stock_then_store`), and looks
closer at Joker marks too faint for the working size (`faint_marks`). docs/vision.md ("A learned deck") has
the measurements behind each rule.

It lives beside the recognizer (not in `calibration/`) so `referee recognize --deck STORE` can load one.
`Shot` and `upright` (`card_shots`) are importable from here too: a store is learned from shots.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from ..core.cards import JOKER, Card
from .card_shots import Shot, label_shot, relit, upright
from .classifier import AgreeingPair
from .deck_reader import NOT_INDEX, adapt_pair
from .faint_marks import closer_marks, faint_blobs
from .index_features import features
from .index_pairing import Candidate
from .ink_blobs import Frame
from .lone_marks import is_mark, lone_marks
from .neighbour_search import EXACT_UP_TO, NeighbourIndex, principal_axes
from .recognize import MIN_CONFIDENCE as STOCK_MIN_CONFIDENCE
from .recognize import SECOND_LOOK_FLOOR, Detection, Reading, second_look
from .stock_then_store import (LOOK_FLOOR, NO_INDEX_SURE, Votes, disagreeing, stock_first, stock_read,
                               store_after)
from .store_file import store_bytes, store_fields
from .store_learning import card_order, learn_rows
from .store_rows import Labelled, embed, framed_candidates, mark_rows

__all__ = ["DeckStore", "Shot", "upright"]


@dataclass
class DeckStore:
    """Labelled index embeddings for one deck, and the distance scale it learned."""

    vectors: np.ndarray              # (n, d) unit rows
    labels: np.ndarray               # (n,) card names or "-"
    cards: list[str]                 # the cards it was shown
    d_ok: float                      # nearest same-card distance seen across shots (upper percentile)
    min_conf: float = 0.5
    mean: np.ndarray | None = None   # search axes (`principal_axes`); fitted on first use when absent
    basis: np.ndarray | None = None
    marks: bool = True               # learned lone marks (`lone_marks`); False in files before version 3
    stock_cut: float | None = None   # the stock reader's readings at this cut come first (None: left out)
    reader: AgreeingPair | None = None   # the stock pair adapted to this deck (`deck_reader`), read in its place
    mark_conf: float | None = None       # a lone mark names a Joker at this confidence or more (None: min_conf)
    _index: NeighbourIndex | None = field(default=None, init=False, repr=False, compare=False)
    _mark_index: NeighbourIndex | None = field(default=None, init=False, repr=False, compare=False)

    # -- learning ---------------------------------------------------------------------
    @classmethod
    def fit(cls, shots: Sequence[Shot], *, augment: bool = True, adapt: bool = True) -> "DeckStore":
        """Learn from shots of known cards; each card should have two or more shots (for `d_ok`).

        With `augment`, each shot is also learned under two changes of light
        (warmer and dimmer, cooler and brighter), so a lamp switched on later
        still matches; the distance scale is measured on the real shots only. With `adapt`, the stock
        reader is adapted to the deck (`fit_labelled`).
        """
        images = ([label_shot(Shot(shot.card, img, shot.name)) for img in (relit(shot.image) if augment
                                                                          else [shot.image])] for shot in shots)
        return cls.fit_labelled(images, cards=[s.card for s in shots], adapt=adapt)

    @classmethod
    def fit_labelled(cls, images: Iterable[Sequence[Labelled]], cards: Iterable[str] | None = None, *,
                     adapt: bool = True, log: Callable[[str], None] | None = None) -> "DeckStore":
        """Learn from labelled images, each one "shot" (`store_learning.learn_rows`: per image, its candidates
        as taken, then any augmented versions of it). `cards`: the cards shown (default: every label).
        With `adapt`, the stock pair is also fine-tuned on the images' rank-over-suit rows as taken
        (`deck_reader.adapt_pair`); `log` hears its epochs.
        """
        rows = learn_rows(images)
        shown = set(cards) if cards is not None else {str(x) for x in rows.labels if x != NOT_INDEX}
        mean, basis = principal_axes(rows.vectors)
        reader = (adapt_pair(rows.pair_rows, rows.pair_labels, log=log) if adapt and rows.pair_rows is not None
                  else None)
        return cls(rows.vectors, rows.labels, sorted(shown, key=card_order), rows.d_ok, mean=mean, basis=basis,
                   reader=reader)

    # -- naming ---------------------------------------------------------------------
    def vote(self, x: np.ndarray, *, floor: float = 0.0, marks: np.ndarray | None = None,
             index: NeighbourIndex | None = None) -> Votes:
        """For feature rows (`marks`: which are lone marks): (best card or "-", confidence 0..1, and the
        distance to its nearest stored row of that card, else inf) per row.

        Each row is named by its `neighbour_search.K` nearest stored rows, weighted by closeness (zero at twice
        `d_ok`).
        With `floor`, rows that cannot reach that confidence (no card row within
        `d_ok * sqrt(-2 ln floor)`) are not searched and come back "-" with confidence 0. `index`: the rows
        searched (default all; `mark_index` for lone marks alone, which only mark rows can name).
        """
        n = len(x)
        names, conf, dist = [NOT_INDEX] * n, np.zeros(n), np.full(n, np.inf)
        if n == 0 or len(self.labels) == 0:
            return names, conf, dist
        cut = 2.0 * self.d_ok
        radius = cut if floor <= 0 else min(cut, self.d_ok * math.sqrt(max(0.0, -2.0 * math.log(min(floor, 1.0)))))
        index = index or self.index()
        rows, near, d = index.nearest(embed(x, marks), radius)
        w = np.maximum(0.0, 1.0 - d / cut)                        # (m, K), nearest first
        lab = index.label_ids[near]
        votes = (w[:, None, :] * (lab[:, :, None] == lab[:, None, :])).sum(axis=2)   # each neighbour's label total
        top = votes.argmax(axis=1)                              # ties: the nearer neighbour's label
        total = w.sum(axis=1)
        for m, i in enumerate(rows):
            best = lab[m, top[m]]
            if total[m] <= 0 or best == 0:
                continue
            d1 = float(d[m][lab[m] == best][0])                  # its nearest row of that card
            names[i] = index.names[best]
            conf[i] = votes[m, top[m]] / total[m] * math.exp(-0.5 * (d1 / self.d_ok) ** 2)  # 0.61 at d_ok
            dist[i] = d1
        return names, conf, dist

    def index(self) -> NeighbourIndex:
        """The search structure over the rows (built on first use)."""
        if self._index is None:
            if self.basis is None and len(self.vectors) > EXACT_UP_TO:
                self.mean, self.basis = principal_axes(self.vectors)
            self._index = NeighbourIndex(self.vectors, self.labels, self.mean, self.basis)
        return self._index

    def mark_index(self) -> NeighbourIndex:
        """The lone-mark rows alone (`embed` turns them to point away from every other row), searched like all rows
        (through the store's principal axes when it has them, which is faster)."""
        if self._mark_index is None:
            mark = (self.vectors < 0).any(axis=1)   # every other row's numbers are all >= 0 (faster than a sum)
            self._mark_index = NeighbourIndex(self.vectors[mark], self.labels[mark], self.mean, self.basis)
        return self._mark_index

    def faint_joker(self, image: np.ndarray, frame: Frame, scale: float, skip: set[int], floor: float
                    ) -> Detection | None:
        """A Joker named from a mark too faint to be a lone mark at the working size (`faint_marks`): its
        full-size box shows the counters, the store votes it a Joker there, and a full-size crop around it
        names one at `floor` and the store's `mark_conf`. `skip`: the frame's lone marks and claimed blobs.
        None when no such mark is found."""
        if not (self.mark_index().label_ids > 0).any():
            return None   # no Joker mark learned
        blobs = faint_blobs(image, frame, scale, skip)
        if not blobs:
            return None
        cands = lone_marks(blobs)
        names, _, _ = self.vote(features(frame, cands), marks=np.ones(len(cands), bool), index=self.mark_index())
        voted = {c.suit.idx for c, name in zip(cands, names) if name == JOKER}
        need = max(floor, self.mark_conf or 0.0)
        for blob in (b for b in blobs if b.idx in voted):
            closer = closer_marks(image, blob, scale)
            if closer is None or not closer[1]:
                continue
            cframe, marks, (x0, y0) = closer
            names, conf, _ = self.vote(features(cframe, marks), floor=need, marks=np.ones(len(marks), bool),
                                       index=self.mark_index())
            sure = [(float(c), m) for name, c, m in zip(names, conf, marks) if name == JOKER and c >= need]
            if sure:
                c, m = max(sure, key=lambda t: t[0])
                return Detection(Card(JOKER), c, (x0 + m.cx, y0 + m.cy))
        return None

    def __call__(self, image: np.ndarray, *, min_conf: float | None = None,
                 include_unsure: bool = False) -> list[Detection]:
        """Cards named in a BGR image, most confident first: the `recognize()` contract,
        so it can be handed to `CardPipeline(recognizer=...)`."""
        frame, cands, x, scale, _ = framed_candidates(image, marks=self.marks)
        return self.name(cands, x, scale, min_conf=min_conf, include_unsure=include_unsure, frame=frame,
                         image=None if include_unsure else image)

    def name(self, cands: Sequence[Candidate], x: np.ndarray, scale: float, *, min_conf: float | None = None,
             include_unsure: bool = False, frame: Frame | None = None,
             image: np.ndarray | None = None) -> list[Detection]:
        """Cards named from an image's candidates and feature rows (`store_rows.candidates`), as `__call__`. Given the
        candidates' `frame` and a `stock_cut`, the stock reader's sure readings come first (`stock_first`);
        the store then searches only the rows whose glyphs they left free (the others could not claim them) and
        those of the readings it checks, and neither names what the other contradicts (`disagreeing`).
        Given the `image` as well, the stock reader's unsure readings of cards still unnamed get its second
        look (`recognize.second_look`, at the stock cut or the stock reader's own, whichever is higher), and so
        do the store's votes from `LOOK_FLOOR` up to its cut (`_named`).

        The store does not search candidates its reader calls no index at `NO_INDEX_SURE` or more: the deck's
        reader was fitted on this deck's own indices, so a store vote there is a stray match."""
        floor = self.min_conf if min_conf is None else min_conf
        store_at = 0.0 if include_unsure else floor
        marks = mark_rows(cands)
        if frame is None or self.stock_cut is None:
            return self._named(cands, scale, self.vote(x, floor=store_at, marks=marks), ({}, set()), [], floor,
                               include_unsure, frame, image)
        stock, no_index = stock_read(frame, cands, x, min(self.stock_cut, SECOND_LOOK_FLOOR), self.reader)
        checked = (self.stock_cut, STOCK_MIN_CONFIDENCE)
        # the store searches the rows the sure readings leave free, and those of the readings it checks, but not
        # those the reader is sure are no index
        first = stock_first(frame, [t for t in stock if t[0] >= self.stock_cut], scale)
        check = {id(t[2]) for t in stock if checked[0] <= t[0] < checked[1]}
        index_like = no_index < NO_INDEX_SURE
        rows = np.array([id(c) in check or not (c.blob_ids & first[1]) for c in cands], bool) & index_like
        vote_at = min(store_at, LOOK_FLOOR)   # a vote below the store's cut may still get a second look
        voted = self.vote_rows(x, rows, floor=vote_at, marks=marks)
        kept, agreed = disagreeing(cands, stock, voted, floor, checked)
        if len(kept) < len(stock) and not rows.all():   # a vetoed reading frees its glyphs: every index-like row
            kept, agreed = disagreeing(cands, stock, self.vote_rows(x, index_like, floor=vote_at, marks=marks),
                                       floor, checked)
        if len(kept) < len(stock):   # the sure readings left claim anew
            first = stock_first(frame, [t for t in kept if t[0] >= self.stock_cut], scale)
        names, conf, _ = agreed
        short = sorted(((float(conf[i]), Card.parse(names[i]), cands[i]) for i in range(len(cands))
                        if names[i] != NOT_INDEX and not marks[i] and LOOK_FLOOR <= conf[i] < floor),
                       key=lambda t: -t[0])
        return self._named(cands, scale, agreed, first, [t for t in kept if t[0] < self.stock_cut], floor,
                           include_unsure, frame, image, short)

    def _named(self, cands: Sequence[Candidate], scale: float, voted: Votes,
               first: tuple[dict[Card, Detection], set[int]], unsure: list[Reading], floor: float,
               include_unsure: bool, frame: Frame | None, image: np.ndarray | None,
               short: Sequence[Reading] = ()) -> list[Detection]:
        """`name` once the readings are in: the store's votes after the sure stock readings, a faint Joker, and
        the second looks: the unsure readings' by the deck's reader, then the store's votes `short` of its cut
        by the stock reader (`recognize.second_look`: the same card read surely enough at a finer scale, with its
        suit's shape). The stock reader is trained on no photo of this deck, so it is a second opinion the
        adapted reader is not."""
        claimed: set[int] = set()
        found = store_after(cands, scale, voted, None if include_unsure else floor, *first, claimed=claimed,
                            mark_floor=self.mark_conf)
        if (image is not None and frame is not None and not include_unsure and self.marks and JOKER in self.cards
                and not any(d.card.is_joker for d in found)):
            marks = {c.suit.idx for c in cands if is_mark(c)}   # their counters were counted: not faint
            joker = self.faint_joker(image, frame, scale, claimed | marks, floor)
            found += [joker] if joker is not None else []
        if image is None or frame is None or include_unsure or not (unsure or short):
            return found
        gate = max(self.stock_cut or 0.0, STOCK_MIN_CONFIDENCE)
        found += second_look(image, frame, unsure, scale, claimed, {d.card: d for d in found}, gate, self.reader)
        return found + second_look(image, frame, list(short), scale, claimed, {d.card: d for d in found}, gate, None)

    def vote_rows(self, x: np.ndarray, rows: np.ndarray, *, floor: float = 0.0, marks: np.ndarray | None = None
                  ) -> Votes:
        """`vote` for the rows where `rows` (a boolean mask) is set; the others come back "-", 0, inf."""
        if rows.all():
            return self.vote(x, floor=floor, marks=marks)
        names, conf, dist = [NOT_INDEX] * len(x), np.zeros(len(x)), np.full(len(x), np.inf)
        at = np.flatnonzero(rows)
        if len(at):
            n, c, d = self.vote(x[at], floor=floor, marks=None if marks is None else marks[at])
            for k, i in enumerate(at):
                names[i] = n[k]
            conf[at], dist[at] = c, d
        return names, conf, dist

    # -- storage ---------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The store as file contents (`store_file`)."""
        return store_bytes(self)

    def save(self, path: str | Path) -> str:
        """Write the store; returns its sha256 (recorded in the profile)."""
        data = self.to_bytes()
        Path(path).write_bytes(data)
        return hashlib.sha256(data).hexdigest()

    @classmethod
    def load(cls, path: str | Path, sha256: str | None = None) -> "DeckStore":
        """Read a store; with `sha256`, refuse one that is not the file the profile names."""
        data = Path(path).read_bytes()
        if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
            raise ValueError(f"{path}: does not match the profile's sha256 (recalibrate the deck)")
        return cls(**store_fields(data, path))

"""A per-deck nearest-neighbour store of corner indices: the recognizer adapted to one deck.

The stock classifier was trained on rendered cards; a real deck's index font and
court art can fool it. Calibration shows the deck's own cards, so this store
keeps the vision module's index features (`index_detect.features`) of every
candidate on those shots: the true corner indices labelled with their card,
everything else (pips, court art, wrong pairings) labelled "-" so it votes
against naming. A candidate at game time is named by its nearest stored
neighbours. Rotation and scale are already normalised by the feature extractor.

Jokers: a deck whose Joker prints one mark in its corners (Bicycle's dollar-like monogram)
has no rank-over-suit index there, so the stock readers never see it. A store also
keeps lone marks (`index_detect.mark_candidates`: blobs enclosing three or more
counters), labelled like indices, and only marks can name a mark (`embed`).
Measured on scenes-bicycle (held-out half): 17 of the 23 Jokers named, none wrongly,
recall 0.923 -> 0.942 at precision 0.996; about 1 ms more per image. Most missed marks show their
counters only at the photo's own size (4-6 at 720 px, 0-2 at the 384 px working size): a store looks
closer at those (`faint_joker`, `faint_marks`), which named 6 of the 10 Jokers missed over both folds.

The stock reader reads first: where it is sure (a `stock_cut` chosen with the store's
own cut at calibration, or None to leave it out) its readings claim their glyphs, and
the store names the rest (`stock_first`, `store_after`). On scenes-bicycle's held-out half that took
a store from 0.942 to 0.953 recall and from 4 wrong names to 2 (bench/RESULTS.md). Since version 4 the
store keeps that reader adapted to its deck (`reader`: the stock pair fine-tuned on the deck's labelled
corners, `deck_reader`): on all 800 photos by two folds 0.971 -> 0.977 (session 23; 0.984 with the
closer look at faint Joker marks and cuts chosen on four inner folds, `calibration.labelled_scenes`).
Where the two read the same glyphs as different cards, neither is taken (`disagreeing`).

Naming must fit in a few milliseconds beside the ~8 ms the candidates cost, and a
store learned from a few hundred photos holds ~50k rows of 604 numbers, so a
large store is searched through its principal axes (fitted at calibration, saved
in the store): a candidate that no card row can be near enough to name is
skipped (a lower bound in the projected space, so none that could be named is
lost), the rest rank the rows of their nearest lists in `SEARCH_DIMS` dimensions
(`_Index`) and re-rank a short list at full dimension. Measured on scenes-bicycle (held-out half, same store):
recall and precision within 0.002 of the brute-force search, naming ~80 ms ->
~4 ms per image on one busy core (bench/RESULTS.md has the whole-image times).

It lives beside the recognizer (not in `calibration/`) so `referee recognize
--deck STORE` can load one; `calibration.deck_store` re-exports it.
"""
from __future__ import annotations

import hashlib
import io
import math
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple, Sequence

import cv2
import numpy as np

from ..core.cards import JOKER, Card
from .classifier import NO_INDEX as NO_INDEX_CLASS
from .classifier import AgreeingPair, IndexModel, default_model
from .deck_reader import NOT_INDEX, adapt_pair, pair_arrays, pair_from_arrays
from .faint_marks import closer_marks, faint_blobs
from .index_features import CTX_PATCH, N_FEATURES, RANK_PATCH, SUIT_PATCH, features
from .index_pairing import Candidate, pair_candidates
from .ink_blobs import Frame, find_blobs
from .lone_marks import is_mark, lone_marks, mark_candidates
from .working_size import prepare
from .recognize import MIN_CONFIDENCE as STOCK_MIN_CONFIDENCE
from .recognize import SECOND_LOOK_FLOOR, Detection, Reading, claim, read_rows, second_look

K = 3
GEOM_WEIGHT = 3.0
_PATCHES = RANK_PATCH * RANK_PATCH + SUIT_PATCH * SUIT_PATCH
_GEOM_AT = _PATCHES + CTX_PATCH * CTX_PATCH
STORE_VERSION = 4     # 2 adds the search axes (mean, basis; fitted on load for 1), 3 lone marks (Jokers; off for 1-2),
#                       4 the adapted reader (`deck_reader`; optional); an optional stock_cut (absent: the store
#                       alone) needs no new version: older readers ignore it
SEARCH_DIMS = 48      # principal axes every row is ranked in
GATE_DIMS = 128       # principal axes of the lower bound that skips candidates near no card row
SHORTLIST = 8         # rows per candidate re-ranked at full dimension
LIST_ROWS = 256       # rows per list of the ranking's inverted file (k-means cells on the search axes)
PROBES = 3            # lists a candidate ranks the rows of (its nearest cells)
EXACT_UP_TO = 2048    # stores this small are searched exactly
READER_PREFIX = "reader_"   # the adapted pair's arrays in a store file
VETO = 0.5            # a store vote is dropped where the reader reads its candidate as another card this surely
LOOK_FLOOR = 0.9      # a store vote this sure, short of the store's cut, gets the stock reader's second look
NO_INDEX_SURE = 0.99  # a candidate the deck's reader calls no index this surely is not searched (`DeckStore.name`)



class Labelled(NamedTuple):
    """One image's candidates as a store learns them: their embeddings and labels (card or "-"), and the raw
    feature rows of its rank-over-suit candidates with their labels (the adapted reader learns from those)."""

    vectors: np.ndarray
    labels: Sequence[str]
    pair_rows: np.ndarray | None = None
    pair_labels: Sequence[str] = ()


def labelled(cands: Sequence[Candidate], x: np.ndarray, names: Sequence[str]) -> Labelled:
    """`Labelled` rows of an image's candidates (`candidates()`: their feature rows `x`) named `names`."""
    marks = mark_rows(cands)
    pairs = np.flatnonzero(~marks)
    return Labelled(embed(x, marks), list(names), x[pairs], [names[int(i)] for i in pairs])


def embed(x: np.ndarray, marks: np.ndarray | None = None) -> np.ndarray:
    """Unit-length vectors of rank patch, suit patch and geometry (the paper context is
    left out: it follows the lighting, not the card). Rows of lone marks (`marks`) are turned to point the
    other way: every feature is >= 0, so a mark is at least sqrt(2) from every rank-over-suit row and only
    marks can name a mark (in a small store, table texture read as a pair of blobs sat near the Joker's)."""
    e = np.hstack([x[:, :_PATCHES], x[:, _GEOM_AT:] * GEOM_WEIGHT]).astype(np.float32)
    e /= np.linalg.norm(e, axis=1, keepdims=True) + 1e-6
    if marks is not None:
        e[marks] *= -1.0
    return e


def mark_rows(cands: Sequence[Candidate]) -> np.ndarray:
    """Which candidates are lone marks (`index_detect.mark_candidates`), for `embed`."""
    return np.array([is_mark(c) for c in cands], bool)


def candidates(image: np.ndarray, *, marks: bool = True) -> tuple[list[Candidate], np.ndarray, float, tuple[int, int]]:
    """Index candidates of a BGR image at the vision module's working size, with `marks` lone marks too (a
    Joker's corner): (candidates, feature rows, scale, (w, h) of the working image)."""
    _, cands, x, scale, size = framed_candidates(image, marks=marks)
    return cands, x, scale, size


def framed_candidates(image: np.ndarray, *, marks: bool = True
                      ) -> tuple[Frame, list[Candidate], np.ndarray, float, tuple[int, int]]:
    """`candidates`, with the blob frame they were found in first (the stock reader's shape checks need it)."""
    small, scale = prepare(image)
    frame = find_blobs(small)
    cands = pair_candidates(frame) + (mark_candidates(frame) if marks else [])
    return frame, cands, features(frame, cands), scale, (small.shape[1], small.shape[0])


def upright(card_image: np.ndarray) -> np.ndarray:
    """A card photo turned portrait (indices sit in the corners of the short edges)."""
    h, w = card_image.shape[:2]
    return cv2.rotate(card_image, cv2.ROTATE_90_CLOCKWISE) if w > h else card_image


def index_mask(cands: Sequence[Candidate], size: tuple[int, int], *, corner_x: float = 0.25,
               corner_y: float = 0.22) -> np.ndarray:
    """Which candidates of a flattened, portrait card are its printed corner indices.

    An index sits in a corner, reads along the card's long side with the rank
    nearer the short edge: at the top corners the rank is above the suit, at
    the bottom corners (printed upside down) below it.
    """
    w, h = size
    out = np.zeros(len(cands), bool)
    for i, c in enumerate(cands):
        top = c.cy < h / 2
        in_corner = min(c.cx, w - c.cx) < corner_x * w and min(c.cy, h - c.cy) < corner_y * h
        # a lone mark (a Joker's) reads either way up: both of its readings are the card
        out[i] = in_corner and abs(c.uy) > 0.8 and (is_mark(c) or (c.uy > 0) == top)
    return out


@dataclass
class Shot:
    """One photo of one known card, flattened to the card (any rotation by 90°)."""

    card: str
    image: np.ndarray
    name: str = ""


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
    marks: bool = True               # learned lone marks (index_detect.mark_candidates); not before version 3
    stock_cut: float | None = None   # the stock reader's readings at this cut come first (None: left out)
    reader: AgreeingPair | None = None   # the stock pair adapted to this deck (`deck_reader`), read in its place
    mark_conf: float | None = None       # a lone mark names a Joker at this confidence or more (None: min_conf)
    _index: _Index | None = field(default=None, init=False, repr=False, compare=False)
    _mark_index: _Index | None = field(default=None, init=False, repr=False, compare=False)

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
        """Learn from labelled images, each one "shot": per image, its candidates as taken, then
        any augmented versions of it (used as examples, not for the distance scale `d_ok`, which
        is measured between different images). `cards`: the cards shown (default: every label).
        With `adapt`, the stock pair is also fine-tuned on the images' rank-over-suit rows as taken
        (`deck_reader.adapt_pair`; relit copies named no more there); `log` hears its epochs.

        "-" rows too far from every card's rows to ever outvote one are dropped (see `_prune`).
        """
        vecs: list[np.ndarray] = []
        labels: list[str] = []
        shot_of: list[int] = []
        pair_rows: list[np.ndarray] = []
        pair_labels: list[str] = []
        for n, versions in enumerate(images):
            for k, rows in enumerate(versions):
                vecs.append(rows.vectors)
                labels += list(rows.labels)
                shot_of += [n if k == 0 else -1] * len(rows.labels)
                if k == 0 and rows.pair_rows is not None and len(rows.pair_rows):
                    pair_rows.append(rows.pair_rows)
                    pair_labels += list(rows.pair_labels)
        v = np.vstack(vecs) if vecs else np.zeros((0, 1), np.float32)
        lab = np.array(labels, dtype=object)
        shot_ids = np.array(shot_of, dtype=np.int64)
        real = shot_ids >= 0
        d_ok = _cross_shot_scale(v[real], lab[real], shot_ids[real])
        keep = _prune(v, lab, 2.0 * d_ok)
        shown = set(cards) if cards is not None else {str(x) for x in lab if x != NOT_INDEX}
        mean, basis = principal_axes(v[keep])
        reader = adapt_pair(np.vstack(pair_rows), pair_labels, log=log) if adapt and pair_rows else None
        return cls(v[keep], lab[keep], sorted(shown, key=_card_key), d_ok, mean=mean, basis=basis, reader=reader)

    # -- naming ---------------------------------------------------------------------
    def vote(self, x: np.ndarray, *, floor: float = 0.0, marks: np.ndarray | None = None,
             index: _Index | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
        """For feature rows (`marks`: which are lone marks): (best card or "-", confidence 0..1, and the
        distance to its nearest stored row of that card, else inf) per row.

        Each row is named by its `K` nearest stored rows, weighted by closeness (zero at twice `d_ok`).
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

    def index(self) -> _Index:
        """The search structure over the rows (built on first use)."""
        if self._index is None:
            if self.basis is None and len(self.vectors) > EXACT_UP_TO:
                self.mean, self.basis = principal_axes(self.vectors)
            self._index = _Index(self.vectors, self.labels, self.mean, self.basis)
        return self._index

    def mark_index(self) -> _Index:
        """The lone-mark rows alone (`embed` turns them to point away from every other row), searched like all rows
        (through the store's principal axes when it has them: 1.1 -> 0.3 ms a photo on scenes-bicycle)."""
        if self._mark_index is None:
            mark = (self.vectors < 0).any(axis=1)   # every other row's numbers are all >= 0 (0.07 s; a sum: 0.4)
            self._mark_index = _Index(self.vectors[mark], self.labels[mark], self.mean, self.basis)
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
        """Cards named from an image's candidates and feature rows (`candidates()`), as `__call__`. Given the
        candidates' `frame` and a `stock_cut`, the stock reader's sure readings come first (`stock_first`);
        the store then searches only the rows whose glyphs they left free (the others could not claim them) and
        those of the readings it checks, and neither names what the other contradicts (`disagreeing`).
        Given the `image` as well, the stock reader's unsure readings of cards still unnamed get its second
        look (`recognize.second_look`, at the stock cut or the stock reader's own, whichever is higher), and so
        do the store's votes from `LOOK_FLOOR` up to its cut (`_named`).

        The store does not search candidates its reader calls no index at `NO_INDEX_SURE` or more: the deck's
        reader was fitted on this deck's own indices, so a store vote there is a stray match. Scenes-bicycle, two
        folds (session 27; the rule and its 0.99 chosen on these photos): the same 1916 of 1935 named, 4 -> 3 wrong
        (a QS gone), about 1 ms a photo less (half the rows a photo are left out)."""
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

    def _named(self, cands: Sequence[Candidate], scale: float, voted: tuple[list[str], np.ndarray, np.ndarray],
               first: tuple[dict[Card, Detection], set[int]], unsure: list[Reading], floor: float,
               include_unsure: bool, frame: Frame | None, image: np.ndarray | None,
               short: Sequence[Reading] = ()) -> list[Detection]:
        """`name` once the readings are in: the store's votes after the sure stock readings, a faint Joker, and
        the second looks: the unsure readings' by the deck's reader, then the store's votes `short` of its cut
        by the stock reader (`recognize.second_look`: the same card read surely enough at a finer scale, with its
        suit's shape). The stock reader is trained on no photo of this deck, so it is a second opinion the
        adapted reader is not. On scenes-bicycle (two folds, session 26; the rule and `LOOK_FLOOR` chosen on
        these photos): 1915 -> 1916 of 1935 named (a KH the store voted 0.93), no wrong name added; ~0.9 ms
        a photo, for the wider vote."""
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
                  ) -> tuple[list[str], np.ndarray, np.ndarray]:
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
        arrays: dict[str, Any] = {
            "version": np.int32(STORE_VERSION), "vectors": self.vectors.astype(np.float16),
            "labels": np.array(self.labels, dtype="U8"), "cards": np.array(self.cards, dtype="U8"),
            "d_ok": np.float32(self.d_ok), "min_conf": np.float32(self.min_conf), "marks": np.bool_(self.marks)}
        if self.basis is not None and self.mean is not None:
            arrays.update(mean=self.mean.astype(np.float32), basis=self.basis.astype(np.float32))
        if self.stock_cut is not None:
            arrays.update(stock_cut=np.float32(self.stock_cut))
        if self.reader is not None:
            arrays.update(pair_arrays(self.reader, READER_PREFIX))
        if self.mark_conf is not None:
            arrays.update(mark_conf=np.float32(self.mark_conf))
        buf = io.BytesIO()
        np.savez_compressed(buf, **arrays)
        return buf.getvalue()

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
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                version = int(z["version"])
                if version not in (1, 2, 3, STORE_VERSION):
                    raise ValueError(f"{path}: deck store version {version} is not supported (this referee reads "
                                     f"1 to {STORE_VERSION}; recalibrate the deck)")
                axes = (z["mean"].astype(np.float32), z["basis"].astype(np.float32)) if "basis" in z.files else (None, None)
                store = cls(z["vectors"], z["labels"].astype(object), [str(c) for c in z["cards"]],
                            float(z["d_ok"]), float(z["min_conf"]), mean=axes[0], basis=axes[1],
                            marks=bool(z["marks"]) if "marks" in z.files else False,
                            stock_cut=round(float(z["stock_cut"]), 4) if "stock_cut" in z.files else None,
                            mark_conf=round(float(z["mark_conf"]), 4) if "mark_conf" in z.files else None,
                            reader=pair_from_arrays({k: z[k] for k in z.files if k.startswith(READER_PREFIX)},
                                                    READER_PREFIX))
        except (KeyError, EOFError, OSError, zipfile.BadZipFile, TypeError) as exc:
            raise ValueError(f"{path}: not a deck store ({type(exc).__name__})") from None
        except ValueError as exc:
            if "not supported" in str(exc):
                raise
            raise ValueError(f"{path}: not a deck store (unreadable npz)") from None
        if store.vectors.ndim != 2 or len(store.vectors) != len(store.labels):
            raise ValueError(f"{path}: not a deck store (vectors and labels disagree)")
        if store.reader is not None and any(m.w1.shape[0] != N_FEATURES or m.mean.shape != (N_FEATURES,)
                                            for m in (store.reader.drawn, store.reader.filled)):
            raise ValueError(f"{path}: not a deck store (its adapted reader does not read this referee's features)")
        dim = store.vectors.shape[1]
        if store.basis is not None and (store.basis.ndim != 2 or store.basis.shape[0] != dim
                                        or store.mean is None or store.mean.shape != (dim,)):
            raise ValueError(f"{path}: not a deck store (search axes and vectors disagree)")
        return store


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


def disagreeing(cands: Sequence[Candidate], stock: Sequence[Reading], voted: tuple[list[str], np.ndarray, np.ndarray],
                store_at: float, checked: tuple[float, float]
                ) -> tuple[list[Reading], tuple[list[str], np.ndarray, np.ndarray]]:
    """The stock readings and store votes less those the other contradicts: a vote whose candidate the reader
    reads as another card at `VETO` or more, and a reading in `checked` (lo <= confidence < hi) whose
    candidate the store names another card (votes it at `store_at`, the store's cut). Where the two read the
    same glyphs as different cards, one is wrong and neither is sure. `DeckStore.name` checks the readings
    between the store's stock cut and the stock reader's own cut: the store searches each one's glyphs (~0.3 ms).
    Scenes-bicycle, the stores of session 24 by two folds (the rule and the 0.5 chosen on those photos):
    1914 -> 1915 of 1935 named, 6 -> 4 wrong."""
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
    the store's (`store_after`).

    Stock first: the stock reader at a high cut is rarely wrong, and where the two read the same glyphs
    differently the store was the wrong one (scenes-bicycle, a store learned from the learn half, held-out
    half: the store alone 0.942 recall with 4 wrong names; stock first at 0.97 / 0.98: 0.953 / 0.952 with
    2 / 1; the store first and the stock after gained less and kept the store's 4)."""
    best: dict[Card, Detection] = {}
    used: set[int] = set()
    claim(frame, list(stock), scale, used, best)
    return best, used


def store_after(cands: Sequence[Candidate], scale: float, voted: tuple[list[str], np.ndarray, np.ndarray],
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


def principal_axes(v: np.ndarray, dims: int = GATE_DIMS, chunk: int = 8192
                   ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(mean, (d, k) principal axes) of the rows, for the search; (None, None) for a store small
    enough to search exactly."""
    if len(v) <= EXACT_UP_TO:
        return None, None
    mean = v.mean(axis=0, dtype=np.float64)
    cov = np.zeros((v.shape[1], v.shape[1]))
    for s in range(0, len(v), chunk):
        c = v[s:s + chunk].astype(np.float64) - mean
        cov += c.T @ c
    _, vecs = np.linalg.eigh(cov)                         # ascending eigenvalues
    k = min(dims, v.shape[1])
    return mean.astype(np.float32), np.ascontiguousarray(vecs[:, ::-1][:, :k].astype(np.float32))


class _Index:
    """The rows as `DeckStore.vote` searches them: exactly for a small store, else through principal axes.

    Squared distances between unit rows are twice their cosine distances, and a
    projection onto orthonormal axes never lengthens a difference: so a
    candidate whose projected distance to every card row exceeds the radius is
    surely that far, and is skipped. The others are ranked on the first
    `SEARCH_DIMS` axes against the rows of their `PROBES` nearest lists (an
    inverted file: the rows in k-means cells of ~`LIST_ROWS`, made when the index
    is built, ~0.4 s for 64k rows); the `SHORTLIST` nearest are re-ranked exactly.
    Ranking every row read all 64k x 49 numbers for each photo (~1.5 ms, bound by
    memory); three lists of 250 read an eightieth of them. On scenes-bicycle (two
    folds, session 26's stores) 4, 8 and 16 lists named the same cards and the same
    4 wrong ones as ranking every row; 1 and 2 lists the same cards with 3 and 2 wrong.
    Session 27 (junk rows left out, `DeckStore.name`): 3 and 4 lists the same cards and
    the same 3 wrong; 3 lists ~0.14 ms a photo less than 4.
    """

    def __init__(self, vectors: np.ndarray, labels: np.ndarray, mean: np.ndarray | None,
                 basis: np.ndarray | None, chunk: int = 8192) -> None:
        self.names = [NOT_INDEX] + sorted({str(x) for x in labels} - {NOT_INDEX})
        ids = {name: i for i, name in enumerate(self.names)}
        self.label_ids = np.array([ids[str(x)] for x in labels], dtype=np.int64)
        card = self.label_ids > 0
        self.exact = basis is None or mean is None
        if basis is None or mean is None:
            self.rows = np.ascontiguousarray(vectors, dtype=np.float32)
            self.card_rows = self.rows[card]
            return
        self.rows = np.ascontiguousarray(vectors, dtype=np.float16)   # re-ranking reads only a few rows
        self.mean, self.basis = mean, basis
        z = np.vstack([(vectors[s:s + chunk].astype(np.float32) - mean) @ basis for s in range(0, len(vectors), chunk)])
        zs = z[:, :min(SEARCH_DIMS, z.shape[1])]
        cells, centres = _cells(zs, max(1, len(zs) // LIST_ROWS))
        self.order = np.argsort(cells, kind="stable")          # rows list by list
        self.starts = np.searchsorted(cells[self.order], np.arange(len(centres) + 1))
        self.ranked = np.ascontiguousarray(_ranker(zs[self.order]).T)   # (n, d + 1), one row per stored row
        self.centres_t = _ranker(centres)
        zc = z[card]
        # a coarse bound, then the tight one; by card row, so the rows a bound still looks at are gathered fast
        self.gate = [np.ascontiguousarray(_ranker(zc[:, :min(32, z.shape[1])]).T), np.ascontiguousarray(_ranker(zc).T)]

    def nearest(self, e: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For unit rows `e`: (which rows have a card row within `radius`, their `K` nearest stored rows
        (m, K), those rows' cosine distances, nearest first)."""
        if self.exact:
            d = 1.0 - e @ self.rows.T
            keep = np.nonzero((1.0 - e @ self.card_rows.T).min(axis=1, initial=np.inf) <= radius)[0]
            d = d[keep]
            k = min(K, d.shape[1])
            near = np.argpartition(d, k - 1, axis=1)[:, :k] if len(keep) else np.zeros((0, k), np.int64)
        else:
            q = (e - self.mean) @ self.basis
            keep = np.arange(len(e))
            cols = np.arange(len(self.gate[0]))   # the card rows a bound still has to look at
            bound = 2.0 * radius + 2e-3   # + float16 rows off unit length
            for n, by_row in enumerate(self.gate, 1):
                qg = q[keep, :by_row.shape[1] - 1]
                sq = (qg ** 2).sum(axis=1)
                # the rows still looked at, gathered as rows (a third of the time of gathering matrix columns)
                lo = _with_one(qg) @ (by_row if len(cols) == len(by_row) else by_row[cols]).T
                ok = lo.min(axis=1, initial=np.inf) + sq <= bound
                keep = keep[ok]
                if not len(keep) or n == len(self.gate):
                    break
                # a card row beyond the bound in the first dimensions is beyond it in all: the next bound
                # reads only the columns a kept row came near (a tenth of its time; 1e-3 for rounding)
                lo[~ok] = np.inf   # rows dropped count nowhere (in place: most rows are kept, a copy cost 0.4 ms)
                lo += sq[:, None]
                cols = cols[lo.min(axis=0) <= bound + 1e-3]
            short = self._shortlist(q[keep, :self.ranked.shape[1] - 1])
            d = 1.0 - np.einsum("ij,ikj->ik", e[keep], self.rows[short].astype(np.float32))
            near = short
        order = np.argsort(np.take_along_axis(d, near, axis=1) if self.exact else d, axis=1)[:, :K]
        near = np.take_along_axis(near, order, axis=1)
        dist = np.take_along_axis(d, near, axis=1) if self.exact else np.take_along_axis(d, order, axis=1)
        return keep, near, dist

    def _shortlist(self, q: np.ndarray) -> np.ndarray:
        """Row numbers of the `SHORTLIST` rows nearest each projected query on the search axes, among the rows of
        its own `PROBES` nearest lists (so a query's shortlist never depends on what is searched with it)."""
        k = min(SHORTLIST, len(self.order))
        out = np.empty((len(q), k), np.int64)
        if not len(q):
            return out
        qq = _with_one(q)
        n_lists = len(self.starts) - 1
        probes = min(PROBES, n_lists)
        if len(self.order) <= EXACT_UP_TO:   # a small index (a deck's ~1700 Joker-mark rows, 6 lists): every row,
            # all queries at once (query by query through its lists cost ~45 us a query)
            return self.order[_smallest(qq @ self.ranked.T, k)]
        near = np.sort(np.argpartition(qq @ self.centres_t, probes - 1, axis=1)[:, :probes], axis=1)
        starts, sizes = self.starts[:-1].tolist(), np.diff(self.starts).tolist()
        for i, lists in enumerate(near.tolist()):
            spans = [(starts[j], sizes[j]) for j in lists]
            if sum(n for _, n in spans) < k:   # its lists are too small: all rows
                spans = [(0, len(self.order))]
            # list by list: each list's rows are one block of `ranked`, read in place (Python numbers: a numpy call
            # less is a few us less for each of a photo's ~15-40 queries)
            d = np.empty(sum(n for _, n in spans), np.float32)
            at = 0
            for a, n in spans:
                np.matmul(self.ranked[a:a + n], qq[i], out=d[at:at + n])
                at += n
            # the k smallest (ties: the earlier row), by what sorts fastest here: all ~1000 numbers (6 us) for the
            # k-th, then those as near (argpartition: 14 us)
            best = np.flatnonzero(d <= np.sort(d)[k - 1])
            best = best[np.lexsort((best, d[best]))[:k]]
            out[i] = np.concatenate([self.order[a:a + n] for a, n in spans])[best]
        return out


def _cells(z: np.ndarray, n: int, rounds: int = 8, chunk: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """(each row's cell, the cells' centres, each the mean of its rows): `rounds` of k-means from `n` rows drawn
    with a fixed seed, so the same store always gets the same cells; empty cells are dropped."""
    rng = np.random.default_rng(0)
    centres = z[rng.choice(len(z), size=min(n, len(z)), replace=False)].astype(np.float32)
    cells = np.zeros(len(z), np.int64)
    for _ in range(rounds + 1):
        ranker = _ranker(centres)
        cells = np.concatenate([(_with_one(z[s:s + chunk]) @ ranker).argmin(axis=1) for s in range(0, len(z), chunk)])
        counts = np.bincount(cells, minlength=len(centres))
        used = counts > 0
        order = np.argsort(cells, kind="stable")
        sums = np.add.reduceat(z[order].astype(np.float64), np.cumsum(counts)[used] - counts[used], axis=0)
        centres = (sums / counts[used, None]).astype(np.float32)
        cells = (np.cumsum(used) - 1)[cells]
    return cells, centres


def _ranker(z: np.ndarray) -> np.ndarray:
    """(k + 1, n) such that `_with_one(q) @ it` is |q - z|^2 - |q|^2 for every row of `z`: one
    matrix product ranks the rows, with no second pass over the (m, n) result."""
    return np.ascontiguousarray(np.vstack([-2.0 * z.T, (z ** 2).sum(axis=1)[None, :]]).astype(np.float32))


def _with_one(q: np.ndarray) -> np.ndarray:
    return np.hstack([q, np.ones((len(q), 1), np.float32)])


def _smallest(d: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the `k` smallest entries per row, smallest first (overwrites `d`): k passes of argmin,
    on these rows far faster than argpartition."""
    out = np.empty((len(d), k), np.int64)
    r = np.arange(len(d))
    for j in range(k):
        out[:, j] = d.argmin(axis=1)
        d[r, out[:, j]] = np.inf
    return out


def relit(image: np.ndarray) -> list[np.ndarray]:
    """The shot as taken, plus a warmer dimmer and a cooler brighter version."""
    f = image.astype(np.float32)
    warm = f * np.array([0.8, 0.9, 1.0], np.float32) * 0.8
    cool = f * np.array([1.1, 1.0, 0.85], np.float32) * 1.1
    return [image] + [np.clip(v, 0, 255).astype(np.uint8) for v in (warm, cool)]


def label_shot(shot: Shot) -> Labelled:
    """Every candidate on a card shot, labelled with the card or "-"."""
    img = upright(shot.image)
    cands, x, _, size = candidates(img)
    is_index = index_mask(cands, size)
    return labelled(cands, x, [shot.card if ok else NOT_INDEX for ok in is_index])


def _prune(v: np.ndarray, labels: np.ndarray, cut: float, chunk: int = 4096) -> np.ndarray:
    """Rows to keep: every card row, and each "-" row within 4 x `cut` (cosine distance) of some
    card row. A farther "-" row never changes a naming: where it is among a query's nearest, any
    card row within `cut` of the query is nearer still, and its own vote weight is zero."""
    pos = labels != NOT_INDEX
    keep = pos.copy()
    neg = np.nonzero(~pos)[0]
    if not pos.any() or not len(neg):
        return keep
    vp = v[pos]
    for s in range(0, len(neg), chunk):
        rows = neg[s:s + chunk]
        near = (v[rows] @ vp.T).max(axis=1)     # highest cosine similarity to any card row
        keep[rows] = 1.0 - near <= 4.0 * cut
    return keep


def _cross_shot_scale(v: np.ndarray, labels: np.ndarray, shot_of: np.ndarray, pct: float = 95.0) -> float:
    """How far an index is from the same card's indices on *other* shots (95th percentile,
    with a floor): the distance that still means "the same printed index"."""
    pos = np.nonzero(labels != NOT_INDEX)[0]
    dists: list[float] = []
    for i in pos:
        same = pos[(labels[pos] == labels[i]) & (shot_of[pos] != shot_of[i])]
        if len(same):
            dists.append(float((1.0 - v[same] @ v[i]).min()))
    return max(0.02, float(np.percentile(dists, pct)) * 1.25) if dists else 0.15


def _card_key(name: str) -> tuple[int, str]:
    card = Card.parse(name)
    return card.value, card.suit

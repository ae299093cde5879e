"""A per-deck nearest-neighbour store of corner indices: the recognizer adapted to one deck.

The stock classifier was trained on rendered cards; a real deck's index font and
court art can fool it. Calibration shows the deck's own cards, so this store
keeps the vision module's index features (`index_detect.features`) of every
candidate on those shots: the true corner indices labelled with their card,
everything else (pips, court art, wrong pairings) labelled "-" so it votes
against naming. A candidate at game time is named by its nearest stored
neighbours. Rotation and scale are already normalised by the feature extractor.

It lives beside the recognizer (not in `calibration/`) so `referee recognize
--deck STORE` can load one; `calibration.deck_store` re-exports it.
"""
from __future__ import annotations

import hashlib
import io
import math
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import cv2
import numpy as np

from ..cards import Card
from .index_detect import (CTX_PATCH, RANK_PATCH, SUIT_PATCH, Candidate, features, find_blobs, pair_candidates,
                           prepare)
from .recognize import Detection

NOT_INDEX = "-"
K = 3
GEOM_WEIGHT = 3.0
_PATCHES = RANK_PATCH * RANK_PATCH + SUIT_PATCH * SUIT_PATCH
_GEOM_AT = _PATCHES + CTX_PATCH * CTX_PATCH
STORE_VERSION = 1

Labelled = tuple[np.ndarray, Sequence[str]]   # one image's candidate embeddings and their labels


def embed(x: np.ndarray) -> np.ndarray:
    """Unit-length vectors of rank patch, suit patch and geometry (the paper context is
    left out: it follows the lighting, not the card)."""
    e = np.hstack([x[:, :_PATCHES], x[:, _GEOM_AT:] * GEOM_WEIGHT]).astype(np.float32)
    return e / (np.linalg.norm(e, axis=1, keepdims=True) + 1e-6)


def candidates(image: np.ndarray) -> tuple[list[Candidate], np.ndarray, float, tuple[int, int]]:
    """Index candidates of a BGR image at the vision module's working size:
    (candidates, feature rows, scale, (w, h) of the working image)."""
    small, scale = prepare(image)
    frame = find_blobs(small)
    cands = pair_candidates(frame)
    return cands, features(frame, cands), scale, (small.shape[1], small.shape[0])


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
        out[i] = in_corner and abs(c.uy) > 0.8 and ((c.uy > 0) == top)
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

    # -- learning ---------------------------------------------------------------------
    @classmethod
    def fit(cls, shots: Sequence[Shot], *, augment: bool = True) -> "DeckStore":
        """Learn from shots of known cards; each card should have two or more shots (for `d_ok`).

        With `augment`, each shot is also learned under two changes of light
        (warmer and dimmer, cooler and brighter), so a lamp switched on later
        still matches; the distance scale is measured on the real shots only.
        """
        images = ([label_shot(Shot(shot.card, img, shot.name)) for img in (relit(shot.image) if augment
                                                                          else [shot.image])] for shot in shots)
        return cls.fit_labelled(images, cards=[s.card for s in shots])

    @classmethod
    def fit_labelled(cls, images: Iterable[Sequence[Labelled]], cards: Iterable[str] | None = None
                     ) -> "DeckStore":
        """Learn from labelled images, each one "shot": per image, its candidates as taken, then
        any augmented versions of it (used as examples, not for the distance scale `d_ok`, which
        is measured between different images). `cards`: the cards shown (default: every label).

        "-" rows too far from every card's rows to ever outvote one are dropped (see `_prune`).
        """
        vecs: list[np.ndarray] = []
        labels: list[str] = []
        shot_of: list[int] = []
        for n, versions in enumerate(images):
            for k, (card_vecs, card_labels) in enumerate(versions):
                vecs.append(card_vecs)
                labels += list(card_labels)
                shot_of += [n if k == 0 else -1] * len(card_labels)
        v = np.vstack(vecs) if vecs else np.zeros((0, 1), np.float32)
        lab = np.array(labels, dtype=object)
        shot_ids = np.array(shot_of, dtype=np.int64)
        real = shot_ids >= 0
        d_ok = _cross_shot_scale(v[real], lab[real], shot_ids[real])
        keep = _prune(v, lab, 2.0 * d_ok)
        shown = set(cards) if cards is not None else {str(x) for x in lab if x != NOT_INDEX}
        return cls(v[keep], lab[keep], sorted(shown, key=_card_key), d_ok)

    # -- naming ---------------------------------------------------------------------
    def classify(self, x: np.ndarray) -> tuple[list[str], np.ndarray]:
        """For feature rows: (best card or "-", confidence 0..1) per row."""
        names, conf, _ = self.vote(x)
        return names, conf

    def vote(self, x: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        """`classify`, plus each named row's distance to its nearest stored row of that card (else inf)."""
        dist = np.full(len(x), np.inf)
        if len(x) == 0 or len(self.vectors) == 0:
            return [NOT_INDEX] * len(x), np.zeros(len(x)), dist
        e = embed(x)
        d = 1.0 - e @ self.vectors.T
        k = min(K, d.shape[1])
        idx = np.argpartition(d, k - 1, axis=1)[:, :k]
        names: list[str] = []
        conf = np.zeros(len(x))
        cut = 2.0 * self.d_ok
        for i in range(len(x)):
            near = idx[i][np.argsort(d[i, idx[i]])]
            w = np.maximum(0.0, 1.0 - d[i, near] / cut)
            if w.sum() <= 0:
                names.append(NOT_INDEX)
                continue
            votes: dict[str, float] = {}
            for j, wj in zip(near, w):
                votes[self.labels[j]] = votes.get(self.labels[j], 0.0) + float(wj)
            best = max(votes, key=lambda lab: votes[lab])
            if best == NOT_INDEX:
                names.append(NOT_INDEX)
                continue
            d1 = float(min(d[i, j] for j in near if self.labels[j] == best))
            close = math.exp(-0.5 * (d1 / self.d_ok) ** 2)   # 1 for an exact match, 0.61 at d_ok
            names.append(best)
            conf[i] = votes[best] / float(w.sum()) * close
            dist[i] = d1
        return names, conf, dist

    def __call__(self, image: np.ndarray, *, min_conf: float | None = None,
                 include_unsure: bool = False) -> list[Detection]:
        """Cards named in a BGR image, most confident first: the `recognize()` contract,
        so it can be handed to `CardPipeline(recognizer=...)`."""
        cands, x, scale, _ = candidates(image)
        return self.name(cands, x, scale, min_conf=min_conf, include_unsure=include_unsure)

    def name(self, cands: Sequence[Candidate], x: np.ndarray, scale: float, *, min_conf: float | None = None,
             include_unsure: bool = False) -> list[Detection]:
        """Cards named from an image's candidates and feature rows (`candidates()`), as `__call__`."""
        floor = self.min_conf if min_conf is None else min_conf
        names, conf, dist = self.vote(x)
        best: dict[Card, Detection] = {}
        evidence: dict[Card, float] = {}
        used: set[int] = set()   # one blob belongs to one index: the most confident reading claims it
        for i in np.lexsort((dist, -conf)):      # surest first; of equally sure, the closest match
            name, c, cd = names[i], float(conf[i]), cands[i]
            if name == NOT_INDEX or (c < floor and not include_unsure):
                continue
            blobs = {b.idx for b in cd.rank} | {cd.suit.idx}
            if blobs & used:
                continue
            used |= blobs
            card = Card.parse(name)
            evidence[card] = evidence.get(card, 0.0) + c
            if card not in best:
                best[card] = Detection(card, c, (cd.cx / scale, cd.cy / scale))
        # most supported first: a card shows several indices, a stray match is one
        return sorted(best.values(), key=lambda det: (-evidence[det.card], -det.confidence))

    # -- storage ---------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        np.savez_compressed(buf, version=np.int32(STORE_VERSION), vectors=self.vectors.astype(np.float16),
                            labels=np.array(self.labels, dtype="U8"), cards=np.array(self.cards, dtype="U8"),
                            d_ok=np.float32(self.d_ok), min_conf=np.float32(self.min_conf))
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
                if version != STORE_VERSION:
                    raise ValueError(f"{path}: deck store version {version} is not supported")
                store = cls(z["vectors"].astype(np.float32), z["labels"].astype(object),
                            [str(c) for c in z["cards"]], float(z["d_ok"]), float(z["min_conf"]))
        except (KeyError, EOFError, OSError, zipfile.BadZipFile, TypeError) as exc:
            raise ValueError(f"{path}: not a deck store ({type(exc).__name__})") from None
        except ValueError as exc:
            if "not supported" in str(exc):
                raise
            raise ValueError(f"{path}: not a deck store (unreadable npz)") from None
        if store.vectors.ndim != 2 or len(store.vectors) != len(store.labels):
            raise ValueError(f"{path}: not a deck store (vectors and labels disagree)")
        return store


def relit(image: np.ndarray) -> list[np.ndarray]:
    """The shot as taken, plus a warmer dimmer and a cooler brighter version."""
    f = image.astype(np.float32)
    warm = f * np.array([0.8, 0.9, 1.0], np.float32) * 0.8
    cool = f * np.array([1.1, 1.0, 0.85], np.float32) * 1.1
    return [image] + [np.clip(v, 0, 255).astype(np.uint8) for v in (warm, cool)]


def label_shot(shot: Shot) -> tuple[np.ndarray, list[str]]:
    """Embeddings of every candidate on a card shot, labelled with the card or "-"."""
    img = upright(shot.image)
    cands, x, _, size = candidates(img)
    is_index = index_mask(cands, size)
    return embed(x), [shot.card if ok else NOT_INDEX for ok in is_index]


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

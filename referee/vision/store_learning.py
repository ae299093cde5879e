"""What a deck store keeps from labelled images: their rows, less far "-" rows, and its distance scale."""
from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence

import numpy as np

from ..core.cards import Card
from .deck_reader import NOT_INDEX
from .store_rows import Labelled


class LearnedRows(NamedTuple):
    """The rows a store keeps, its distance scale, and the rank-over-suit rows its adapted reader learns from."""

    vectors: np.ndarray
    labels: np.ndarray              # card names or "-", as objects
    d_ok: float                     # `cross_shot_scale` of the images as taken
    pair_rows: np.ndarray | None    # None when no image had a rank-over-suit row
    pair_labels: list[str]


def learn_rows(images: Iterable[Sequence[Labelled]]) -> LearnedRows:
    """Rows of labelled images, each one "shot": per image, its candidates as taken, then any augmented versions
    of it (used as examples, not for the distance scale, which is measured between different images, nor for the
    adapted reader). "-" rows too far from every card's rows to ever outvote one are dropped (`prune`)."""
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
    d_ok = cross_shot_scale(v[real], lab[real], shot_ids[real])
    keep = prune(v, lab, 2.0 * d_ok)
    return LearnedRows(v[keep], lab[keep], d_ok, np.vstack(pair_rows) if pair_rows else None, pair_labels)


def prune(v: np.ndarray, labels: np.ndarray, cut: float, chunk: int = 4096) -> np.ndarray:
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


def cross_shot_scale(v: np.ndarray, labels: np.ndarray, shot_of: np.ndarray, pct: float = 95.0) -> float:
    """How far an index is from the same card's indices on *other* shots (95th percentile,
    with a floor): the distance that still means "the same printed index"."""
    pos = np.nonzero(labels != NOT_INDEX)[0]
    dists: list[float] = []
    for i in pos:
        same = pos[(labels[pos] == labels[i]) & (shot_of[pos] != shot_of[i])]
        if len(same):
            dists.append(float((1.0 - v[same] @ v[i]).min()))
    return max(0.02, float(np.percentile(dists, pct)) * 1.25) if dists else 0.15


def card_order(name: str) -> tuple[int, str]:
    """A sort key putting card names in deck order (by value, then suit)."""
    card = Card.parse(name)
    return card.value, card.suit

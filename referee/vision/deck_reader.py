"""The stock index reader adapted to one deck: the committed MLP pair fine-tuned on the deck's own corners.

The stock pair learned rendered faces only; a real deck's index font fools it on some ranks (Bicycle's 3s,
10s, Qs). Calibration labels every candidate on the deck's photos (its corner indices with their card, the
rest "not an index"), so both MLPs of the pair are trained a little further on those rows, from their
committed weights (a few epochs, a low rate: the rendered knowledge stays and the deck's font is added).
A deck store keeps the adapted pair and reads with it where it would read with the stock pair.
docs/vision.md ("A learned deck") has the measurements that chose this.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .classifier import RANK_CLASSES, SUIT_CLASSES, AgreeingPair, IndexMLP, pair_model
from .rank_width_fill import fill_rank_widths
from .mlp_training import train

NOT_INDEX = "-"             # the label of a candidate that is no corner index (court art, pips, wrong pairs)
ADAPT_EPOCHS = 15
ADAPT_RATE = 1e-3
NOT_INDEX_PER_INDEX = 3.0   # "not an index" rows kept per index row (most candidates are court art and pips)
MIN_INDEX_ROWS = 8          # fewer labelled corners than this teach nothing: the stock pair reads alone


def classes(name: str) -> tuple[int, int]:
    """A card name ("10H", "JOKER") or "-" as the pair's (rank class, suit class)."""
    if name == NOT_INDEX:
        return RANK_CLASSES.index("-"), SUIT_CLASSES.index("-")
    if name == "JOKER":
        return RANK_CLASSES.index("JOKER"), SUIT_CLASSES.index("-")
    rank, suit = name[:-1], name[-1]
    if rank not in RANK_CLASSES or suit not in SUIT_CLASSES[:4]:
        raise ValueError(f"not a card name: {name!r}")
    return RANK_CLASSES.index(rank), SUIT_CLASSES.index(suit)


def adapt_pair(x: np.ndarray, labels: Sequence[str], *, base: AgreeingPair | None = None, seed: int = 0,
               epochs: int = ADAPT_EPOCHS, log: Callable[[str], None] | None = None) -> AgreeingPair | None:
    """The pair (`base`, default the committed one) fine-tuned on feature rows of rank-over-suit candidates
    (`index_detect.features`) labelled with their card or "-"; None when fewer than `MIN_INDEX_ROWS` are
    corner indices. "Not an index" rows are sampled down to `NOT_INDEX_PER_INDEX` per index row."""
    base = base or pair_model()
    names = np.asarray(list(labels), dtype=object)
    index_rows = names != NOT_INDEX
    if len(names) != len(x):
        raise ValueError(f"{len(x)} feature rows but {len(names)} labels")
    if int(index_rows.sum()) < MIN_INDEX_ROWS:
        return None
    g = np.random.default_rng(seed)
    share = min(1.0, NOT_INDEX_PER_INDEX * index_rows.sum() / max(1, (~index_rows).sum()))
    keep = index_rows | (g.random(len(names)) < share)
    rows = np.asarray(x, np.float32)[keep]
    ys = np.array([classes(n) for n in names[keep]], np.int64)
    models = []
    for model in (base.drawn, base.filled):
        fitted = train(fill_rank_widths(rows) if model.fill_width else rows, ys[:, 0], ys[:, 1], epochs, seed,
                       hidden=(model.w1.shape[1], model.w2.shape[1]), init=model, lr=ADAPT_RATE, log=log)
        fitted.temperature, fitted.fill_width = model.temperature, model.fill_width
        models.append(fitted)
    return AgreeingPair(*models)


def pair_arrays(pair: AgreeingPair, prefix: str) -> dict[str, Any]:
    """The pair as named arrays under `prefix` (for a deck store's file)."""
    return {**pair.drawn.arrays(prefix + "drawn_"), **pair.filled.arrays(prefix + "filled_")}


def pair_from_arrays(z: dict[str, np.ndarray], prefix: str) -> AgreeingPair | None:
    """The pair `pair_arrays` wrote, or None when the file holds none."""
    if prefix + "drawn_w1" not in z:
        return None
    return AgreeingPair(IndexMLP.from_arrays(z, prefix + "drawn_"), IndexMLP.from_arrays(z, prefix + "filled_"))

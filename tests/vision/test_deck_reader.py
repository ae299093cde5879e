"""The stock pair adapted to one deck (`deck_reader`): it learns the deck's labels and survives a store file."""
from __future__ import annotations

import random

import numpy as np
import pytest

from referee.core.cards import Card
from referee.vision import render
from referee.vision.classifier import RANK_CLASSES, SUIT_CLASSES, pair_model
from referee.vision.deck_reader import MIN_INDEX_ROWS, adapt_pair, classes, pair_arrays, pair_from_arrays
from referee.vision.store_rows import candidates


def test_card_names_map_to_the_pairs_classes() -> None:
    assert classes("10H") == (RANK_CLASSES.index("10"), SUIT_CLASSES.index("H"))
    assert classes("JOKER") == (RANK_CLASSES.index("JOKER"), SUIT_CLASSES.index("-"))
    assert classes("-") == (RANK_CLASSES.index("-"), SUIT_CLASSES.index("-"))
    with pytest.raises(ValueError, match="not a card name"):
        classes("1X")


def _seven_of_spades_rows(n_scenes: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows of rendered 7S scenes and which of them the stock pair reads as 7S (its corners)."""
    rng = random.Random(3)
    rows, corner = [], []
    for _ in range(n_scenes):
        img = render.random_table(rng, (480, 480))
        p = render.Placement(Card.parse("7S"), (240, 240), 200, rng.uniform(-30, 30), render.STYLES["classic"])
        render.composite(img, p, rng=rng)
        _, x, _, _ = candidates(img, marks=False)
        pr, ps = pair_model().predict(x)
        corner.append((pr.argmax(1) == RANK_CLASSES.index("7")) & (ps.argmax(1) == SUIT_CLASSES.index("S"))
                      & (pr.max(1) > 0.9))
        rows.append(x)
    return np.vstack(rows), np.concatenate(corner)


def test_an_adapted_pair_reads_the_decks_own_labels() -> None:
    """A deck whose print fools the stock pair: its 7S-looking corners are labelled 7C, as a deck printing
    clubs like the stock pair's spades would be. After adapting, the pair reads them as the deck says."""
    x, corner = _seven_of_spades_rows()
    assert corner.sum() >= MIN_INDEX_ROWS
    labels = np.where(corner, "7C", "-")
    lines: list[str] = []
    adapted = adapt_pair(x, list(labels), epochs=8, log=lines.append)
    assert adapted is not None and len(lines) == 2 * 8          # both models trained, one line an epoch
    pr, ps = adapted.predict(x[corner])
    assert (pr.argmax(1) == RANK_CLASSES.index("7")).all()
    assert (ps[:, :4].argmax(1) == SUIT_CLASSES.index("C")).mean() >= 0.9
    _, base_ps = pair_model().predict(x[corner])
    assert (base_ps[:, :4].argmax(1) == SUIT_CLASSES.index("S")).all()  # the committed pair is unchanged


def test_too_few_corners_teach_nothing() -> None:
    x = np.random.default_rng(0).random((40, 704)).astype(np.float32)
    labels = ["7C"] * (MIN_INDEX_ROWS - 1) + ["-"] * (40 - MIN_INDEX_ROWS + 1)
    assert adapt_pair(x, labels) is None
    with pytest.raises(ValueError, match="labels"):
        adapt_pair(x, labels[:-1])


def test_a_pair_round_trips_through_named_arrays() -> None:
    pair = pair_model()
    arrays = pair_arrays(pair, "reader_")
    assert all(k.startswith("reader_") for k in arrays)
    again = pair_from_arrays(arrays, "reader_")
    assert again is not None and again.filled.fill_width and not again.drawn.fill_width
    x = np.random.default_rng(1).random((5, 704)).astype(np.float32)
    assert np.allclose(again.predict(x)[0], pair.predict(x)[0], atol=2e-3)   # weights kept in float16
    assert pair_from_arrays({}, "reader_") is None

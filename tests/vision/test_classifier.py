"""The committed index models: both load offline and turn feature rows into probabilities."""
from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from referee.core.cards import Card
from referee.vision import render
from referee.vision.classifier import (CNN_PATH, MODEL_PATH, NO_INDEX, RANK_CLASSES, SUIT_CLASSES, AgreeingPair,
                                       IndexCNN, IndexMLP, load_model, pair_model)
from referee.vision.index_features import features
from referee.vision.index_pairing import pair_candidates
from referee.vision.ink_blobs import find_blobs
from referee.vision.recognize import CNN_MIN_CONFIDENCE, recognize

from .conftest import cards_in_a_row


@pytest.mark.parametrize("path", [MODEL_PATH, CNN_PATH], ids=["mlp", "cnn"])
def test_model_gives_one_distribution_per_row(path) -> None:
    model = load_model(path)
    assert isinstance(model, IndexCNN if path.suffix == ".onnx" else IndexMLP)
    x = np.random.default_rng(0).random((7, 704)).astype(np.float32)
    pr, ps = model.predict(x)
    assert pr.shape == (7, len(RANK_CLASSES)) and ps.shape == (7, len(SUIT_CLASSES))
    assert np.allclose(pr.sum(1), 1, atol=1e-4) and np.allclose(ps.sum(1), 1, atol=1e-4)
    empty_r, empty_s = model.predict(np.zeros((0, 704), np.float32))
    assert empty_r.shape == (0, len(RANK_CLASSES)) and empty_s.shape == (0, len(SUIT_CLASSES))


def test_cnn_names_a_rendered_card() -> None:
    img = render.random_table(random.Random(5), (480, 480))
    card = Card.parse("QH")
    render.composite(img, render.Placement(card, (240, 240), 190, 20, render.STYLES["classic"]))
    found = recognize(img, min_conf=CNN_MIN_CONFIDENCE, model=load_model(CNN_PATH))
    assert [d.card for d in found] == [card]


def test_the_pair_skips_its_twin_on_sure_junk_and_names_the_same() -> None:
    # every row of a rendered table, against both readers run on every row (the pair as it was before the skip)
    frame = find_blobs(cards_in_a_row(8, ("7C", "QH", "10D"), 120, 120, 150, 15.0))
    x = features(frame, pair_candidates(frame))
    pair = pair_model()
    pr_a, ps_a = pair.drawn.predict(x)
    pr_b, ps_b = pair.filled.predict(x)
    ra, rb = pr_a.argmax(1), pr_b.argmax(1)
    suitless = np.isin(ra, [RANK_CLASSES.index("JOKER"), RANK_CLASSES.index("-")])
    agree = (ra == rb) & (suitless | (ps_a[:, :4].argmax(1) == ps_b[:, :4].argmax(1)))
    rows = np.arange(len(x))
    take_b = (agree & (pr_b[rows, rb] * np.where(suitless, 1, ps_b[rows, ps_b[:, :4].argmax(1)])
                       > pr_a[rows, ra] * np.where(suitless, 1, ps_a[rows, ps_a[:, :4].argmax(1)])))[:, None]
    full = np.where(agree[:, None], np.where(take_b, pr_b, pr_a), (pr_a + pr_b) / 2)
    pr, _ = pair.predict(x)
    junk = pr_a[:, NO_INDEX] >= AgreeingPair.JUNK_SURE
    assert junk.any() and (~junk).any()
    assert np.array_equal(pr.argmax(1), full.argmax(1))
    assert np.allclose(pr[~junk], full[~junk], atol=1e-6)
    seen: list[int] = []
    twin = dataclasses.replace(pair.filled)
    original = twin.predict
    twin.predict = lambda rows: (seen.append(len(rows)), original(rows))[1]   # type: ignore[method-assign]
    AgreeingPair(pair.drawn, twin).predict(x)
    assert seen == [int((~junk).sum())]

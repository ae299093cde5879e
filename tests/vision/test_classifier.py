"""The committed index models: both load offline and turn feature rows into probabilities."""
from __future__ import annotations

import random

import numpy as np
import pytest

from referee.cards import Card
from referee.vision import render
from referee.vision.classifier import (CNN_PATH, MODEL_PATH, RANK_CLASSES, SUIT_CLASSES, IndexCNN, IndexMLP,
                                       load_model)
from referee.vision.recognize import CNN_MIN_CONFIDENCE, recognize


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

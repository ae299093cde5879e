"""Width-filled rank patches and the agreeing pair of index readers."""
from __future__ import annotations

import random

import numpy as np
import pytest

from referee.core.cards import Card
from referee.vision import render
from referee.vision.recognize import MIN_CONFIDENCE, recognize
from referee.vision.classifier import (FILL_MODEL_PATH, MODEL_PATH, RANK_CLASSES, SUIT_CLASSES, AgreeingPair,
                                       IndexMLP, default_model, load_pair, pair_model)
from referee.vision.index_features import N_FEATURES, RANK_PATCH
from referee.vision.rank_width_fill import fill_rank_width, fill_rank_widths


def _ink_box(p: np.ndarray) -> tuple[int, int, int, int]:
    cols, rows = np.flatnonzero(p.max(0) > 0.15), np.flatnonzero(p.max(1) > 0.15)
    return cols[0], cols[-1] + 1, rows[0], rows[-1] + 1


def test_a_narrow_glyph_is_stretched_as_wide_as_it_is_tall() -> None:
    p = np.zeros((RANK_PATCH, RANK_PATCH), np.float32)
    p[1:19, 7:13] = 0.8  # 6 wide, 18 tall
    x0, x1, y0, y1 = _ink_box(fill_rank_width(p))
    assert (x1 - x0, y1 - y0) == (18, 18)
    assert (x0, y0) == (1, 1)  # centred, rows kept


@pytest.mark.parametrize("box", [(slice(6, 14), slice(1, 19)), (slice(0, 0), slice(0, 0))], ids=["wide", "empty"])
def test_wide_or_empty_patches_are_left_as_they_are(box) -> None:  # type: ignore[no-untyped-def]
    p = np.zeros((RANK_PATCH, RANK_PATCH), np.float32)
    p[box] = 1.0
    assert np.array_equal(fill_rank_width(p), p)


def test_rows_are_filled_in_their_rank_patch_only_and_not_in_place() -> None:
    x = np.random.default_rng(0).random((3, N_FEATURES)).astype(np.float32)
    x[:, :RANK_PATCH * RANK_PATCH] = 0
    patch = x[0, :RANK_PATCH * RANK_PATCH].reshape(RANK_PATCH, RANK_PATCH)
    patch[2:18, 8:12] = 1.0
    before = x.copy()
    out = fill_rank_widths(x)
    assert np.array_equal(x, before)
    assert np.array_equal(out[:, RANK_PATCH * RANK_PATCH:], x[:, RANK_PATCH * RANK_PATCH:])
    assert not np.array_equal(out[0], x[0]) and np.array_equal(out[1:], x[1:])  # empty patches stay empty


def _constant_mlp(rank: str, suit: str, strength: float, fill: bool) -> IndexMLP:
    """An MLP that gives every row the same reading, `strength` logits above the other classes."""
    d, h = N_FEATURES, 2
    br = np.zeros(len(RANK_CLASSES), np.float32)
    br[RANK_CLASSES.index(rank)] = strength
    bs = np.zeros(len(SUIT_CLASSES), np.float32)
    bs[SUIT_CLASSES.index(suit)] = strength
    z = np.zeros
    return IndexMLP(mean=z(d, np.float32), std=np.ones(d, np.float32), w1=z((d, h), np.float32), b1=z(h, np.float32),
                    w2=z((h, h), np.float32), b2=z(h, np.float32), wr=z((h, len(RANK_CLASSES)), np.float32), br=br,
                    ws=z((h, len(SUIT_CLASSES)), np.float32), bs=bs, fill_width=fill)


def test_a_name_both_readers_give_keeps_the_surer_reading() -> None:
    x = np.zeros((2, N_FEATURES), np.float32)
    pair = AgreeingPair(_constant_mlp("7", "S", 6.0, False), _constant_mlp("7", "S", 9.0, True))
    pr, ps = pair.predict(x)
    want_r, want_s = pair.filled.predict(x)
    assert np.allclose(pr, want_r) and np.allclose(ps, want_s)


@pytest.mark.parametrize("other", [("5", "S"), ("7", "H")], ids=["rank", "suit"])
def test_readers_that_differ_leave_the_row_unsure(other) -> None:  # type: ignore[no-untyped-def]
    x = np.zeros((1, N_FEATURES), np.float32)
    pair = AgreeingPair(_constant_mlp("7", "S", 9.0, False), _constant_mlp(*other, 9.0, True))
    pr, ps = pair.predict(x)
    assert pr.max() * ps[:, :4].max() < 0.6
    assert np.allclose(pr.sum(1), 1) and np.allclose(ps.sum(1), 1)


def test_the_committed_pair_is_the_default_reader_and_checks_which_file_is_which() -> None:
    model = pair_model()
    assert default_model() is model
    assert isinstance(model, AgreeingPair) and model.filled.fill_width and not model.drawn.fill_width
    pr, ps = model.predict(np.zeros((0, N_FEATURES), np.float32))
    assert pr.shape == (0, len(RANK_CLASSES)) and ps.shape == (0, len(SUIT_CLASSES))
    with pytest.raises(ValueError, match="width-filled"):
        load_pair(FILL_MODEL_PATH, MODEL_PATH)


def test_the_committed_pair_names_a_rendered_card() -> None:
    img = render.random_table(random.Random(5), (480, 480))
    card = Card.parse("QH")
    render.composite(img, render.Placement(card, (240, 240), 190, 20, render.STYLES["classic"]))
    assert [d.card for d in recognize(img, min_conf=MIN_CONFIDENCE, model=pair_model())] == [card]


def test_filling_all_rows_at_once_matches_cv2_resizing_each_patch() -> None:
    # the twin was trained on patches filled by cv2.resize (INTER_LINEAR); the batch fill must give the same input
    rng = np.random.default_rng(7)
    x = np.zeros((400, N_FEATURES), np.float32)
    for n in range(len(x)):
        p = x[n, :RANK_PATCH * RANK_PATCH].reshape(RANK_PATCH, RANK_PATCH)
        h, w = rng.integers(1, RANK_PATCH + 1, 2)
        y, c = rng.integers(0, RANK_PATCH + 1 - h), rng.integers(0, RANK_PATCH + 1 - w)
        p[y:y + h, c:c + w] = rng.random((h, w))
        if n % 3 == 0:
            p += 0.1 * rng.random(p.shape).astype(np.float32)  # faint ink below the fill threshold
    one_by_one = np.stack([fill_rank_width(r[:RANK_PATCH * RANK_PATCH].reshape(RANK_PATCH, RANK_PATCH)).ravel()
                           for r in x])
    filled = fill_rank_widths(x)
    assert np.allclose(filled[:, :RANK_PATCH * RANK_PATCH], one_by_one, rtol=0, atol=2e-6)
    assert np.array_equal(filled[:, RANK_PATCH * RANK_PATCH:], x[:, RANK_PATCH * RANK_PATCH:])
    assert not np.allclose(filled[:, :RANK_PATCH * RANK_PATCH], x[:, :RANK_PATCH * RANK_PATCH], atol=1e-3)

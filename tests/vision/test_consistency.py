"""The shape checks a named index must pass (referee/vision/consistency.py), on drawn glyphs."""
from __future__ import annotations

import numpy as np

from referee.cards import Card
from referee.vision import consistency, glyphs, render
from referee.vision.index_detect import RANK_PATCH, Candidate, Frame, _patch, find_blobs, pair_candidates


def _pip_pair() -> np.ndarray:
    """Two club pips one above the other on white card stock, as in a card's centre pattern."""
    img = np.full((200, 160, 3), 240, np.uint8)
    for cy in (60, 130):
        glyphs.draw_suit(img, "C", (80.0, float(cy)), 50.0, (30, 30, 30))
    return img


def test_two_pips_of_one_suit_are_not_an_index_whatever_rank_they_are_read_as() -> None:
    frame = find_blobs(_pip_pair())
    cands = pair_candidates(frame)
    assert cands, "the pip pair should make a candidate"
    for cand in cands:
        assert not consistency.plausible(frame, cand, "4")
        assert not consistency.plausible(frame, cand, "A")


def test_a_drawn_corner_index_passes_the_checks_for_its_own_rank() -> None:
    card = Card.parse("4C")
    img = render.render_card(card, render.STYLES["classic"])
    frame = find_blobs(img)
    (x0, y0, x1, y1), (sx, sy), _ = render.index_layout(card, render.STYLES["classic"])[0]
    index = [c for c in pair_candidates(frame) if x0 - 2 <= c.cx <= x1 + 2 and y0 - 2 <= c.cy <= y1 + 2
             and abs(c.suit.cx - sx) < 5 and abs(c.suit.cy - sy) < 5]
    assert index, "the top-left index should make a candidate"
    assert all(consistency.plausible(frame, c, "4") for c in index)
    pips = find_blobs(_pip_pair())
    pip_iou = max(_same_shape(pips, c) for c in pair_candidates(pips))
    assert all(_same_shape(frame, c) < consistency.SAME_SHAPE_MAX["4"] < pip_iou for c in index)


def _same_shape(frame: Frame, cand: Candidate) -> float:
    return consistency.same_shape_iou(_patch(frame, cand.rank, cand.ux, cand.uy, RANK_PATCH)[0], frame, cand)

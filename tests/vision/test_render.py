"""The renderer draws what it is asked to, deterministically."""
from __future__ import annotations

import dataclasses
import random

import cv2
import numpy as np

from referee.core.cards import Card, standard_deck
from referee.vision import glyphs, render


def test_faces_differ_per_card_and_are_deterministic() -> None:
    a = render.render_card(Card.parse("7H"))
    b = render.render_card(Card.parse("7H"))
    c = render.render_card(Card.parse("8H"))
    assert a.shape == (render.CARD_H, render.CARD_W, 3)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_red_suits_are_red_and_black_suits_are_not() -> None:
    for name, red in (("5H", True), ("5D", True), ("5S", False), ("5C", False)):
        img = render.render_card(Card.parse(name)).astype(int)
        ink = img.sum(2) < 500
        redness = (img[..., 2] - img[..., 1])[ink].mean()
        assert (redness > 80) == red, name


def test_every_card_and_joker_renders_in_every_style() -> None:
    for style in render.STYLES.values():
        for card in standard_deck(jokers=1):
            img = render.render_card(card, style)
            assert img.std() > 10


def test_index_layout_points_at_printed_ink() -> None:
    for card in (Card.parse("QS"), Card.parse("10D"), Card("JOKER")):
        img = render.render_card(card, render.STYLES["classic"])
        for (x0, y0, x1, y1), _, _ in render.index_layout(card, render.STYLES["classic"]):
            box = img[int(y0):int(y1), int(x0):int(x1)]
            assert (box.sum(2) < 450).mean() > 0.1


def test_scene_has_requested_size_and_placements() -> None:
    img, placed = render.random_scene(random.Random(1), [Card.parse("AS"), Card.parse("KD")], size=320)
    assert img.shape == (320, 320, 3)
    assert [p.card for p in placed] == [Card.parse("AS"), Card.parse("KD")]


def test_a_set_ten_is_drawn_where_the_layout_says_and_as_wide() -> None:
    """A "10" set from its two digits (ten_gap) fills the index box the layout reports, edge to edge."""
    for gap, squeeze in ((0.0, 0.6), (0.25, 0.7)):
        style = dataclasses.replace(render.STYLES["classic"], ten_gap=gap, ten_w=squeeze, frame=False)
        img = render.render_card(Card.parse("10S"), style)
        (x0, y0, x1, y1), _, _ = render.index_layout(Card.parse("10S"), style)[0]
        rows = img[int(y0) + 2:int(y1) - 2]
        cols = np.nonzero((rows.sum(2) < 450).any(0))[0]
        ink_x0 = cols[cols < render.CARD_W // 2].min()
        ink_x1 = cols[cols < x1 + 5].max() + 1
        assert abs(ink_x0 - max(0.0, x0)) <= 2 and abs(ink_x1 - x1) <= 2, (gap, ink_x0, ink_x1, x0, x1)


def test_a_ten_with_a_bar_one_is_a_plain_upright_bar_beside_the_zero() -> None:
    """ten_bar draws the "1" of a set "10" as a solid bar as tall as the "0", with no flag or foot:
    every column of the bar is inked top to bottom, and the gap before the "0" is blank."""
    mask = glyphs.text_mask("10", cv2.FONT_HERSHEY_SIMPLEX, 1, 90, 100, ten_gap=0.1, ten_bar=True)
    inked = mask > 127
    cols = inked.any(0)
    first_gap = int(np.argmin(cols))            # the first blank column ends the bar
    assert 3 <= first_gap <= 30
    assert inked[2:-2, 1:first_gap - 1].all()  # solid bar: no flag, no foot to either side
    plain = glyphs.text_mask("10", cv2.FONT_HERSHEY_SIMPLEX, 1, 90, 100, ten_gap=0.1)
    assert not (plain > 127)[2:-2, 1:int(np.argmin((plain > 127).any(0))) - 1].all()  # the font's own "1" is not


def test_a_drawn_three_is_two_light_bowls_open_at_the_left() -> None:
    """flat_three=3 draws a "3" of two stacked arcs: ink at the top, the middle and the bottom of the
    right half, none in the middle of the left edge, strokes light whatever the face's weight."""
    bold = glyphs.text_mask("3", cv2.FONT_HERSHEY_SIMPLEX, 4, 85, 100, flat_three=3) > 127
    h, w = bold.shape
    assert bold[: h // 8].any() and bold[-h // 8:].any()            # top and bottom arcs
    assert bold[int(0.45 * h):int(0.55 * h), w // 2:].any()           # the middle point
    assert not bold[int(0.40 * h):int(0.60 * h), : w // 5].any()     # open at the left
    face = glyphs.text_mask("3", cv2.FONT_HERSHEY_SIMPLEX, 4, 85, 100)
    assert glyphs._stroke_width(bold.astype(np.uint8) * 255) < 0.6 * glyphs._stroke_width(face)  # light, the face bold


def test_a_monogram_joker_prints_one_suitless_mark_where_the_layout_says() -> None:
    st = dataclasses.replace(render.STYLES["classic"], joker_mark=True)
    img = render.render_card(Card("JOKER"), st)
    ink = (img.sum(2) < 450).astype(np.uint8)
    layout = render.index_layout(Card("JOKER"), st)
    assert len(layout) == 2 and all(sh == 0.0 for _, _, sh in layout)  # no suit beneath it
    for (x0, y0, x1, y1), _, _ in layout:
        box = ink[int(y0):int(y1), int(x0):int(x1)]
        assert box.mean() > 0.15
        # one connected mark fills the box: the S, the U and the bars touch
        n, _lab, stats, _ = cv2.connectedComponentsWithStats(box, connectivity=8)
        assert stats[1:, cv2.CC_STAT_AREA].max() > 0.9 * box.sum()

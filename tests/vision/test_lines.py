"""`find_blobs` cuts thin lines (card edges, shadows) off the pips they touch, and nothing off a glyph."""
from __future__ import annotations

import dataclasses
import random

import cv2
import numpy as np
import pytest

from referee.cards import Card
from referee.vision import index_detect, render
from referee.vision.index_detect import find_blobs
from referee.vision.recognize import recognize


def _card(name: str, angle: float = 0.0, width: int = 220, stroke: tuple[int, int] = (1, 1)) -> np.ndarray:
    img = np.full((480, 480, 3), (40, 110, 40), np.uint8)
    style = dataclasses.replace(render.STYLES["classic"], stroke=stroke)
    render.composite(img, render.Placement(Card.parse(name), (240, 240), width, angle, style), rng=random.Random(4))
    return img


def _index_suit(img: np.ndarray) -> index_detect.Blob:
    """The suit under the top-left index: the second glyph from the card's top-left corner."""
    blobs = sorted((b for b in find_blobs(img).blobs if b.cx < 200 and b.cy < 200), key=lambda b: b.cy)
    return blobs[1]


def test_a_line_touching_an_index_pip_is_cut_off_and_the_card_is_read() -> None:
    img = _card("7S")
    suit = _index_suit(img)
    assert Card.parse("7S") in {d.card for d in recognize(img)}
    # a card edge's shadow: a 1 px line from the pip down the margin
    x, y = int(suit.cx), int(suit.cy)
    cv2.line(img, (x, y), (x - suit.w // 2, y + 3 * suit.h), (60, 60, 60), 1)
    cut = _index_suit(img)
    assert abs(cut.w - suit.w) <= 2 and abs(cut.h - suit.h) <= 2  # the pip alone, not pip and line
    assert Card.parse("7S") in {d.card for d in recognize(img)}


@pytest.mark.parametrize("name", ["5H", "7C", "2D", "10S", "JC", "3S", "4H", "6S", "9D"])
def test_glyph_strokes_are_never_cut(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # a 5's bar, a 7's leg, a 2's base: thin strokes the opening removes are the glyph's own (light and heavy
    # print, small and large, square and turned; on the 800 real Bicycle photos no card was lost to the cut)
    for angle, width, stroke in ((0.0, 220, (1, 1)), (33.0, 220, (1, 1)), (0.0, 300, (3, 3)), (33.0, 300, (3, 3))):
        img = _card(name, angle, width, stroke)
        trimmed = [(b.x, b.y, b.w, b.h, b.area) for b in find_blobs(img).blobs]
        monkeypatch.setattr(index_detect, "trim_lines", lambda *args: None)
        untouched = [(b.x, b.y, b.w, b.h, b.area) for b in find_blobs(img).blobs]
        monkeypatch.undo()
        assert trimmed == untouched

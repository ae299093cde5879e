"""`find_blobs` cuts thin lines (card edges, shadows) off the pips they touch, and nothing off a glyph."""
from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from referee.cards import Card
from referee.vision import index_detect, render
from referee.vision.index_detect import find_blobs
from referee.vision.recognize import recognize


def _card(name: str, angle: float = 0.0) -> np.ndarray:
    img = np.full((480, 480, 3), (40, 110, 40), np.uint8)
    render.composite(img, render.Placement(Card.parse(name), (240, 240), 220, angle, render.STYLES["classic"]),
                     rng=random.Random(4))
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


@pytest.mark.parametrize("name", ["5H", "7C", "2D", "10S", "JC", "3S", "4H"])
def test_glyph_strokes_are_never_cut(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # a 5's bar, a 7's leg, a 2's base: thin strokes the opening would remove are the glyph's own
    for angle in (0.0, 33.0):
        img = _card(name, angle)
        trimmed = [(b.x, b.y, b.w, b.h, b.area) for b in find_blobs(img).blobs]
        monkeypatch.setattr(index_detect, "trim_lines", lambda *args: None)
        untouched = [(b.x, b.y, b.w, b.h, b.area) for b in find_blobs(img).blobs]
        monkeypatch.undo()
        assert trimmed == untouched

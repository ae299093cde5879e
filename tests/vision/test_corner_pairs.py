"""A card's two corner indices back each other's reading (referee.vision.corner_pairs)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.core.cards import Card
from referee.vision import render
from referee.vision.classifier import RANK_CLASSES, SUIT_CLASSES
from referee.vision.corner_pairs import PAIR_FLOOR, Corner, back_pairs, either_corner, opposite_corners
from referee.vision.index_pairing import Candidate, pair_candidates
from referee.vision.ink_blobs import Blob, find_blobs
from referee.vision.recognize import MIN_CONFIDENCE, recognize

TABLE = (60, 90, 50)  # a dark green cloth: the card's paper stands out, as on a real table


def _turned_card(card: Card, style: render.CardStyle, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """The card drawn on a table, turned by `angle` degrees; also the 2x3 map from face to image pixels."""
    face = render.render_card(card, style)
    h, w = face.shape[:2]
    side = int(1.3 * max(h, w))
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[:, 2] += (side / 2 - w / 2, side / 2 - h / 2)
    img = cv2.warpAffine(face, m, (side, side), flags=cv2.INTER_LINEAR, borderValue=TABLE)
    return img, m


def _corner_candidates(card: Card, style: render.CardStyle, angle: float) -> list[list[Candidate]]:
    """For each corner index the renderer printed, the candidates reading it (its glyph over its own suit)."""
    img, m = _turned_card(card, style, angle)
    cands = pair_candidates(find_blobs(img))
    out = []
    for box, (sx, sy), sh in render.index_layout(card, style):
        gx, gy = m @ ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, 1.0)
        tx, ty = m @ (sx, sy, 1.0)
        near = [c for c in cands if np.hypot(c.suit.cx - tx, c.suit.cy - ty) < 0.4 * sh
                and np.hypot(c.cx - gx, c.cy - gy) < 0.5 * (box[3] - box[1])]
        assert near, f"{card} in {style} at {angle} deg: no candidate at the corner index near {gx:.0f},{gy:.0f}"
        out.append(near)
    return out


@pytest.mark.parametrize("angle", [0, 37, 90, 200, 301])
@pytest.mark.parametrize("style", sorted(render.STYLES))
def test_a_drawn_cards_two_corner_indices_stand_as_opposite_corners(style: str, angle: float) -> None:
    st = render.STYLES[style]
    corners = _corner_candidates(Card.parse("9S"), st, angle)
    # index_layout: (top-left, bottom-right) or, with four corners, (top-left, bottom-right, top-right, bottom-left)
    diagonals = [(0, 1)] + ([(2, 3)] if st.four_corners else [])  # the second diagonal: top-right, bottom-left
    for i, j in diagonals:
        assert all(opposite_corners(a, b) for a in corners[i] for b in corners[j])
    if st.four_corners:  # two indices on one long side or one short side are not a card's opposite corners
        for i, j in ((0, 2), (0, 3), (1, 2), (1, 3)):
            assert not any(opposite_corners(a, b) for a in corners[i] for b in corners[j])


def _blob(idx: int, cx: float, cy: float) -> Blob:
    return Blob(idx, int(cx) - 3, int(cy) - 4, 6, 8, 30, cx, cy, 0.0, np.zeros((1, 2), np.float32))


def _cand(n: int, cx: float, cy: float, ux: float, uy: float, scale: float = 10.0) -> Candidate:
    """A candidate whose glyph (blob 2n) stands at (cx, cy) and suit (blob 2n+1) one `scale` along u."""
    return Candidate((_blob(2 * n, cx, cy),), _blob(2 * n + 1, cx + scale * ux, cy + scale * uy),
                     ux, uy, scale, cx, cy)


# an upright card's top-left index at (100, 100) and its bottom-right one, turned half a turn, 25 right and
# 40 down (2.5 and 4 rank-to-suit distances); a third index of the same size beside the first, upright
TOP_LEFT, BOTTOM_RIGHT = _cand(0, 100, 100, 0, 1), _cand(1, 125, 140, 0, -1)
BESIDE = _cand(2, 125, 100, 0, 1)
ALWAYS = lambda cand, card: True  # noqa: E731  (every reading passes the shape checks)


def _read(rank_p: float, card: str, cand: Candidate, suit_p: float = 1.0) -> Corner:
    return Corner(rank_p * suit_p, Card.parse(card), cand, rank_p, suit_p)


def test_a_cards_two_corners_read_as_one_rank_back_each_other() -> None:
    out = back_pairs([_read(0.85, "QH", BOTTOM_RIGHT), _read(0.8, "QH", TOP_LEFT)], ALWAYS)
    assert [c for c, _, _ in out] == pytest.approx([either_corner(0.85, 0.8)] * 2)
    assert either_corner(0.85, 0.8) == pytest.approx(0.97)


def test_the_second_corner_backs_the_rank_not_the_suit() -> None:
    # both corners sure of the queen and 0.9 sure of spades: a blurred club reads so at both corners alike
    out = back_pairs([_read(0.99, "QS", BOTTOM_RIGHT, 0.9), _read(0.98, "QS", TOP_LEFT, 0.9)], ALWAYS)
    assert [c for c, _, _ in out] == pytest.approx([either_corner(0.99, 0.98) * 0.9] * 2)
    assert all(c < MIN_CONFIDENCE for c, _, _ in out)


@pytest.mark.parametrize("why", ["beside", "other name", "below floor", "implausible", "surer rival", "bigger"])
def test_readings_that_are_not_one_cards_two_corners_keep_their_own_confidence(why: str) -> None:
    partner, partner_card, partner_p = BOTTOM_RIGHT, "QH", 0.85
    extra: list[Corner] = []
    plausible = ALWAYS
    if why == "beside":
        partner = BESIDE
    elif why == "other name":
        partner_card = "KH"
    elif why == "below floor":
        partner_p = PAIR_FLOOR - 0.01
    elif why == "implausible":
        plausible = lambda cand, card: cand is not BOTTOM_RIGHT  # noqa: E731
    elif why == "surer rival":  # the partner's blobs are read surer as another card
        extra = [_read(0.9, "KH", BOTTOM_RIGHT)]
    elif why == "bigger":  # the partner index is half again as large: another card's
        partner = _cand(1, 137.5, 160, 0, -1, scale=15.0)
    readings = sorted(extra + [_read(partner_p, partner_card, partner), _read(0.8, "QH", TOP_LEFT)],
                      key=lambda r: -r.conf)
    out = back_pairs(readings, plausible)
    assert sorted(c for c, _, _ in out) == sorted(r.conf for r in readings)


class _UnsureReader:
    """A stand-in reader: every row is the queen of hearts, below the cut alone: rank 0.85 and suit sure, or
    the rank sure and the suit doubted 0.9 hearts to 0.1 spades (a doubt no shape settle resolves)."""

    def __init__(self, rank_p: float, suit_p: float) -> None:
        self.rank_p, self.suit_p = rank_p, suit_p

    def predict(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ranks = np.full((len(x), len(RANK_CLASSES)), (1 - self.rank_p) / (len(RANK_CLASSES) - 1))
        ranks[:, RANK_CLASSES.index("Q")] = self.rank_p
        suits = np.zeros((len(x), len(SUIT_CLASSES)))
        suits[:, SUIT_CLASSES.index("H")] = self.suit_p
        suits[:, SUIT_CLASSES.index("S")] = 1 - self.suit_p
        return ranks, suits


@pytest.mark.parametrize("angle", [0, 37, 200])
def test_recognize_names_a_card_whose_rank_is_read_unsurely_at_both_corners_and_not_at_one(angle: float) -> None:
    card = Card.parse("QH")
    img, m = _turned_card(card, render.STYLES["classic"], angle)
    named = recognize(img, model=_UnsureReader(0.85, 1.0))
    assert [str(d.card) for d in named] == ["QH"]
    assert named[0].confidence == pytest.approx(either_corner(0.85, 0.85)) and named[0].confidence >= MIN_CONFIDENCE
    assert recognize(img, model=_UnsureReader(1.0, 0.9)) == []  # a suit in doubt at both corners stays in doubt
    # the bottom-right corner under a hand: the top-left reading alone is not sure enough
    (x0, y0, x1, y1), (sx, sy), sh = render.index_layout(card, render.STYLES["classic"])[1]
    cover = np.array([[x0 - sh, y0 - sh, 1], [x1 + sh, y0 - sh, 1], [x1 + sh, sy + sh, 1], [x0 - sh, sy + sh, 1]])
    cv2.fillConvexPoly(img, np.round(cover @ m.T).astype(np.int32), (40, 50, 70))
    assert recognize(img, model=_UnsureReader(0.85, 1.0)) == []

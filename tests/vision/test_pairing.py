"""Which blobs `pair_candidates` offers the reader as an index's suit."""
from __future__ import annotations

import dataclasses
import math
import random

import cv2
import numpy as np

from referee.core.cards import Card
from referee.vision import glyphs, index_pairing, ink_blobs, render
from referee.vision.glyph_counters import count_enclosed, enclosed_counters, enclosed_paper
from referee.vision.index_pairing import pair_candidates
from referee.vision.ink_blobs import find_blobs
from referee.vision.lone_marks import is_mark, mark_candidates

from .conftest import cards_in_a_row


def test_print_specks_beside_a_rank_do_not_crowd_out_its_suit() -> None:
    img = np.full((480, 480, 3), (40, 110, 40), np.uint8)
    # the card's lower half is off the image: only its top-left index shows
    render.composite(img, render.Placement(Card.parse("7C"), (240, 400), 200, 0.0, render.STYLES["classic"]),
                     rng=random.Random(1))
    seven = min((b for b in find_blobs(img).blobs if b.cx < 200), key=lambda b: b.cy)
    ext = max(seven.w, seven.h)
    for a in (-60, -30, 0, 30, 60):  # five specks nearer the 7 than its club is
        x = seven.cx + 0.75 * ext * math.cos(math.radians(a))
        y = seven.cy + 0.75 * ext * math.sin(math.radians(a))
        cv2.circle(img, (int(x), int(y)), 4, (30, 30, 30), -1)
    frame = find_blobs(img)
    seven = next(b for b in frame.blobs if abs(b.cx - seven.cx) < 1 and abs(b.cy - seven.cy) < 1)
    below = [b for b in frame.blobs if b.size > 0.5 * seven.size and 0 < b.cy - seven.cy < 2 * ext
             and abs(b.cx - seven.cx) < ext]
    assert len(below) == 1  # the club under the 7
    suits = {c.suit.idx for c in pair_candidates(frame) if c.rank == (seven,)}
    assert below[0].idx in suits


def test_strokes_over_half_a_thin_ranks_size_do_not_crowd_out_its_heavier_suit() -> None:
    # a covering card's print beside a thin 7 can weigh over half the 7 (Bicycle 673119996): its club, heavier
    # than the 7 and further away, must still be among the partners tried
    img = np.full((240, 240, 3), 240, np.uint8)
    ink = (30, 30, 30)
    cv2.line(img, (100, 60), (130, 60), ink, 3)   # a thin 7
    cv2.line(img, (130, 60), (110, 100), ink, 3)
    glyphs.draw_suit(img, "C", (115.0, 138.0), 34.0, ink)
    for x, y in ((72, 62), (160, 50), (74, 108), (158, 100)):  # four strokes nearer the 7 than its club
        cv2.line(img, (x - 6, y - 6), (x + 6, y + 6), ink, 5)
    frame = find_blobs(img)
    seven = min(frame.blobs, key=lambda b: (b.cx - 117) ** 2 + (b.cy - 80) ** 2)
    club = max(frame.blobs, key=lambda b: b.area)
    strokes = [b for b in frame.blobs if b not in (seven, club)]
    assert len(strokes) == 4 and all(0.5 * seven.size < b.size < seven.size for b in strokes)
    assert all(math.dist((b.cx, b.cy), (seven.cx, seven.cy)) < math.dist((club.cx, club.cy), (seven.cx, seven.cy))
               for b in strokes)
    assert club.size > seven.size
    suits = {c.suit.idx for c in pair_candidates(frame) if c.rank == (seven,)}
    assert club.idx in suits


def test_a_jokers_monogram_is_offered_alone_both_ways_up_and_digits_are_not() -> None:
    # a Joker's corner mark has no suit glyph beside it: only mark_candidates offers it (to deck stores)
    img = np.full((480, 480, 3), (40, 110, 40), np.uint8)
    style = dataclasses.replace(render.STYLES["classic"], joker_mark=True)
    for card, x in (("JOKER", 150), ("8S", 340)):
        render.composite(img, render.Placement(Card.parse(card), (x, 240), 160, 20.0, style), rng=random.Random(2))
    frame = find_blobs(img)
    marks = mark_candidates(frame)
    assert len(marks) == 4 and all(is_mark(m) and m.cx < 240 for m in marks)  # two corners, each both ways up
    for a, b in zip(marks[::2], marks[1::2]):
        assert a.suit is b.suit and (a.ux, a.uy) == (-b.ux, -b.uy)
        assert abs(math.degrees(math.atan2(a.ux, a.uy)) % 180 - 160) < 10  # along the card, turned 20 degrees
    eights = [b for b in frame.blobs if b.cx > 240 and enclosed_counters(frame, b) == 2]
    assert len(eights) == 2  # the 8s have two counters each: glyphs, not marks
    assert not any(is_mark(c) for c in pair_candidates(frame))


def test_a_thin_rank_is_tried_with_a_heavier_solid_pip_below_it() -> None:
    # a real Bicycle 7 or J is a thin stroke and its heart a solid pip: by ink area the heart is 1.6-2x the
    # glyph's size, and a size limit made for blobs of like weight never offered it as the 7's suit
    img = np.full((240, 240, 3), 235, np.uint8)
    cv2.polylines(img, [np.array([[100, 80], [124, 80], [108, 106]], np.int32)], False, (40, 40, 40), 2)  # a 7
    cv2.ellipse(img, (112, 128), (13, 12), 0, 0, 360, (40, 40, 40), -1)  # a solid pip under it
    frame = find_blobs(img)
    seven = min(frame.blobs, key=lambda b: b.cy)
    pip = max(frame.blobs, key=lambda b: b.cy)
    assert 1.6 < pip.size / seven.size < 2.0 and max(pip.w, pip.h) <= max(seven.w, seven.h)
    assert any(c.rank == (seven,) and c.suit is pip for c in pair_candidates(frame))


def test_pairing_near_a_point_offers_exactly_the_candidates_centred_there() -> None:
    # the second look pairs only around the index it re-reads: the same candidates as a full pairing, no others
    frame = find_blobs(cards_in_a_row(5, ("9C", "4D", "QH"), 150, 90, 160, 20.0))
    everything = pair_candidates(frame)
    assert everything
    x, y, radius = everything[0].cx, everything[0].cy, 15.0
    within = {(tuple(b.idx for b in c.rank), c.suit.idx) for c in everything
              if math.hypot(c.cx - x, c.cy - y) <= radius}
    near = pair_candidates(frame, near=(x, y, radius))
    assert {(tuple(b.idx for b in c.rank), c.suit.idx) for c in near} == within
    assert len(within) < len(everything)


def test_counting_counters_agrees_with_finding_them() -> None:
    # lone marks and faint Joker marks are gated on the count alone; it must be the counters' number
    rng = np.random.default_rng(11)
    for _ in range(2000):
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        ink = rng.random((h, w)) < rng.random()
        for min_area in (2, 4):
            assert count_enclosed(ink, min_area) == len(enclosed_paper(ink, min_area))


def test_a_glyph_groups_centre_is_numpys_mean_bit_for_bit() -> None:
    # candidates' centres and directions come from it: the readers and the stores were fitted on numpy's mean
    rng = np.random.default_rng(12)
    for n in [1, 2, 7, 8, 9, 127, 128, 129, 255, 400] * 20:
        pts = (rng.random((n, 2)) * 384).astype(np.float32)
        for k in (0, 1):
            mean = pts[:, k].mean()
            assert index_pairing._column_mean(pts, k) == mean and type(index_pairing._column_mean(pts, k)) is type(mean)


def test_partners_at_the_same_distance_are_tried_in_blob_order() -> None:
    # three blobs like the glyph 15 px from it and twenty exactly 25 px from it: the fourth partner tried is the
    # first of the twenty found, on every machine (numpy's sort, row by row, took the second of them here: it
    # orders equal distances its own way)
    def blob(idx: int, x: float, y: float) -> ink_blobs.Blob:
        return ink_blobs.Blob(idx, int(x) - 10, int(y) - 10, 20, 20, 120, x, y, 0.0,
                                 np.array([[x, y]], np.float32))

    around = [(-20, -15), (0, 25), (24, -7), (0, 15), (-15, -20), (-25, 0), (-7, -24), (15, -20), (-7, 24), (15, 20),
              (25, 0), (-24, -7), (12, -9), (-24, 7), (24, 7), (-20, 15), (-15, 20), (7, -24), (15, 0), (0, -25),
              (7, 24), (20, -15), (20, 15)]
    glyph = blob(1, 100, 100)
    frame = ink_blobs.Frame(np.zeros((200, 200), np.int32), np.zeros((200, 200), np.uint8),
                               [glyph] + [blob(2 + k, 100 + dx, 100 + dy) for k, (dx, dy) in enumerate(around)])
    nearer = {2 + k for k, (dx, dy) in enumerate(around) if dx * dx + dy * dy == 225}
    assert len(nearer) == 3
    assert {c.suit.idx for c in pair_candidates(frame) if c.rank == (glyph,)} == nearer | {2}

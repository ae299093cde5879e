"""Landings read in time: the card named before the hands arrive, hands never cards, sweeps, the pending signal.

Scenes come from tabletop/scene_render.py at a small size (watch 320x240, full 640x480, 30 fps, each frame drawn
at mid-exposure and stamped at its end, as the fake camera does), so each test takes well under a second.
"""
from __future__ import annotations

import random
from typing import Callable, Sequence

import cv2
import numpy as np
import pytest

from referee.core.cards import Card
from referee.core.events import CardSeen, CardUnreadable, Event, PileCleared
from referee.vision import landing
from referee.vision.pipeline import CardPipeline, SettlePipeline
from referee.vision.recognize import Detection
from tabletop.scene_render import HandOver, Look, PileCard, SceneRenderer

PERIOD = 33_333_333
MS = 1_000_000
EXPOSURE = 12 * MS

Scene = Callable[[int], tuple[list[PileCard], list[HandOver]]]


def _film(scene: Scene, frames: int, *, seed: int = 1, looks: Callable[[int], Look] | None = None
          ) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(stamp, watch frame, full frame) for `frames` frames of `scene(t_ns)` (cards, hands at mid-exposure)."""
    r = SceneRenderer((640, 480), card_width=0.3, seed=seed)
    out = []
    for k in range(frames):
        stamp = (k + 1) * PERIOD
        mid = stamp - EXPOSURE // 2
        cards, hands = scene(mid)
        look = looks(mid) if looks else Look(exposure_ns=EXPOSURE, noise=2.0)
        full = r.render(cards, hands, t_ns=mid, look=look)
        out.append((stamp, cv2.resize(full, (320, 240), interpolation=cv2.INTER_AREA), full))
    return out


def _feed(pipe: SettlePipeline, film: list[tuple[int, np.ndarray, np.ndarray]]
          ) -> tuple[list[tuple[int, Event]], dict[int, int | None]]:
    """Events with the stamp of the frame that returned them, and pending_since after each frame."""
    events, pending = [], {}
    for stamp, watch, full in film:
        got = pipe.feed(watch, stamp, full) if isinstance(pipe, CardPipeline) else pipe.feed(watch, stamp)
        events += [(stamp, e) for e in got]
        pending[stamp] = getattr(pipe, "pending_since", None)
    return events, pending


OLD = [PileCard("4S", 0.45, 0.5, 20.0), PileCard("9D", 0.55, 0.47, 75.0)]


def _first_showing(film: list[tuple[int, np.ndarray, np.ndarray]], landed: int) -> int:
    return next(stamp for stamp, _, _ in film if stamp - EXPOSURE // 2 >= landed)


@pytest.mark.parametrize("card, angle", [("JH", 30.0), ("JS", 200.0), ("QC", 115.0)])
def test_card_then_hand_at_150_ms_is_named_with_the_landing_stamp(card: str, angle: float) -> None:
    landed, hand_at = 300 * MS, 450 * MS

    def scene(t: int) -> tuple[list[PileCard], list[HandOver]]:
        hands = [HandOver(0, 0.85), HandOver(2, 0.7)] if t >= hand_at else []
        return OLD + [PileCard(card, 0.5, 0.52, angle, landed)], hands

    film = _film(scene, 24)
    first = _first_showing(film, landed)
    events, _ = _feed(CardPipeline(), film)
    seen = [(at, e) for at, e in events if isinstance(e, CardSeen)]
    assert [e.card for _, e in seen] == [Card.parse(card)]
    at, e = seen[0]
    assert e.t_ns == first
    assert at < hand_at + EXPOSURE // 2 and at - first <= 100 * MS  # before the hands, on the 3rd frame at most
    assert not [e for _, e in events if isinstance(e, CardUnreadable)]
    # the settled-view reader alone never names it: the hands arrive before the pile is still
    old, _ = _feed(SettlePipeline(), film)
    assert not [e for _, e in old if isinstance(e, CardSeen)]


@pytest.mark.parametrize("seats", [(0,), (1, 3), (0, 1, 2)])
def test_hands_alone_are_never_a_card(seats: tuple[int, ...]) -> None:
    def scene(t: int) -> tuple[list[PileCard], list[HandOver]]:
        k = t // PERIOD
        cover = max(0.0, min(0.8, 0.1 * (k - 3))) if k < 14 else max(0.0, 0.8 - 0.2 * (k - 14))
        return list(OLD), [HandOver(s, cover) for s in seats] if 3 <= k < 19 else []

    def looks(t: int) -> Look:  # the camera's exposure moves while the hands are in
        return Look(brightness=1.08 if 8 <= t // PERIOD < 20 else 1.0, exposure_ns=EXPOSURE, noise=2.0)

    events, pending = _feed(CardPipeline(), _film(scene, 30, looks=looks))
    assert events == []
    assert not any(pending.values())


def test_pile_swept_away_is_cleared() -> None:
    swept = 500 * MS

    def scene(t: int) -> tuple[list[PileCard], list[HandOver]]:
        cards = [] if t >= swept else OLD + [PileCard("KD", 0.5, 0.5, 140.0, 100 * MS)]
        return cards, [HandOver(1, 0.8)] if swept - 150 * MS <= t < swept + 100 * MS else []

    film = _film(scene, 30)
    events, pending = _feed(CardPipeline(), film)
    assert [type(e) for _, e in events] == [CardSeen, PileCleared]
    at, cleared = events[1]
    assert swept - 150 * MS <= cleared.t_ns <= at
    assert pending[film[-1][0]] is None


def test_pending_raised_at_the_first_changed_frame_and_cleared_when_named() -> None:
    landed = 200 * MS
    film = _film(lambda t: (OLD + [PileCard("7C", 0.5, 0.5, 300.0, landed)], []), 14)
    first = _first_showing(film, landed)
    events, pending = _feed(CardPipeline(), film)
    (at, seen), = events
    assert seen == CardSeen(Card.parse("7C"), first, seen.confidence)
    assert [stamp for stamp, p in pending.items() if p is not None] == [s for s, _, _ in film if first <= s < at]
    assert all(pending[s] == first for s, _, _ in film if first <= s < at)


class _HalfSure:
    """A reader that reads `card` in an index corner at 0.6, never surely (and nothing in a whole view)."""

    def __init__(self, card: str) -> None:
        self.card = Card.parse(card)

    def __call__(self, image: np.ndarray, *, min_conf: float = 0.97, include_unsure: bool = False) -> list:
        if image.shape[0] > 150 or (min_conf > 0.6 and not include_unsure):
            return []
        return [Detection(self.card, 0.6, (image.shape[1] * 0.25, image.shape[0] * 0.3))]


def test_pending_cleared_when_the_card_is_found_unreadable() -> None:
    landed = 200 * MS
    film = _film(lambda t: (OLD + [PileCard("7C", 0.5, 0.5, 300.0, landed)], []), 16)
    first = _first_showing(film, landed)
    events, pending = _feed(CardPipeline(recognizer=_HalfSure("7C")), film)
    (at, unreadable), = events
    assert unreadable == CardUnreadable(first, 0.0)
    assert pending[at] is None and all(pending[s] == first for s, _, _ in film if first <= s < at)


# -- the parts ------------------------------------------------------------------------------------------------

def _box(center: tuple[float, float], w: float, angle: float) -> np.ndarray:
    return cv2.boxPoints((center, (w, 1.4 * w), angle)).astype(np.float32)


def test_find_card_outlines_a_card_and_refuses_an_arm() -> None:
    change = np.zeros((120, 160), np.uint8)
    cv2.fillConvexPoly(change, np.round(_box((80, 60), 30, 25)).astype(np.int32), 255)
    quad = landing.find_card(change, 4.0)
    assert quad is not None
    assert quad.width == pytest.approx(4 * 31, rel=0.08) and quad.height == pytest.approx(4 * 43, rel=0.08)
    assert np.allclose(quad.center, (4 * 80.5, 4 * 60.5), atol=4)
    arm = np.zeros((120, 160), np.uint8)
    cv2.line(arm, (0, 10), (90, 70), 255, 14)
    assert landing.find_card(arm, 4.0) is None


def test_find_card_grows_a_partly_changed_card_to_the_cards_size() -> None:
    # plain paper over paper changes nothing: the change (its ink, the ink it hid) stops short of its edges
    change = np.zeros((120, 160), np.uint8)
    box = _box((80, 60), 30, 20)
    cv2.fillConvexPoly(change, np.round((box - (80, 60)) * 0.82 + (80, 60)).astype(np.int32), 255)
    short = landing.find_card(change, 4.0)                  # card size unknown: the change's own box
    assert short is not None and short.width < 0.9 * 120
    quad = landing.find_card(change, 4.0, card_w=4 * 30)
    assert quad is not None and quad.width == pytest.approx(120, rel=0.05)
    assert quad.height == pytest.approx(168, rel=0.05) and np.allclose(quad.center, (4 * 80.5, 4 * 60.5), atol=4)


@pytest.mark.parametrize("angle", [0.0, 90.0, 180.0, 270.0, 33.0, 250.0])
def test_corner_patches_cut_both_indices_upright(angle: float) -> None:
    r = SceneRenderer((640, 480), card_width=0.3, seed=4)
    c = PileCard("10D", 0.5, 0.5, angle)
    img = r.render([c], look=Look(noise=2.0))
    quad = landing.CardQuad(r.placement(c).quad())
    patches = landing.corner_patches(img, quad)
    assert len(patches) == 2
    for patch in patches:
        from referee.vision.recognize import recognize
        named = [d for d in recognize(patch) if landing.in_index(d.center, patch.shape)]
        assert [str(d.card) for d in named] == ["10D"]


def _det(card: str | None, conf: float) -> list[Detection]:
    return [Detection(Card.parse(card), conf, (10.0, 10.0))] if card else []


@pytest.mark.parametrize("reads, named", [
    ([(1, 0, "JH", 0.99), (1, 1, "JH", 0.6)], "JH"),          # both corners of one frame
    ([(1, 0, "JH", 0.99)], None),                              # one corner once: wait
    ([(1, 0, "JH", 0.99), (2, 0, "JH", 0.98)], "JH"),          # one corner surely on two frames
    ([(1, 0, "JH", 0.99), (1, 1, "JD", 0.6)], None),           # the corners disagree
    ([(1, 0, "JH", 0.99), (2, 0, "JH", 0.99), (2, 1, "7H", 0.7)], None),
    ([(1, 0, "JH", 0.9), (1, 1, "JH", 0.9)], None),            # neither sure
    ([(1, 0, "JH", 0.9995), (1, 1, None, 0.0)], "JH"),         # one very sure, the other corner blank
    ([(1, 0, "JH", 0.995), (1, 1, None, 0.0)], None),          # ... but not very sure
    ([(1, 0, "JH", 0.9995)], None),                            # the other corner not read (a hand over it)
])
def test_evidence_names_only_agreeing_sure_reads(reads: Sequence[tuple[int, int, str | None, float]],
                                                 named: str | None) -> None:
    ev = landing.Evidence(0.97)
    for frame, corner, card, conf in reads:
        ev.add(frame, corner, _det(card, conf))
    got = ev.decide()
    assert (str(got[0]) if got else None) == named


def test_watch_thumb_is_small_and_grey() -> None:
    img = np.full((480, 640, 3), (90, 200, 230), np.uint8)
    thumb = landing.watch_thumb(img)
    assert thumb.shape == (120, 160) and thumb.dtype == np.uint8 and int(thumb[60, 80]) == 90  # its least channel


def test_a_full_frame_of_another_size_is_read_at_the_matching_place() -> None:
    # the watch frame names nothing (too small to read); the full frame, twice its size, names the card
    landed = 200 * MS
    film = _film(lambda t: (OLD + [PileCard("8H", 0.5, 0.5, 60.0, landed)], []), 12, seed=random.Random(5).randint(0, 99))
    events, _ = _feed(CardPipeline(), film)
    assert [str(e.card) for _, e in events if isinstance(e, CardSeen)] == ["8H"]


def test_hands_resting_on_a_skin_toned_cloth_name_nothing() -> None:
    # the cloth is skin-coloured, so the hands show no new skin; their arms still reach the region's edge
    landed, hands_at = 200 * MS, 420 * MS
    r = SceneRenderer((640, 480), card_width=0.3, seed=3)
    cloth = np.clip(np.random.default_rng(0).normal((95, 125, 170), 12, (480, 640, 3)), 0, 255).astype(np.uint8)
    r.table, r._static, r._static_key = cloth, cloth.copy(), ()
    cards = OLD + [PileCard("KC", 0.5, 0.5, 100.0, landed)]
    film = []
    for k in range(75):
        stamp = (k + 1) * PERIOD
        mid = stamp - EXPOSURE // 2
        hands = [HandOver(0, 0.62)] if mid >= hands_at else []   # fingers over the card, 1.4% new skin
        full = r.render(cards, hands, t_ns=mid, look=Look(exposure_ns=EXPOSURE, noise=2.0))
        film.append((stamp, cv2.resize(full, (320, 240), interpolation=cv2.INTER_AREA), full))
    events, _ = _feed(CardPipeline(recognizer=_MisreadUnderHands()), film)
    assert [str(e.card) for _, e in events if isinstance(e, CardSeen)] == ["KC"]
    assert not [e for _, e in events if isinstance(e, CardUnreadable)]


class _MisreadUnderHands:
    """The stock reader, but a whole view with hands in it also reads a KS (a KC half under a finger)."""

    def __call__(self, image: np.ndarray, *, min_conf: float = 0.97, include_unsure: bool = False) -> list:
        from referee.vision.recognize import recognize
        found = recognize(image, min_conf=min_conf, include_unsure=include_unsure)
        hand = np.all(np.abs(image.astype(int) - (140, 170, 220)) < 30, axis=2)
        if image.shape[0] >= 200 and np.count_nonzero(hand) > 300:
            found.append(Detection(Card.parse("KS"), 0.99, (image.shape[1] / 2, image.shape[0] / 2)))
        return found


def test_reaches_edge() -> None:
    changed = np.zeros((120, 160), bool)
    changed[50:70, 60:100] = True           # a card in the middle
    assert not landing.reaches_edge(changed)
    changed[60:66, 100:160] = True          # an arm to the right edge
    assert landing.reaches_edge(changed)


class _NamesTheSpeck:
    """Names 9C at the speck's place once a white speck shows (a card the landing signal never covered)."""

    def __call__(self, image: np.ndarray, *, min_conf: float = 0.97, include_unsure: bool = False) -> list:
        if image.shape[0] < 200 or image[172, 172].tolist() != [235, 235, 235]:
            return []
        return [Detection(Card.parse("9C"), 0.99, (172.0, 172.0))]


def test_no_event_is_stamped_before_a_frame_fed_with_nothing_pending() -> None:
    # a change too small for the landing signal, named by the settled-view reader: its burst began at frame 3,
    # but frames 3-5 were fed with nothing pending, so the card is stamped just after frame 5
    from referee.vision import render
    table = render.random_table(random.Random(3), (360, 360))
    speck = table.copy()
    speck[160:186, 160:186] = (235, 235, 235)
    pipe = CardPipeline(recognizer=_NamesTheSpeck())
    events, vouched = [], []
    for i, f in enumerate([table] * 3 + [speck] * 6):
        events += pipe.feed(f, 100 * i)
        if pipe.pending_since is None:
            vouched.append(100 * i)
    assert [str(e.card) for e in events] == ["9C"]
    assert events[0].t_ns == 501 and all(events[0].t_ns > v for v in vouched if v < 600)

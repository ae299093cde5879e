"""The frame pipeline on rendered drop sequences: right cards, right order, first-frame stamps.

`CardPipeline` reads landings and keeps the settled-view reader as its fallback; the tests of that reader's own
rules (closer look, unreadable rather than silence, where a new name may lie) run it alone as `SettlePipeline`."""
from __future__ import annotations

import random

import numpy as np
import pytest

from referee.core.cards import Card, standard_deck
from referee.core.events import CardSeen, CardUnreadable, PileCleared
from referee.vision import render, settle
from referee.vision import recognize as recognize_module
from referee.vision.pipeline import CardPipeline, SettlePipeline
from referee.vision.simulate import PileSimulator


def _run(sim: PileSimulator, pipe: SettlePipeline | None = None) -> list:
    pipe = pipe or CardPipeline()
    events = []
    for frame, t_ns in sim.frames():
        events.extend(pipe.feed(frame, t_ns))
    return events


@pytest.mark.parametrize("row", [False, True])
def test_drop_sequence_named_in_order_with_first_frame_stamps(row: bool) -> None:
    deck = random.Random(4).sample(standard_deck(), 8)
    sim = PileSimulator(deck, seed=3, row=row)
    seen = [e for e in _run(sim) if isinstance(e, CardSeen)]
    assert [e.card for e in seen] == deck
    assert [e.t_ns for e in seen] == [d.t_ns for d in sim.drops]


def test_hands_over_the_pile_produce_no_card() -> None:
    deck = random.Random(9).sample(standard_deck(), 4)
    sim = PileSimulator(deck, seed=5, hands=1.0)
    events = _run(sim)
    assert [e.card for e in events if isinstance(e, CardSeen)] == deck
    assert not [e for e in events if isinstance(e, CardUnreadable)]


def test_hand_resting_on_pile_is_not_a_card() -> None:
    rng = random.Random(1)
    table = render.random_table(rng, (360, 360))
    pipe = CardPipeline()
    events = []
    for i in range(12):
        img = table.copy()
        if i >= 3:
            render.draw_hand(img, random.Random(0), (180, 180), 90, 30)
        events += pipe.feed(img, 1000 + i)
    assert events == []


def test_pile_taken_away_is_reported() -> None:
    rng = random.Random(2)
    table = render.random_table(rng, (360, 360))
    pile = table.copy()
    render.composite(pile, render.Placement(Card.parse("7D"), (180, 180), 150, 15, render.STYLES["classic"]))
    pipe = CardPipeline()
    frames = [table] * 3 + [pile] * 6 + [table] * 6
    events = [e for i, f in enumerate(frames) for e in pipe.feed(f, 100 * i)]
    assert events == [CardSeen(Card.parse("7D"), 300, events[0].confidence), PileCleared(900)]


def test_frames_out_of_order_are_refused() -> None:
    pipe = CardPipeline()
    img = np.zeros((100, 100, 3), np.uint8)
    pipe.feed(img, 10)
    with pytest.raises(ValueError):
        pipe.feed(img, 5)


class _HalfSure:
    """A recognizer that never names a card surely, but half-reads `card` when asked for unsure readings."""

    def __init__(self, card: Card | None, confidence: float) -> None:
        self.card, self.confidence = card, confidence

    def __call__(self, image: np.ndarray, *, min_conf: float = 0.9, include_unsure: bool = False) -> list:
        from referee.vision.recognize import Detection
        if include_unsure and self.card is not None:
            return [Detection(self.card, self.confidence, (172.0, 172.0))]  # in the changed patch
        return []


def _small_change_frames() -> list[np.ndarray]:
    """A bare table, then a lasting change covering ~1.5% of the view (below the unreadable area)."""
    table = render.random_table(random.Random(3), (360, 360))
    changed = table.copy()
    changed[150:195, 150:195] = (235, 235, 235)
    return [table] * 3 + [changed] * 6


def test_half_read_card_with_small_change_is_unreadable_not_silence() -> None:
    # a slapstick row's new end card can change little of the view; if it is half-read, it landed
    pipe = CardPipeline(recognizer=_HalfSure(Card.parse("3S"), 0.55))
    events = [e for i, f in enumerate(_small_change_frames()) for e in pipe.feed(f, 100 * i)]
    assert events == [CardUnreadable(300, 0.55)]


class _Reads:
    """A recognizer that names `cards` in the changed patch once the view has changed."""

    def __init__(self, *cards: str) -> None:
        self.cards = [Card.parse(c) for c in cards]

    def __call__(self, image: np.ndarray, *, min_conf: float = 0.9, include_unsure: bool = False) -> list:
        from referee.vision.recognize import Detection
        if image[172, 172].tolist() != [235, 235, 235]:
            return []
        return [Detection(c, 0.99 - 0.01 * k, (160.0 + 10 * k, 172.0)) for k, c in enumerate(self.cards)]


@pytest.mark.parametrize("cards, seen", [(("6C", "6S"), []), (("2H", "2D", "9C"), ["9C"]),
                                         (("6C", "6H"), ["6C", "6H"]), (("7S", "8C"), ["7S", "8C"])])
def test_suit_twins_in_one_landing_are_unreadable_not_two_cards(cards: tuple[str, ...], seen: list[str]) -> None:
    # a landing brings one card: its corners read as a suit and its partner are the reader's doubt
    pipe = CardPipeline(recognizer=_Reads(*cards))
    events = [e for i, f in enumerate(_small_change_frames()) for e in pipe.feed(f, 100 * i)]
    assert [str(e.card) for e in events if isinstance(e, CardSeen)] == seen
    twins = len(seen) < len(cards)
    assert [e for e in events if isinstance(e, CardUnreadable)] == ([CardUnreadable(300, 0.99)] if twins else [])


@pytest.mark.parametrize("hint", [None, 0.3])
def test_small_change_without_a_half_read_card_stays_quiet(hint: float | None) -> None:
    pipe = CardPipeline(recognizer=_HalfSure(Card.parse("3S") if hint else None, hint or 0.0))
    events = [e for i, f in enumerate(_small_change_frames()) for e in pipe.feed(f, 100 * i)]
    assert events == []


def test_rendered_row_never_drops_a_card_silently(monkeypatch: pytest.MonkeyPatch) -> None:
    # seed 8 without the closer look (and the recognizer's second look, so the fallback stays tested whatever
    # it names): two row cards read below the naming cut (3S, 10C); each is still reported
    monkeypatch.setattr(settle, "CLOSER_MAX_SHARE", 0.0)
    monkeypatch.setattr(recognize_module, "SECOND_LOOK_FLOOR", 1.0)
    deck = random.Random(8).sample(standard_deck(), 52)[:12]
    sim = PileSimulator(deck, seed=8, row=True, hands=0.0, size=480)
    events = _run(sim, SettlePipeline())
    seen = [e.card for e in events if isinstance(e, CardSeen)]
    unreadable = [e for e in events if isinstance(e, CardUnreadable)]
    assert set(seen) <= set(deck)
    assert unreadable
    assert len(seen) + len(unreadable) == len(deck)


def test_closer_look_names_small_row_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    # seed 8 at 480 px: the 3S and the 10C read 0.65 / 0.85 in the whole (shrunk) region, surely in their crops;
    # the recognizer's own second look is turned off, so the closer look is measured alone
    deck = random.Random(8).sample(standard_deck(), 52)[:12]
    monkeypatch.setattr(recognize_module, "SECOND_LOOK_FLOOR", 1.0)
    seen = [e for e in _run(PileSimulator(deck, seed=8, row=True, hands=0.0, size=480), SettlePipeline())
            if isinstance(e, CardSeen)]
    assert [e.card for e in seen] == deck
    monkeypatch.setattr(settle, "CLOSER_MAX_SHARE", 0.0)  # no closer look either
    without = _run(PileSimulator(deck, seed=8, row=True, hands=0.0, size=480), SettlePipeline())
    assert len([e for e in without if isinstance(e, CardSeen)]) < len(deck)


class _CropReader:
    """Names nothing in a whole frame; in a smaller crop, names `card` at `where` (crop pixels)."""

    def __init__(self, card: Card, where: tuple[float, float]) -> None:
        self.card, self.where, self.crops = card, where, 0

    def __call__(self, image: np.ndarray, *, min_conf: float = 0.9, include_unsure: bool = False) -> list:
        from referee.vision.recognize import Detection
        if image.shape[0] >= 600 or include_unsure:
            return []
        self.crops += 1
        return [Detection(self.card, 0.99, self.where)]


def _patch_frames() -> list[np.ndarray]:
    """A 600 px bare table, then a lasting card-sized change at (250..350, 250..380)."""
    table = render.random_table(random.Random(3), (600, 600))
    changed = table.copy()
    changed[250:380, 250:350] = (235, 235, 235)
    return [table] * 3 + [changed] * 6


@pytest.mark.parametrize("where, named", [((90.0, 90.0), True), ((2.0, 2.0), False)])
def test_closer_look_counts_only_indices_in_the_change(where: tuple[float, float], named: bool) -> None:
    # the crop holds the change plus a margin; an index at the crop's corner belongs to an old card
    reader = _CropReader(Card.parse("4H"), where)
    pipe = CardPipeline(recognizer=reader)
    events = [e for i, f in enumerate(_patch_frames()) for e in pipe.feed(f, 100 * i)]
    assert reader.crops == 1
    assert [e.card for e in events if isinstance(e, CardSeen)] == ([Card.parse("4H")] if named else [])


class _WholeReader:
    """Names `card` at `where` (frame pixels) in every view, surely."""

    def __init__(self, card: Card, where: tuple[float, float]) -> None:
        self.card, self.where = card, where

    def __call__(self, image: np.ndarray, *, min_conf: float = 0.9, include_unsure: bool = False) -> list:
        from referee.vision.recognize import Detection
        return [Detection(self.card, 0.99, self.where)]


@pytest.mark.parametrize("where, named", [((300.0, 300.0), True), ((40.0, 560.0), False)])
def test_a_new_name_away_from_the_change_did_not_just_land(where: tuple[float, float], named: bool) -> None:
    # an old card first read surely now (or misread) is not the card this burst brought: wrong stamp, wrong card
    reader = _WholeReader(Card.parse("9C"), where)
    pipe = SettlePipeline(recognizer=reader)
    frames = _patch_frames()
    pipe.feed(frames[0], 0)
    reader.card = Card.parse("9D")  # from now on the reader names a card the first view did not show
    events = [e for i, f in enumerate(frames[1:], 1) for e in pipe.feed(f, 100 * i)]
    assert [e.card for e in events if isinstance(e, CardSeen)] == ([Card.parse("9D")] if named else [])

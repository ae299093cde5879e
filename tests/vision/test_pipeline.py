"""The frame pipeline on rendered drop sequences: right cards, right order, first-frame stamps."""
from __future__ import annotations

import random

import numpy as np
import pytest

from referee.cards import Card, standard_deck
from referee.events import CardSeen, CardUnreadable, PileCleared
from referee.vision import render
from referee.vision.pipeline import CardPipeline
from referee.vision.simulate import PileSimulator


def _run(sim: PileSimulator, pipe: CardPipeline | None = None) -> list:
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

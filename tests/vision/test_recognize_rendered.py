"""The recognizer on project-rendered scenes: names visible cards, never hands."""
from __future__ import annotations

import random

import numpy as np

from referee.core.cards import Card, standard_deck
from referee.vision import render
from referee.vision.recognize import recognize


def _scene(seed: int, cards: list[Card], angle: float, hand: bool = False) -> np.ndarray:
    rng = random.Random(seed)
    img = render.random_table(rng, (480, 480))
    for k, card in enumerate(cards):
        p = render.Placement(card, (200 + 70 * k, 240), 160, angle + 25 * k, render.STYLES["classic"])
        render.composite(img, p)
    if hand:
        render.draw_hand(img, rng, (380, 380), 110)
    return img


def test_single_cards_at_many_angles() -> None:
    rng = random.Random(11)
    deck = standard_deck(jokers=1)
    right = wrong = 0
    for n in range(24):
        card = rng.choice(deck)
        found = recognize(_scene(n, [card], rng.uniform(0, 360)))
        names = [d.card for d in found]
        right += card in names
        wrong += sum(c != card for c in names)
    assert right >= 21
    assert wrong <= 1


def test_overlapping_pair_names_both() -> None:
    cards = [Card.parse("9C"), Card.parse("4D")]
    found = {d.card for d in recognize(_scene(5, cards, 10))}
    assert found == set(cards)


def test_a_tight_fan_names_every_card_whose_index_shows() -> None:
    # each index stands on the same line right beside the next card's, like a "10"'s two digits:
    # side-by-side merging alone read "8Q" and "Q5" as one glyph and named only the top card
    cards = [Card.parse(c) for c in ("8S", "QC", "5S", "JC")]
    img = np.full((480, 480, 3), (40, 110, 40), np.uint8)
    for k, card in enumerate(cards):
        render.composite(img, render.Placement(card, (120 + 27 * k, 240), 180, 0.0, render.STYLES["classic"]),
                         rng=random.Random(k))
    assert {d.card for d in recognize(img)} == set(cards)


def test_a_hand_over_an_empty_table_is_not_a_card() -> None:
    rng = random.Random(2)
    for seed in range(4):
        img = render.random_table(rng, (480, 480))
        render.draw_hand(img, rng, (240, 240), 150)
        assert recognize(img) == []


def test_blank_image_gives_nothing() -> None:
    assert recognize(np.full((300, 300, 3), 200, np.uint8)) == []

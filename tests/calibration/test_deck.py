"""Deck learning on ../shared/data/crops-piatnik, a 24-card deck the recognizer was not built for.

Each card's 9 shots are split by position (3 learned, 6 held out); nothing is
ever checked on a shot it learned from. Before = the stock recognizer on the
held-out shots; after = the calibrated deck store on the same shots.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration import deck_cal
from calibration.deck_shots import folder_shots, name_from_file, split
from calibration.cut_choice import CUTS
from calibration.decks import deck_cards
from referee.core.cards import Card
from referee.vision.deck_store import DeckStore, Shot, upright
from referee.vision.recognize import Detection

from .conftest import piatnik


@pytest.fixture(scope="module")
def learned():  # type: ignore[no-untyped-def]
    shots = folder_shots(piatnik())
    learn, check = split(shots, 3)
    store, report = deck_cal.calibrate(learn, check, deck_cards("24"))
    return shots, learn, check, store, report


def test_split_never_overlaps(learned) -> None:  # type: ignore[no-untyped-def]
    shots, learn, check, _, _ = learned
    assert len(shots) == 216 and len(learn) == 72 and len(check) == 144
    assert not {s.name for s in learn} & {s.name for s in check}
    for card in deck_cards("24"):
        assert sum(s.card == card for s in learn) == 3 and sum(s.card == card for s in check) == 6


def test_calibration_beats_the_stock_recognizer(learned) -> None:  # type: ignore[no-untyped-def]
    """The learned deck must beat the stock recognizer on held-out shots (whatever the stock
    recognizer's current level) and leave nothing unnamed."""
    *_, report = learned
    assert report.baseline_accuracy is not None
    assert report.accuracy >= report.baseline_accuracy, (report.baseline_accuracy, report.accuracy)
    assert report.accuracy == 1.0, (report.baseline_accuracy, report.accuracy)


def test_every_card_named_on_held_out_shots(learned) -> None:  # type: ignore[no-untyped-def]
    *_, report = learned
    assert sorted(report.per_card) == sorted(deck_cards("24"))
    bad = {c: dict(r.named_as) for c, r in report.per_card.items() if r.correct != r.shots}
    assert not bad, "\n".join(report.lines())
    assert report.usable and not report.confused and not report.missing


def test_its_cut_is_chosen_so_no_held_out_shot_names_a_second_card(learned) -> None:  # type: ignore[no-untyped-def]
    # at the table every card named is a card on the pile: at the store's default 0.5, 22 of these 144
    # single-card shots also named another card (court art and pips read as an index)
    *_, check, store, report = learned
    assert store.min_conf in CUTS and store.min_conf > 0.5
    seconds = {s.name: [str(d.card) for d in store(upright(s.image))] for s in check}
    assert all(named == [s.card] for s, named in zip(check, seconds.values())), seconds
    assert not any(r.also_named for r in report.per_card.values())


class _TwoNames:
    """A stand-in store naming each shot's own card at 0.99 and one other card at `other`."""

    def __init__(self, other: float) -> None:
        self.other = other
        self.min_conf = 0.5

    def __call__(self, image: np.ndarray, *, min_conf: float | None = None,
                 include_unsure: bool = False) -> list[Detection]:
        cut = self.min_conf if min_conf is None else min_conf
        card = Card.parse("KS" if image[0, 0, 0] else "QH")
        named = [Detection(card, 0.99, (0.0, 0.0)), Detection(Card.parse("2C"), self.other, (0.0, 0.0))]
        return [d for d in named if d.confidence >= cut or include_unsure]


def test_the_report_shows_second_cards_and_such_a_deck_is_not_usable() -> None:
    shots = [Shot("KS", np.full((140, 100, 3), 1, np.uint8)), Shot("QH", np.zeros((140, 100, 3), np.uint8))]
    results = deck_cal.score(_TwoNames(0.8), shots)  # at its 0.5 the second card is named beside each
    report = deck_cal.DeckReport(["KS", "QH"], ["KS", "QH"], results, 1.0, None, 4, 2)
    assert report.accuracy == 1.0 and not report.usable
    assert report.confused == ["KS also 2C", "QH also 2C"]
    assert any("also named 2C x1" in line for line in report.lines())


def test_not_usable_until_every_card_is_seen(learned) -> None:  # type: ignore[no-untyped-def]
    _, learn, check, _, _ = learned
    without_ace = [s for s in learn if s.card != "AS"]
    store, report = deck_cal.calibrate(without_ace, [s for s in check if s.card in ("AS", "9S")],
                                       deck_cards("24"), baseline=False)
    assert not report.usable and "AS" in report.missing
    # the stock reader, which reads first where it is sure, may still name the ace; the store alone cannot
    store.stock_cut = None
    alone = deck_cal.score(store, [s for s in check if s.card == "AS"])
    assert alone["AS"].correct < alone["AS"].shots


def test_store_round_trip_and_hash(learned, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, _, check, store, _ = learned
    digest = store.save(tmp_path / "d.npz")
    again = DeckStore.load(tmp_path / "d.npz", sha256=digest)
    assert again.cards == store.cards and again.vectors.shape == store.vectors.shape
    shot = check[0]
    assert str(again(shot.image)[0].card) == shot.card
    with pytest.raises(ValueError, match="sha256"):
        DeckStore.load(tmp_path / "d.npz", sha256="0" * 64)


def test_blank_table_names_nothing(learned) -> None:  # type: ignore[no-untyped-def]
    *_, store, _ = learned
    table = np.full((300, 300, 3), (40, 110, 50), np.uint8)
    assert store(table) == []


def test_file_names() -> None:
    assert name_from_file("10H_03.jpg") == "10H"
    assert name_from_file("QS-a.png") == "QS"
    assert name_from_file("TD.jpg") == "10D"
    assert name_from_file("joker_1.jpg") == "JOKER"
    assert name_from_file("IMG_0001.jpg") is None


def test_split_keeps_one_held_out_shot(learned) -> None:  # type: ignore[no-untyped-def]
    shots = learned[0]
    two = [s for s in shots if s.card == "KH"][:2]
    learn, check = split([Shot(s.card, s.image, s.name) for s in two], 3)
    assert len(learn) == 1 and len(check) == 1

"""Leave one deck out (referee/vision/holdout.py): a deck's naming cut is chosen on the other decks only."""
from __future__ import annotations

import random

import cv2
import pytest

from referee.vision import holdout
from referee.vision.holdout import Tally
from referee.vision.recognize import recognize, recognize_at_cuts

from .conftest import DATA, labelled

CUTS = (0.5, 0.9, 0.97, 0.99)


def _deck(wrong_at: dict[float, int], named: int = 1000, labelled_n: int = 1100) -> dict[float, Tally]:
    """A deck's tallies: `wrong_at[cut]` wrong names at each cut, fewer names at higher cuts."""
    return {c: Tally(named - 50 * k - wrong_at.get(c, 0), labelled_n, named - 50 * k) for k, c in enumerate(CUTS)}


def test_the_lowest_cut_every_training_deck_and_all_together_name_precisely_enough_at() -> None:
    tallies = {"a": _deck({0.5: 30, 0.9: 1}), "b": _deck({0.5: 2, 0.9: 3}), "c": _deck({0.5: 5})}
    assert holdout.choose_cut(tallies, ["a", "b"]) == 0.97   # at 0.9 each is precise enough, together 4 of 1900 not
    assert holdout.choose_cut(tallies, ["b"]) == 0.5         # 2 of 1000: 0.998
    assert holdout.choose_cut(tallies, ["b", "c"]) == 0.9    # at 0.5 c alone meets 0.995, the two (7 of 2000) not
    # a small deck's single wrong name (1 in 216) meets the precision asked of each deck, not the pooled one alone
    small = {c: Tally(215, 216, 216) for c in CUTS}
    assert holdout.choose_cut({"small": small, "big": _deck({})}, ["small", "big"]) == 0.5
    assert holdout.choose_cut({"small": small}, ["small"]) == 0.99   # alone it is all of the pool: no cut meets 0.998


def test_no_cut_good_enough_falls_back_to_the_highest_with_the_best_worst_deck() -> None:
    bad = {c: Tally(90, 100, 100) for c in CUTS}
    assert holdout.choose_cut({"x": bad}, ["x"]) == max(CUTS)


def test_the_deck_left_out_never_influences_its_own_cut() -> None:
    rng = random.Random(5)
    base = {d: _deck({c: rng.randint(0, 4) for c in CUTS}) for d in ("p", "q", "r")}
    chosen = {h.deck: h.cut for h in holdout.leave_one_out(base)}
    for deck in base:
        for _ in range(20):   # whatever the deck left out does at every cut, its cut stays
            changed = dict(base)
            changed[deck] = {c: Tally(rng.randint(0, 500), 600, 500) for c in CUTS}
            held = {h.deck: h for h in holdout.leave_one_out(changed)}
            assert held[deck].cut == chosen[deck]
            assert held[deck].tally == changed[deck][chosen[deck]]   # and it is reported at that cut
            assert deck not in held[deck].trained_on


def test_scoring_counts_cards_as_multisets_like_eval_vision() -> None:
    assert holdout.score_image([("7", "H"), ("6", "S")], [("7", "H"), ("7", "H"), ("JOKER", "S")]) == Tally(1, 2, 3)
    assert holdout.score_image([("JOKER", "")], [("JOKER", "")]) == Tally(1, 1, 1)
    assert Tally(0, 5, 0).precision == 1.0 and Tally(0, 5, 0).recall == 0.0


def test_tallies_survive_a_round_trip(tmp_path) -> None:
    tallies = {"a": _deck({0.5: 3}), "b": _deck({})}
    holdout.save_tallies(tmp_path / "t.csv", tallies)
    assert holdout.load_tallies(tmp_path / "t.csv") == tallies


def test_reading_at_many_cuts_is_reading_at_each() -> None:
    truth = labelled("scenes-bicycle")
    for name in sorted(truth)[::200]:
        img = cv2.imread(str(DATA / "scenes-bicycle" / name))
        many = recognize_at_cuts(img, CUTS)
        for cut in CUTS:
            assert [(d.card, round(d.confidence, 9)) for d in many[cut]] == \
                   [(d.card, round(d.confidence, 9)) for d in recognize(img, min_conf=cut)]


def test_a_real_decks_cut_is_chosen_without_its_photos() -> None:
    # each deck read on a few photos; the cut chosen for one deck is the same when its photos are swapped for
    # others (or for none at all): only the other decks' reads decide it
    decks = [d for d in holdout.DECKS if (DATA / d / "labels.csv").exists()]
    if len(decks) < 3:
        pytest.skip(f"needs {', '.join(holdout.DECKS)} at {DATA}")
    tallies = {d: holdout.read_deck(DATA / d, CUTS, step=120) for d in decks}
    for held in holdout.leave_one_out(tallies):
        other_photos = holdout.read_deck(DATA / held.deck, CUTS, step=97)
        swapped = {**tallies, held.deck: other_photos}
        assert {h.deck: h.cut for h in holdout.leave_one_out(swapped)}[held.deck] == held.cut
        assert holdout.choose_cut(tallies, held.trained_on) == held.cut

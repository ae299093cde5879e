"""Learning a deck from one deal in any order (`calibration.deal_learn`, `referee calibrate deck --deal`).

Rendered deals: each landing is a photo of one card of a rendered deck style lying on a random table.
A scripted player answers the questions from the truth; a deal with landings nobody can read is settled
by elimination and by one question. Real photos: one shot per card of each deck in ../shared/data.
"""
from __future__ import annotations

import argparse
import dataclasses
import random
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("scipy", reason="deal learning solves its assignment with scipy (pip install '.[vision]')")

from calibration import deal_learn as dl  # noqa: E402
from calibration.cmd_deal import run as run_deal  # noqa: E402
from calibration.decks import deck_cards  # noqa: E402
from calibration.profile import load_or_new  # noqa: E402
from calibration.ui import Prompter, Scripted  # noqa: E402
from referee.core.cards import Card  # noqa: E402
from referee.vision import render  # noqa: E402
from referee.vision.deck_store import Shot  # noqa: E402

from .conftest import DATA  # noqa: E402

STYLES = {**render.STYLES, "dull-red": dataclasses.replace(render.STYLES["classic"], red=(70, 70, 115))}


def photo(card: str, style: render.CardStyle, rng: random.Random, size: int = 420) -> np.ndarray:
    """A photo of one card lying on a random table, turned a little, with light and sensor noise."""
    img = render.random_table(rng, (size, size))
    p = render.Placement(Card.parse(card), (size / 2 + rng.uniform(-20, 20), size / 2 + rng.uniform(-20, 20)),
                         size * 0.5, rng.uniform(-30, 30), style)
    render.composite(img, p, rng=rng)
    return render.finish(img, rng, light=rng.uniform(0.85, 1.1), blur=rng.choice((0.0, 0.8)), noise=rng.uniform(0, 4))


def deal(cards: list[str], style: str, seed: int) -> list[dl.Landing]:
    rng = random.Random(seed)
    out = []
    for k, card in enumerate(cards):
        out.append(dl.landing(photo(card, STYLES[style], rng), f"landing-{k:02d}"))
    return out


class Truthful(Prompter):
    """A player who answers every question with the landing's true card."""

    def __init__(self, truth: list[str]) -> None:
        super().__init__()
        self.truth = truth
        self.asked: list[int] = []

    def ask(self, question: str, default: str = "") -> str:
        m = re.match(r"landing (\d+)", question)
        assert m, question
        self.asked.append(int(m.group(1)) - 1)
        return self.truth[int(m.group(1)) - 1]


def player(ui: Prompter) -> dl.Ask:
    return lambda i, guess: ui.ask(f"landing {i + 1}: which card is it?", guess)


def shuffled(deck: list[str], seed: int) -> list[str]:
    order = list(deck)
    random.Random(seed).shuffle(order)
    return order


# -- the assignment alone, on readings made up here ----------------------------------------------------------

def test_two_landings_read_as_one_card_cost_one_question() -> None:
    deck = ["5S", "5D", "KH"]
    # the 5D's red reads black: both 5s read as 5S, surely
    sup = dl.support([{"5S": 0.99}, {"5S": 0.99}, {"KH": 0.99}], deck)
    first = dl.settle(sup, deck, None)
    assert sorted(c for c in first.cards if c) == sorted(deck)
    ui = Scripted(["5D"])
    settled = dl.settle(sup, deck, player(ui))
    assert len(ui.asked) == 1 and settled.cards[2] == "KH"
    assert settled.cards[settled.asked[0][0]] == "5D" and set(settled.cards[:2]) == {"5S", "5D"}


def test_one_landing_read_as_nothing_is_settled_by_elimination_two_are_asked() -> None:
    deck = ["9S", "10S", "JS", "QS"]
    sure = [{"9S": 0.99}, {"10S": 0.99}, {}, {"QS": 0.98}]
    assert dl.settle(dl.support(sure, deck), deck, Scripted()).cards == deck
    ui = Scripted(["JS"])
    two = [{"9S": 0.99}, {}, {}, {"QS": 0.98}]
    settled = dl.settle(dl.support(two, deck), deck, player(ui))
    assert len(ui.asked) == 1 and sorted(settled.cards) == sorted(deck)   # type: ignore[type-var]


def test_a_landing_that_is_no_card_is_left_out() -> None:
    deck = ["AS", "AH", "KS"]
    sup = dl.support([{"AS": 0.99}, {}, {}, {"AH": 0.99}], deck)   # a dropped card back and the KS: both blank
    ui = Scripted([dl.NOT_A_CARD])
    settled = dl.settle(sup, deck, player(ui))
    assert settled.cards == ["AS", None, "KS", "AH"] and len(ui.asked) == 1


def test_more_landings_than_cards_leave_one_without_a_card() -> None:
    deck = ["AS", "AH"]
    sup = dl.support([{"AS": 0.99}, {"AH": 0.99}, {"AS": 0.3}], deck)
    settled = dl.settle(sup, deck, None)
    assert settled.cards[:2] == ["AS", "AH"] and settled.cards[2] is None


# -- rendered deals ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("style", ["classic", "jumbo", "simple", "vienna"])
def test_shuffled_rendered_deal_is_assigned_right(style: str) -> None:
    deck = deck_cards("24")
    order = shuffled(deck, 5)
    landings = deal(order, style, 11)
    sup = dl.support([dl.read(landing.image) for landing in landings], deck)
    ui = Truthful(order)
    settled = dl.settle(sup, deck, player(ui))
    assert settled.cards == order
    assert len(settled.asked) <= 3, settled.asked   # the stock reader reads these styles: few questions


def test_dull_red_deal_asks_only_about_the_unsure_and_learns_to_read_it() -> None:
    """A dull red the stock reader takes for black: the assignment is wrong before the questions, the
    player is asked about fewer landings than the deck has, and every landing ends on its card."""
    deck = deck_cards("24")
    order = shuffled(deck, 8)
    landings = deal(order, "dull-red", 21)
    ui = Truthful(order)
    redeal_cards = random.Random(3).sample(deck, dl.REDEAL)
    rng = random.Random(99)
    redeal = [Shot(c, photo(c, STYLES["dull-red"], rng), f"re-{k}") for k, c in enumerate(redeal_cards)]
    result = dl.learn_deal(landings, deck, player(ui), redeal)
    s = result.settled
    assert sum(a != b for a, b in zip(s.first, order)) > 0, "the stock reader should misread this style"
    assert 0 < len(s.asked) < len(deck)
    assert s.cards == order
    assert not result.missing and result.check is not None
    assert result.check.wrong == 0 and result.check.shots == dl.REDEAL, result.lines()
    assert result.usable == (result.check.right >= dl.REDEAL / 2)


def test_deal_with_a_landing_nobody_can_read() -> None:
    """A landing showing no index (its corners covered) reads nothing: the one card left is its card."""
    deck = deck_cards("24")
    order = shuffled(deck, 2)
    landings = deal(order, "classic", 4)
    blind = landings[7].image.copy()
    blind[:] = blind[0, 0]
    landings[7] = dl.Landing(blind, "covered", None)
    assert dl.read(blind) == {}
    settled = dl.settle(dl.support([dl.read(x.image) for x in landings], deck), deck, player(Scripted()))
    assert settled.cards == order


# -- the command ---------------------------------------------------------------------------------------------

def _args(tmp_path: Path, **kw: object) -> argparse.Namespace:
    base = dict(table="table", profile_dir=str(tmp_path / "profiles"), config=None, yes=True, deck="24",
                deal=None, redeal=None, order=None, name="", scenes=None, folder=None, video=None)
    base.update(kw)
    return argparse.Namespace(**base)


def test_command_learns_a_rendered_deal_from_folders(tmp_path: Path) -> None:
    deck = deck_cards("24")
    order = shuffled(deck, 1)
    rng = random.Random(5)
    (tmp_path / "deal").mkdir()
    (tmp_path / "redeal").mkdir()
    for k, card in enumerate(order):
        cv2.imwrite(str(tmp_path / "deal" / f"{card}_{k:02d}.png"), photo(card, STYLES["classic"], rng))  # names lie
    for k, card in enumerate(random.Random(6).sample(deck, dl.REDEAL)):
        cv2.imwrite(str(tmp_path / "redeal" / f"{card}_{k:02d}.png"), photo(card, STYLES["classic"], rng))
    code = run_deal(_args(tmp_path, deal=str(tmp_path / "deal"), redeal=str(tmp_path / "redeal")))
    profile, path = load_or_new("table", str(tmp_path / "profiles"))
    assert path.exists() and profile.deck is not None
    assert code == (0 if profile.deck.usable else 1)
    assert profile.deck.held_out_shots == dl.REDEAL and not profile.deck.missing


def pile_video(path: Path, order: list[str], seed: int) -> None:
    """A video of `order` dealt one card at a time onto a felt table, each landing beside the last (a grid)."""
    rng = random.Random(seed)
    w, h = 960, 640
    table = np.zeros((h, w, 3), np.uint8)
    table[:] = (50, 105, 40)
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25, (w, h))
    for _ in range(4):
        out.write(table)
    for k, card in enumerate(order):
        centre = (110 + 180 * (k % 5), 170 + 300 * (k // 5))
        flying = table.copy()
        render.composite(flying, render.Placement(Card.parse(card), (centre[0] + 40, centre[1] - 50), 150, 30.0,
                                                  STYLES["classic"]), rng=rng)
        out.write(flying)
        render.composite(table, render.Placement(Card.parse(card), centre, 150, rng.uniform(-15, 15),
                                                 STYLES["classic"]), rng=rng)
        for _ in range(6):
            out.write(table)
    out.release()


def test_command_learns_a_deal_from_a_pile_video(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cards = ["9S", "10S", "JS", "QS", "KS", "AS", "9H", "10H", "JH"]
    order = shuffled(cards, 4)
    pile_video(tmp_path / "deal.avi", order, 8)
    (tmp_path / "redeal").mkdir()
    rng = random.Random(9)
    for k, card in enumerate(cards):
        cv2.imwrite(str(tmp_path / "redeal" / f"{card}_{k}.png"), photo(card, STYLES["classic"], rng))
    code = run_deal(_args(tmp_path, deal=str(tmp_path / "deal.avi"), redeal=str(tmp_path / "redeal"),
                          deck=",".join(cards)))
    said = capsys.readouterr().out
    profile, _ = load_or_new("table", str(tmp_path / "profiles"))
    assert profile.deck is not None and profile.deck.learn_shots == len(cards), said
    assert not profile.deck.missing and code == (0 if profile.deck.usable else 1)
    assert f"{len(cards)} landings, {len(cards)} assigned" in said


@pytest.mark.parametrize("kw, says", [
    (dict(deal="nowhere"), "no such folder or video"),
    (dict(deal="EMPTY"), "no images"),
    (dict(deal="DEAL", redeal="VIDEO"), "needs --order"),
    (dict(deal="DEAL", deck="9S,ZZ"), ""),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          kw: dict[str, str], says: str) -> None:
    (tmp_path / "EMPTY").mkdir()
    (tmp_path / "DEAL").mkdir()
    cv2.imwrite(str(tmp_path / "DEAL" / "a.png"), photo("9S", STYLES["classic"], random.Random(0)))
    (tmp_path / "VIDEO").write_bytes(b"not a video")
    fixed = {k: (str(tmp_path / v) if k in ("deal", "redeal") else v) for k, v in kw.items()}
    assert run_deal(_args(tmp_path, **fixed)) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("referee calibrate deck: ") and "\n" not in err and says in err


# -- real photos ---------------------------------------------------------------------------------------------

def _real(name: str) -> Path:
    folder = DATA / name
    if not (folder / "labels.csv").exists():
        pytest.skip(f"real photos not found at {folder} (../shared/data beside the repo)")
    return folder


@pytest.mark.parametrize("name, deck, flat", [("crops-piatnik", "24", True), ("photos-aristocrat", "52", False)])
def test_real_deck_one_deal_is_assigned_right_and_rechecked(name: str, deck: str, flat: bool) -> None:
    from calibration.deck_shots import folder_shots

    shots = folder_shots(_real(name))
    cards = deck_cards(deck)
    rng = random.Random(0)
    dealt = [rng.choice([s for s in shots if s.card == c]) for c in cards]
    rng.shuffle(dealt)
    landings = [dl.Landing(s.image, s.name, s.image) if flat else dl.landing(s.image, s.name) for s in dealt]
    ui = Truthful([s.card for s in dealt])
    used = {s.name for s in dealt}
    redeal = [rng.choice([s for s in shots if s.card == c and s.name not in used])
              for c in rng.sample(cards, dl.REDEAL)]
    result = dl.learn_deal(landings, cards, player(ui), redeal)
    assert result.settled.cards == [s.card for s in dealt]
    assert result.check is not None and result.check.wrong == 0, result.lines()


def test_real_scenes_deck_one_deal() -> None:
    _real("scenes-bicycle")
    from bench.bench_deal_learn import one_run, scene_deck, Cache

    per_card, whole = scene_deck(DATA / "scenes-bicycle")
    numbers = one_run(deck_cards("54"), per_card, whole[:60], 0, Cache())
    assert numbers["wrong_end"] == 0 and numbers["wrong"] == 0, numbers

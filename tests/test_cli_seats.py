"""Seats on the command line are numbered from 1, as the referee speaks them: `referee simulate`'s lines and
`referee fix --hand SEAT`; the JSON (scenario files, --json, the dashboard API) keeps 0-based indexes."""
from __future__ import annotations

import json
import re

import pytest

from referee.cli import build_parser, main
from tabletop.fix_cmd import operator_request


def test_simulate_names_the_winners_seat_from_one(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--game", "irish-snap", "--players", "3", "--seed", "2"]
    assert main(args) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert main([*args, "--json"]) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[0])
    shown = re.search(r"winner (none|seat \d+)(?:, loser seat (\d+))?", line)
    assert shown is not None and result["loser"] is not None, line      # Irish Snap: the last with cards loses
    assert shown[1] == ("none" if result["winner"] is None else f"seat {result['winner'] + 1}")
    assert shown[2] is not None and int(shown[2]) == result["loser"] + 1


def test_fix_hand_takes_the_seat_counted_from_one() -> None:
    args = build_parser().parse_args(["fix", "--config", "table.toml", "--hand", "1", "17"])
    assert operator_request(args) == ("set_hand", {"seat": 0, "cards": 17})
    args = build_parser().parse_args(["fix", "--config", "table.toml", "--hand", "3", "0"])
    assert operator_request(args) == ("set_hand", {"seat": 2, "cards": 0})


@pytest.mark.parametrize("seat, cards, words", [("0", "5", "counted from 1"), ("two", "5", "counted from 1"),
                                                ("2", "-1", "0 or more")])
def test_fix_hand_refuses_a_seat_or_count_no_one_would_mean(seat: str, cards: str, words: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fix", "--config", "no-such-table.toml", "--hand", seat, cards]) == 2
    err = capsys.readouterr().err
    assert words in err and "no-such-table" not in err        # refused before the config is read


def test_fix_help_says_seats_count_from_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["fix", "--help"])
    assert "counted from 1" in capsys.readouterr().out

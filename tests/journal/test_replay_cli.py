"""`replay --from-journal`, `disputes` and `review`: re-judging, listing, and the evidence sheet.

The commands are exercised through a local argparse parser built from journal_cmds' add_parser
functions (the lead wires them into referee/cli.py), in-process and, for the error paths, in a
child process to prove one stderr line and exit 2 without a traceback."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.commands import journal as journal_cmds
from referee.core.cards import Card
from referee.core.events import MS, Play, Slap
from referee.journal import Journal, Recorder
from tests.conftest import ROOT

CLI = ("import sys, argparse; from referee.commands import journal as j;"
       "p = argparse.ArgumentParser(prog='referee'); s = p.add_subparsers(); j.add_parser(s);"
       "r = s.add_parser('replay'); j.add_replay_journal_arguments(r); r.set_defaults(run=j.run_replay_journal);"
       "a = p.parse_args(sys.argv[1:]); sys.exit(a.run(a))")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="referee")
    sub = p.add_subparsers()
    journal_cmds.add_parser(sub)
    replay = sub.add_parser("replay")
    journal_cmds.add_replay_journal_arguments(replay)
    replay.set_defaults(run=journal_cmds.run_replay_journal)
    return p


def run(*argv: str) -> int:
    args = parser().parse_args(list(argv))
    return int(args.run(args))


def dead_heat_game(path: Path) -> tuple[int, int]:
    """tests/scenarios/slapjack/dead-heat-turn-order.json, journaled: (game, wins_pile ruling id)."""
    hands = [[Card.parse(c) for c in h] for h in (["5C", "6C"], ["JH", "7H", "10H"], ["3D", "8D"], ["4S", "9S"])]
    with Journal(path) as journal:
        rec = Recorder.start(journal, "slapjack", 4, hands=hands, names=["Ann", "Bo", "Cy", "Di"])
        for event in (Play(1000 * MS), Slap(0, 1300 * MS), Slap(2, 1300 * MS), Slap(3, 1450 * MS),
                      Play(3000 * MS), Play(4000 * MS)):
            rec.submit(event, "camera" if isinstance(event, Play) else "pads", event.t_ns + MS)
        rec.finish()
        win = next(r for r in journal.rulings(rec.game_no) if r.ruling.kind == "wins_pile")
        assert win.ruling.seat == 2 and win.ruling.get("tie") is True
        return rec.game_no, win.id


def test_replay_with_the_same_options_finds_no_difference(recorded: tuple[Path, int]) -> None:
    path, game = recorded
    result = journal_cmds.replay_from_journal(str(path), game)
    assert result["differ"] == [] and len(result["same"]) > 20


def test_replay_with_a_changed_tie_policy_finds_the_dead_heat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    game, win_id = dead_heat_game(path)
    assert journal_cmds.replay_from_journal(str(path), game)["differ"] == []
    result = journal_cmds.replay_from_journal(str(path), game, {"tie": "replay"})
    recorded, rejudged = result["differ"][0]
    assert recorded is not None and recorded["id"] == win_id and recorded["kind"] == "wins_pile"
    assert rejudged is not None and rejudged["kind"] == "slap_again" and rejudged["seats"] == [0, 2]
    assert any(new and new["kind"] == "wins_pile" and new["seat"] == 3 for _old, new in result["differ"])

    assert run("replay", "--from-journal", str(game), "--journal", str(path), "--option", "tie=replay") == 1
    out = json.loads(capsys.readouterr().out)
    assert out["options"] == {"tie": "replay"} and out["differ"][0]["rejudged"]["kind"] == "slap_again"
    assert run("replay", "--from-journal", str(game), "--journal", str(path)) == 0
    assert json.loads(capsys.readouterr().out)["differ"] == []
    assert run("replay", "--from-journal", str(game), "--journal", str(path), "--option", "tie=coin") == 2
    assert "tie" in capsys.readouterr().err


def test_disputes_lists_games_and_rulings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    game, win_id = dead_heat_game(path)
    assert run("disputes", "--journal", str(path)) == 0
    listing = capsys.readouterr().out
    assert "slapjack" in listing and "ended" in listing
    assert run("disputes", str(game), "--journal", str(path)) == 0
    text = capsys.readouterr().out
    line = next(l for l in text.splitlines() if "takes the pile" in l)
    assert line.startswith(">") and str(win_id) in line and "Cy" in line and " 0 us" in line
    assert run("disputes", str(game), "--journal", str(path), "--json") == 0
    rows = json.loads(capsys.readouterr().out)
    win = next(r for r in rows if r["id"] == win_id)
    assert win["slap_decision"] and win["margin_us"] == 0 and win["seat"] == 2
    assert all(r["kind"] != "ignored" for r in rows)


def test_review_draws_a_sheet_with_and_without_a_frame(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    game, win_id = dead_heat_game(path)
    bare = tmp_path / "bare.png"
    assert run("review", str(game), str(win_id), "--out", str(bare), "--journal", str(path)) == 0
    frame = np.full((480, 640, 3), 30, np.uint8)
    cv2.rectangle(frame, (250, 150), (390, 340), (255, 255, 255), -1)
    with Journal(path) as journal:
        journal.record_evidence(win_id, "card_frame", 1000 * MS, cv2.imencode(".jpg", frame)[1].tobytes())
        journal.record_evidence(win_id, "slap_frame", 1300 * MS, cv2.imencode(".jpg", frame)[1].tobytes())
    sheet = tmp_path / "sheet.png"
    assert run("review", str(game), str(win_id), "--out", str(sheet), "--journal", str(path)) == 0
    assert sheet.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for png in (bare, sheet):
        image = cv2.imread(str(png))
        assert image is not None and 600 <= image.shape[0] <= 2000 and 800 <= image.shape[1] <= 2500
    assert not np.array_equal(cv2.imread(str(bare)), cv2.imread(str(sheet)))     # the frame is drawn


def test_review_timeline_is_relative_to_the_card(tmp_path: Path) -> None:
    from referee.journal import evidence_sheet as review
    path = tmp_path / "j.db"
    game, win_id = dead_heat_game(path)
    with Journal(path) as journal:
        facts = review.gather(journal, game, win_id)
    assert facts.timeline.card_t_ns == 1000 * MS and facts.margin_us == 0   # a dead heat
    assert [(c.seat, c.rel_us) for c in facts.timeline.contacts] == [(0, 300_000), (2, 300_000), (3, 450_000)]
    assert "Jack on top" in facts.rule


@pytest.mark.parametrize("argv, message", [
    (["disputes", "--journal", "{missing}"], "no journal"),
    (["disputes", "9", "--journal", "{journal}"], "no game 9"),
    (["review", "1", "999", "--out", "{out}", "--journal", "{journal}"], "no ruling 999"),
    (["review", "1", "1", "--out", "{out}", "--journal", "{garbage}"], "not a usable journal"),
    (["replay", "--from-journal", "4", "--journal", "{journal}"], "no game 4"),
])
def test_errors_are_one_line_and_exit_2(tmp_path: Path, argv: list[str], message: str) -> None:
    journal = tmp_path / "j.db"
    dead_heat_game(journal)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"\x00garbage" * 512)
    names = {"journal": journal, "missing": tmp_path / "nope.db", "garbage": garbage, "out": tmp_path / "o.png"}
    done = subprocess.run([sys.executable, "-c", CLI, *(a.format(**names) for a in argv)],
                          capture_output=True, text=True, cwd=ROOT, timeout=30)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.startswith("referee ")

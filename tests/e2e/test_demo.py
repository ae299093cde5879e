"""The kiosk demo: a whole headless game from the command line, and a demo that
keeps its journal bounded while games go by."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from referee.journal import Journal
from tabletop.demo import DemoTable
from tests.conftest import ROOT


def test_headless_demo_plays_a_whole_game_with_a_winner(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "referee", "demo", "--games", "1", "--headless",
                           "--journal", str(tmp_path / "demo.db")],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("=== Game 1 (slapjack):") and "wins" in last, done.stdout[-2000:]
    assert "Traceback" not in done.stderr


def test_demo_journal_keeps_only_the_newest_games(tmp_path: Path) -> None:
    results = []
    demo = DemoTable(games=7, headless=True, vision=False, journal_path=tmp_path / "demo.db", keep_games=3,
                     on_game=lambda n, r: results.append(r))
    assert demo.run() == 0
    assert len(results) == 7 and all(r is not None and r.ended_by == "rules" for r in results)
    with Journal(tmp_path / "demo.db") as journal:
        games = journal.games()
    assert len(games) == 3
    assert [g.game_id for g in games] == [r.game for r in results[-3:]]


def test_demo_voice_stays_bounded_across_games(tmp_path: Path) -> None:
    # one silent announcer serves every game of a kiosk that runs for days: it keeps only the newest lines
    demo = DemoTable(games=3, game="irish-snap", headless=True, vision=False, journal_path=tmp_path / "demo.db")
    said: list[object] = []
    demo.announcer.keep = 20
    original = demo.announcer.say
    demo.announcer.say = lambda u: (said.append(u), original(u))[-1]
    assert demo.run() == 0
    assert len(said) > 2 * 20                      # the games said more than is kept...
    assert demo.announcer.said == said[-20:]       # ...and only the newest lines remain


def test_visitor_seat_is_left_to_the_visitor(tmp_path: Path) -> None:
    demo = DemoTable(games=1, game="irish-snap", headless=True, vision=False, journal_path=tmp_path / "demo.db")
    assert demo.join()["seat"] == 0
    played = []
    demo.on_game = lambda n, r: played.append(demo.table)
    demo.run()
    table = played[0]
    assert table.sim.human_seats == {0}
    # nobody slapped for seat 0: the bots left it to the visitor (who never slapped)
    assert all(seat != 0 for _t, e in table.sim.arrivals for seat in [getattr(e, "seat", None)])


def test_a_real_pad_joins_its_seat_and_slaps(tmp_path: Path) -> None:
    import time

    from hardware.pads_sim import SimPads

    demo = DemoTable(games=1, game="slapjack", headless=True, vision=False, journal_path=tmp_path / "demo.db")
    pads = SimPads(4)
    demo.use_pads(pads)
    pads.slap(2, time.monotonic_ns())
    for _ in range(50):
        if 2 in demo.visitors:
            break
        time.sleep(0.05)
    demo._stop.set()
    pads.close()
    assert demo.visitors[2]["name"] == "Pad 3"
    assert demo._inbox == [("slap", 2)]


def test_high_scores_keep_each_names_best_time_only(tmp_path: Path) -> None:
    from tabletop.demo import HighScores
    scores = HighScores(tmp_path / "demo.db")
    for ms in (300.0, 250.0, 400.0, 260.0):
        scores.add("Ada", "slapjack", ms)
    scores.add("Bob", "irish-snap", 280.0)
    assert scores.best() == [{"name": "Ada", "game": "slapjack", "ms": 250.0},
                             {"name": "Bob", "game": "irish-snap", "ms": 280.0}]
    import sqlite3
    with sqlite3.connect(tmp_path / "demo.db") as db:
        assert db.execute("SELECT count(*) FROM highscores").fetchone()[0] == 2


def test_a_visitors_reaction_times_stay_bounded(tmp_path: Path) -> None:
    # a visitor may slap all day at a kiosk: only their newest times are kept (the last 5 are shown)
    from types import SimpleNamespace
    from tabletop import demo as demo_module
    demo = DemoTable(games=1, game="irish-snap", headless=True, vision=False, journal_path=tmp_path / "demo.db")
    seat = demo.join(name="Ada")["seat"]
    window = SimpleNamespace(decided=False, slaps={}, opened_ns=0)
    demo.table = SimpleNamespace(runtime=SimpleNamespace(game=SimpleNamespace(window=window, game_id="irish-snap")))
    for k in range(demo_module.VISITOR_TIMES + 15):
        demo._reaction(seat, (200 + k) * 1_000_000)
    times = demo.visitors[seat]["times"]
    assert len(times) == demo_module.VISITOR_TIMES and times[-1] == 200 + demo_module.VISITOR_TIMES + 14

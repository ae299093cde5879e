"""The kiosk demo: a bots table built and run like any table (one runtime, game after game), its journal kept
bounded, its visitors ("beat the bots") and the operator's dashboard actions."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from referee.config import GameConfig, TableConfig
from referee.core.events import MS, CardSeen, Slap
from referee.journal import Journal
from tabletop.build import build_table
from tabletop.clock import TableClock
from tabletop.demo import DemoTable, demo_config
from tabletop.kiosk import VISITOR_TIMES, HighScores, Kiosk
from tests.conftest import ROOT


def short_games(seconds: float = 30.0, game: str = "slapjack") -> TableConfig:
    """A base config whose games end on a time limit (a whole game takes minutes of table time)."""
    return TableConfig(game=GameConfig(id=game, options={"time_limit_s": seconds}))


def wait(predicate: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_headless_demo_plays_two_games_through_one_runtime(tmp_path: Path) -> None:
    # no --journal: the demo writes the default journal, which `referee disputes` then reads from any folder
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "referee", "demo", "--games", "2", "--headless", "--no-vision",
                           "--speed", "20"], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    journal_path = tmp_path / "tabletop" / "demo.db"
    assert out.startswith(f"referee demo: journal {journal_path} (read it with `referee disputes`)"), out[:300]
    listed = subprocess.run([sys.executable, "-m", "referee", "disputes"], capture_output=True, text=True,
                            timeout=60, cwd=tmp_path, env=env)
    assert listed.returncode == 0 and f"journal {journal_path}" in listed.stderr, listed.stderr
    assert "slapjack-classic" in listed.stdout and "unfinished" not in listed.stdout, listed.stdout
    assert "=== Game 1 (slapjack):" in out and "=== Game 2 (slapjack-classic):" in out, out[-2000:]
    assert "wins" in out.split("=== Game 1", 1)[1].splitlines()[0]
    assert "Jack!" in out                                    # the rulings are printed as they are made
    assert out.strip().splitlines()[-1].startswith("referee: stopped after 2 game(s)")
    assert "Traceback" not in done.stderr
    with Journal(journal_path) as journal:
        games = journal.games()
        assert [(g.game_id, g.ended) for g in games] == [("slapjack", True), ("slapjack-classic", True)]
        for game in games:                                  # judged blind, from the pads and the camera
            assert {e.source for e in journal.events(game.id)} >= {"pads", "camera"}
            assert all(c is None for hand in game.hands or [] for c in hand)


def test_the_demo_reads_rendered_cards_with_the_real_vision(tmp_path: Path) -> None:
    results: list[Any] = []
    demo = DemoTable(games=1, game="slapjack", speed=3.0, journal_path=tmp_path / "demo.db",
                     base=short_games(45), on_game=lambda n, r: results.append(r))
    assert demo.run() == 0
    assert len(results) == 1 and results[0].cards >= 15, results
    with Journal(tmp_path / "demo.db") as journal:
        (game,) = journal.games()
        seen = [e.event for e in journal.events(game.id) if isinstance(e.event, CardSeen)]
        rulings = journal.rulings(game.id)
    assert len(seen) >= 15 and all(e.confidence > 0.5 for e in seen)
    assert len({str(e.card) for e in seen}) >= 12                     # the cards the bots laid, named by vision
    # rendered cards are read surely: a misread would be a card that cannot be in play ("check the table")
    assert len([r for r in rulings if r.ruling.kind == "check_table"]) <= 1, [r.ruling.say for r in rulings]


def test_demo_journal_keeps_only_the_newest_games(tmp_path: Path) -> None:
    results: list[Any] = []
    demo = DemoTable(games=4, speed=20.0, vision=False, journal_path=tmp_path / "demo.db", keep_games=2,
                     base=short_games(20), on_game=lambda n, r: results.append(r))
    assert demo.run() == 0
    assert [r.game for r in results] == ["slapjack", "slapjack-classic", "irish-snap", "irish-snap-plus"]
    with Journal(tmp_path / "demo.db") as journal:
        games = journal.games()
    assert [g.game_id for g in games] == ["irish-snap", "irish-snap-plus"] and games[-1].id == 4


def bots_table(tmp_path: Path, *, speed: float = 10.0, seconds: float = 20.0, game: str = "irish-snap") -> Any:
    config = demo_config(short_games(seconds, game), vision=False, speed=speed, journal=tmp_path / "demo.db")
    return build_table(config, clock=TableClock(speed))


def test_a_visitors_seat_is_left_to_the_visitor(tmp_path: Path) -> None:
    table = bots_table(tmp_path)
    kiosk = Kiosk(table, tmp_path / "demo.db")
    try:
        assert kiosk.join()["seat"] == 0 and table.bots.visitors == {0}
        table.start()
        assert table.runtime.wait_over(30)
        slaps = [e.event for e in table.journal.events(table.game_no) if e.source == "pads"]
    finally:
        table.close()
    assert slaps and all(e.seat != 0 for e in slaps)        # the bots slapped, never for the visitor


def test_a_visitors_slap_goes_through_the_pads_and_is_timed(tmp_path: Path) -> None:
    # every seat a visitor's, so no bot slaps: Ada slaps a Jack first and takes the pile, Bob slaps it after her
    table = bots_table(tmp_path, speed=3.0, seconds=60, game="slapjack")
    kiosk = Kiosk(table, tmp_path / "demo.db")
    rulings: list[Any] = []
    table.runtime.observers.append(rulings.append)
    try:
        seat = kiosk.join(name="Ada")["seat"]
        other = kiosk.join(name="Bob")["seat"]
        for _ in range(table.runtime.game.n - 2):
            kiosk.join()
        table.start()
        wait(lambda: table.bots.last_trigger_t is not None, 40)     # a Jack lands...
        reply = kiosk.slap(seat)                                     # ...Ada slaps it, then Bob
        kiosk.slap(other)
        assert kiosk.best(5) == []                                   # a slap is not a score until it is judged
        wait(lambda: _won(rulings) is not None, 10)
        won = _won(rulings)
    finally:
        table.close()
    assert len(reply["times"]) == 1 and 0 < reply["times"][0] < 5000
    assert won is not None and won.seat == seat
    ms = (won.evidence["slaps"][seat] - won.evidence["card_t_ns"]) / MS
    assert kiosk.best(5) == [{"name": "Ada", "game": "slapjack", "ms": round(ms, 1)}]   # Bob was too slow
    assert kiosk.extra["highscores"] == kiosk.best(5)


def _won(rulings: list[Any]) -> Any:
    """The first pile won among `rulings`, or None."""
    return next((r for r in list(rulings) if r.kind == "wins_pile"), None)


def test_only_winning_reaction_times_are_high_scores(tmp_path: Path) -> None:
    from referee.core.rulings import Ruling
    bots = SimpleNamespace(visitors=set(), visitor_slap=lambda seat: 250.0)
    runtime = SimpleNamespace(game=SimpleNamespace(n=4, game_id="irish-snap"), observers=[])
    kiosk = Kiosk(SimpleNamespace(bots=bots, runtime=runtime), tmp_path / "demo.db")
    ada, bob = kiosk.join(name="Ada")["seat"], kiosk.join(name="Bob")["seat"]
    assert runtime.observers == [kiosk.on_ruling]
    kiosk.slap(ada)
    assert kiosk.best(5) == []                                      # slapping is not winning

    def ruling(kind: str, seat: int, slaps: dict[int, int]) -> Ruling:
        return Ruling(kind, seat, 0, "", evidence={"card_t_ns": 1000 * MS, "slaps": {s: 1000 * MS + t * MS
                                                                                      for s, t in slaps.items()}})
    for r in (ruling("wins_pile", 3, {3: 200, ada: 240}),           # Ada too slow: a bot took the pile
              ruling("false_slap", ada, {}),                         # a false slap
              Ruling("false_slap", bob, 0, ""),                      # ... with no evidence at all
              ruling("picks_up", 2, {ada: 230, 3: 180, 2: 400}),     # Ada safe, but a bot was faster
              ruling("picks_up", ada, {ada: 500, 3: 180}),           # Ada last: she picks up
              ruling("slap_again", ada, {ada: 100, 3: 100})):        # a dead heat wins nothing
        runtime.observers[0](r)
    assert kiosk.best(5) == [] and kiosk.extra["highscores"] == []
    runtime.observers[0](ruling("wins_pile", bob, {bob: 310, ada: 330}))
    runtime.observers[0](ruling("picks_up", 3, {ada: 290, bob: 300, 3: 600}))   # first where the last picks up
    assert kiosk.best(5) == [{"name": "Ada", "game": "irish-snap", "ms": 290.0},
                             {"name": "Bob", "game": "irish-snap", "ms": 310.0}]
    assert kiosk.extra["highscores"] == kiosk.best(5)


def test_a_real_pad_joins_its_seat_and_slaps(tmp_path: Path) -> None:
    from hardware.pads_sim import SimPads
    table = bots_table(tmp_path)
    kiosk = Kiosk(table, None)
    pads = SimPads(4)
    stop = threading.Event()
    slapped: list[int] = []
    table.bots.visitor_slap = lambda seat: slapped.append(seat)       # what the pad did, at the table's clock
    try:
        kiosk.use_pads(pads, stop)
        pads.slap(2, time.monotonic_ns())
        wait(lambda: slapped == [2], 5)
    finally:
        stop.set()
        pads.close()
        table.close()
    assert kiosk.visitors[2]["name"] == "Pad 3" and table.bots.visitors == {2}


def test_high_scores_keep_each_names_best_time_only(tmp_path: Path) -> None:
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
    times = iter(range(200, 400))
    bots = SimpleNamespace(visitors=set(), visitor_slap=lambda seat: float(next(times)))
    table = SimpleNamespace(bots=bots, runtime=SimpleNamespace(game=SimpleNamespace(n=4, game_id="irish-snap")))
    kiosk = Kiosk(table, tmp_path / "demo.db")
    seat = kiosk.join(name="Ada")["seat"]
    for _ in range(VISITOR_TIMES + 15):
        reply = kiosk.slap(seat)
    assert len(kiosk.visitors[seat]["times"]) == VISITOR_TIMES and reply["times"][-1] == 200 + VISITOR_TIMES + 14


def test_the_operator_changes_the_game_from_the_dashboard(tmp_path: Path) -> None:
    from tabletop.table_loop import RunOptions, run_table
    from tests.web.helpers import http
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = demo_config(short_games(120), vision=False, speed=5.0, journal=tmp_path / "demo.db", port=port,
                         pin="2468")
    opts = RunOptions(command="demo", rotate=True, speed=5.0)
    runner = threading.Thread(target=run_table, args=(config, opts), daemon=True)
    runner.start()
    url = f"http://127.0.0.1:{port}"
    try:
        wait(lambda: _state(url) is not None, 20)
        assert http("POST", url + "/api/operator/pause", {}, {"X-Operator-Pin": "2468"})[0] == 200
        wait(lambda: "operator" in (_state(url) or {}).get("paused", []), 5)
        assert http("POST", url + "/api/operator/change_game", {"game": "slapstick"}, {"X-Operator-Pin": "1"})[0] == 403
        assert http("POST", url + "/api/operator/change_game", {"game": "slapstick"}, {"X-Operator-Pin": "2468"})[0] == 200
        wait(lambda: (_state(url) or {}).get("game") == "slapstick", 20)
        state = _state(url)
        assert state is not None and len(state["players"]) == 3 and state["paused"] == [] and state["game_no"] == 2
        assert http("POST", url + "/api/join", {"seat": 1})[1] == {"seat": 1}
    finally:
        opts.stop.set()
        runner.join(15)
    with Journal(tmp_path / "demo.db") as journal:
        first, second = journal.games()
    assert (first.game_id, first.ended, second.game_id) == ("slapjack", True, "slapstick")


def _state(url: str) -> dict[str, Any] | None:
    from tests.web.helpers import http
    try:
        status, body, _ = http("GET", url + "/api/state")
    except OSError:
        return None
    return body.get("state") if status == 200 else None

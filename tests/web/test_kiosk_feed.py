"""Issue 39 over HTTP and in-process: the stream's items say what and when, frames are served by number with
what vision read on them, headlines name the reason, each game says how to play, the game-over result stays
up in real seconds, and seats are numbered from 1 where a person reads them."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from referee.core.cards import Card
from referee.core.events import CardSeen, CardUnreadable, PileCleared
from referee.table.live import TableFeed
from referee.table.live_words import PICKUP_REASONS, headline, how_to_play
from referee.web import serve
from referee.web.stage import StageTable

from .helpers import BASE, PIN, HandTable, SSEReader, http


def test_every_item_says_what_it_is_where_it_stands_and_its_game(table: HandTable, server) -> None:
    sse = SSEReader(server.url)
    try:
        hello = sse.wait_for(lambda k, d: k == "state")
        table.snap_round()
        ruling = sse.wait_for(lambda k, d: k == "ruling" and d["ruling"]["kind"] == "picks_up")
        table.runtime.new_game(HandTable().session)           # the table starts its next game
        fresh = sse.wait_for(lambda k, d: k == "state" and d["game_seq"] == hello["game_seq"] + 1)
    finally:
        sse.close()
    assert ruling["game_seq"] == hello["game_seq"] and ruling["seq"] > hello["seq"]
    assert ruling["ruling"]["t_us"] and ruling["ruling"]["headline"].startswith("Last to slap: Player 2 picks up")
    assert fresh["recent"] == [] and fresh["seq"] > ruling["seq"] and fresh["state"]["game_seq"] == fresh["game_seq"]


def test_frames_are_served_by_number_with_what_was_read_on_each(table: HandTable, server) -> None:
    seqs = [table.feed.set_frame(f"jpeg{i}".encode(), {"card": "2D", "confidence": 0.9}, BASE + i) for i in range(3)]
    assert seqs == [1, 2, 3] and table.feed.frame_overlay == {"card": "2D", "confidence": 0.9, "seq": 3,
                                                              "t_us": (BASE + 2) // 1000}
    assert http("GET", server.url + "/frame.jpg?seq=2")[1] == b"jpeg1"
    assert http("GET", server.url + "/frame.jpg")[1] == b"jpeg2"            # no number: the newest
    for i in range(3, 12):
        table.feed.set_frame(f"jpeg{i}".encode(), {})
    status, body, _ = http("GET", server.url + "/frame.jpg?seq=2")           # long gone: not another frame
    assert status == 404 and "no longer kept" in body["error"]


class FakeFeed:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def set_frame(self, jpeg: bytes, overlay: dict[str, Any], t_ns: int) -> int:
        self.frames.append(overlay)
        return len(self.frames)


def test_the_label_is_what_vision_read_never_the_games_top_card() -> None:
    from tabletop import dashboard
    pipeline = SimpleNamespace(pending_since=None)
    game = SimpleNamespace(pile=[SimpleNamespace(card=Card.parse("KH"))])        # the referee's top card
    table = SimpleNamespace(pipeline=pipeline, runtime=SimpleNamespace(game=game))
    feed = FakeFeed()
    pub = dashboard.FramePublisher(feed, table)  # type: ignore[arg-type]
    frame = np.zeros((48, 64, 3), np.uint8)

    def shown(events: list[Any], pending: int | None = None) -> dict[str, Any]:
        pipeline.pending_since = pending
        pub._last = 0.0                                       # every frame goes out in this test
        pub.on_read(frame, 1_000_000, events)
        return {k: v for k, v in feed.frames[-1].items() if k not in ("width", "height")}

    assert shown([]) == {}                                    # nothing read yet: no label, whatever the game says
    assert shown([], pending=900_000) == {"reading": True}
    assert shown([CardSeen(Card.parse("QH"), 900_000, 0.97)]) == {
        "card": "QH", "confidence": 0.97, "landed_t_us": 900, "named_t_us": 1000}
    assert shown([])["card"] == "QH"                           # still the card vision named last
    assert shown([CardUnreadable(950_000)]) == {"unreadable": True, "landed_t_us": 950}
    assert shown([PileCleared(990_000)]) == {}
    shown([CardSeen(Card.parse("2C"), 990_000, 0.99)])
    pub.new_game()
    assert shown([]) == {}                                    # a new game: the pipeline forgot the pile
    count = len(feed.frames)
    pub.on_read(frame, 1_000_000, [])                         # nothing changed, too soon: no new frame
    assert len(feed.frames) == count


@pytest.mark.parametrize("reason", sorted(PICKUP_REASONS))
def test_a_pick_up_headline_names_its_reason_before_the_consequence(reason: str) -> None:
    line = headline("picks_up", 3, {"cards": 4, "reason": reason}, ["Ada", "Ben", "Cleo", "Dev"])
    assert line == f"{PICKUP_REASONS[reason]}: Dev picks up 4 cards" or line.startswith(
        f"{PICKUP_REASONS[reason]}: Dev picks up 4 cards, by"), line


def test_headlines_and_how_to_play_lines() -> None:
    assert headline("false_slap", 0, {}) == "False slap by Player 1: nothing to slap on"
    assert headline("wins_pile", 1, {"cards": 5, "margin_us": 2620}) == "First slap: Player 2 wins 5 cards, by 2.6 ms"
    assert headline("game_over", None, {"winner": None, "loser": 2}).endswith("Player 3 is left with cards and loses")
    assert headline("target", None, {"rank": "Q"}, say="All the Jacks are won: now slap Queens!") == \
        "All the Jacks are won: now slap Queens!"
    assert how_to_play("irish-snap", "Ace").startswith("Count: Ace. Slap if the card is an Ace!")
    assert "Eight" in how_to_play("irish-snap-plus", "Eight") and "flinch" in how_to_play("irish-snap-plus", "Eight")
    assert how_to_play("slapjack-all-faces", None, "Q").startswith("Slap when a Queen lands")
    assert "Jack" in how_to_play("slapjack") and "chicken" in how_to_play("slapstick")


def test_the_state_says_how_to_play_now_and_whether_operator_actions_exist(table: HandTable) -> None:
    table.card("5C", BASE)
    table.step(None, BASE + 200 * 1_000_000)
    state = table.feed.snapshot()
    assert state["call"] == "Ace" and state["howto"].startswith("Count: Ace.") and state["operator"] is True
    assert TableFeed(table.runtime, operator_pin="").snapshot()["operator"] is False


def test_seat_errors_count_seats_from_one(table: HandTable, server) -> None:
    status, body, _ = http("POST", server.url + "/api/operator/set_hand", {"seat": 8, "cards": 1},
                           {"X-Operator-Pin": PIN})
    assert status == 400 and "no seat 9 at this table: seats 1 to 3" in body["error"], body


def test_the_result_stays_up_in_real_seconds_before_the_next_game_on_a_dashboard() -> None:
    from tabletop.table_loop import RunOptions, _play

    def fast_clock() -> int:                                  # a table running 1000x real time
        return int(time.monotonic() * 1e12)

    for dashboard, at_least, at_most in ((True, 0.4, 5.0), (False, 0.0, 0.3)):
        over = threading.Event()
        over.set()
        game = SimpleNamespace(now=0, game_id="slapjack", n=2, cards_laid=0, winner=0, loser=None, rulings=[])
        runtime = SimpleNamespace(wait_over=over.wait, game=game, started_ns=0, timed_out=False)
        started: list[float] = []
        opts = RunOptions(games=0, between_s=0.4, dashboard=dashboard)

        def next_game(*_: Any) -> None:
            started.append(time.monotonic())
            opts.stop.set()
        table = SimpleNamespace(runtime=runtime, clock=fast_clock, next_game=next_game, game_no=1,
                                config=None)
        plan = SimpleNamespace(next=lambda: ("slapjack", 1))
        t0 = time.monotonic()
        _play(table, plan, opts)  # type: ignore[arg-type]
        assert started and at_least <= started[0] - t0 <= at_most, (dashboard, started[0] - t0)


def test_a_stage_table_starts_its_next_game_with_no_rulings() -> None:
    stage = StageTable("irish-snap", 3, seed=5)
    stage.play(until=lambda: len(stage.session.rulings) >= 1)
    assert stage.feed.recent
    stage.next_game()
    assert not stage.feed.recent and stage.feed.game_seq == 1 and stage.feed.snapshot()["pile"] == 0
    with serve(stage.feed, port=0):
        pass


def test_a_visitor_is_seated_where_a_player_still_has_cards() -> None:
    from tabletop.kiosk import Kiosk
    game = SimpleNamespace(n=3, game_id="irish-snap", hands=[[], ["5C"], ["2D"]], status=["finished", "in", "in"])
    table = SimpleNamespace(bots=SimpleNamespace(visitors=set()), runtime=SimpleNamespace(game=game))
    kiosk = Kiosk(table, None)
    assert kiosk.join()["seat"] == 1 and kiosk.join()["seat"] == 2
    with pytest.raises(ValueError, match="no seat 4 at this table: seats 1 to 3"):
        kiosk.join(3)


def test_the_state_says_whether_a_press_means_anything() -> None:
    assert HandTable().feed.snapshot()["presses"] is False
    assert StageTable("slapstick", 3, seed=1).feed.snapshot()["presses"] is True


def test_the_review_counts_rulings_alike_names_games_and_favicon_is_no_404(tmp_path: Any) -> None:
    from referee.core.events import Slap
    from referee.journal import Journal
    journal = Journal(tmp_path / "journal.db")
    table = HandTable(journal)
    table.snap_round()
    table.step(Slap(0, BASE + 4000 * 1_000_000), BASE + 4000 * 1_000_000)     # a slap on an empty pile...
    table.step(None, BASE + 6000 * 1_000_000)                                 # ...journaled as 'ignored'
    assert [r.ruling.kind for r in journal.rulings(1)] == ["picks_up", "ignored"]
    srv = serve(table.feed, port=0, journal_path=str(tmp_path / "journal.db")).start()
    try:
        (listed,) = http("GET", srv.url + "/api/review/games")[1]["games"]
        detail = http("GET", srv.url + "/api/review/games/1")[1]
        assert listed["rulings"] == len(detail["rulings"]) and listed["title"] == detail["game"]["title"] == "Irish Snap"
        status, _, headers = http("GET", srv.url + "/favicon.ico")
        assert status == 204 and "max-age" in headers["cache-control"]
    finally:
        srv.stop()
        journal.close()


def test_new_game_deals_the_game_in_play_again_and_change_game_picks_the_next() -> None:
    from tabletop.dashboard import TableControls
    chosen: list[str] = []
    runtime = SimpleNamespace(game=SimpleNamespace(game_id="slapstick"), paused=set(), resume=lambda: None,
                              finish_game=lambda: chosen.append("finished"))
    table = SimpleNamespace(runtime=runtime, bots=None)
    plan = SimpleNamespace(choose=chosen.append)
    controls = TableControls(table, plan)  # type: ignore[arg-type]
    controls.new_game()
    controls.change_game("irish-snap")
    assert chosen == ["slapstick", "finished", "irish-snap", "finished"]


def test_standings_put_the_winner_first_and_count_what_each_game_counts() -> None:
    from referee.table.live_words import standings
    players = [{"seat": s, "name": f"P{s + 1}", "cards": c, "scoring": f} for s, (c, f) in enumerate([(5, 1), (0, 3), (9, 0)])]
    assert [r["seat"] for r in standings("slapjack", players, 2, None)] == [2, 0, 1]
    assert [r["what"] for r in standings("irish-snap", players, None, 2)] == ["0 cards", "5 cards", "9 cards"]
    assert [r["seat"] for r in standings("slapjack-all-faces", players, None, None)] == [1, 0, 2]
    assert standings("slapstick", players, 1, 2, [30, 12, 44])[0] == {"seat": 1, "name": "P2", "what": "12 penalty points"}

"""The table runtime with hand-written fake sources on a controllable clock."""
from __future__ import annotations

import threading

from referee.core.cards import Card
from referee.core.events import MS, CardSeen, Slap
from referee.table.ports import MemoryAnnouncer, Notice, Utterance
from referee.table.runtime import TableRuntime
from referee.core.rulings import Ruling
from referee.core.session import Session
from referee.table.sources import QueueSource


class FakeClock:
    """Monotonic ns that tests move by hand; the runtime's threads read it."""

    def __init__(self, start: int = 10_000 * MS) -> None:
        self.t = start
        self.lock = threading.Lock()

    def __call__(self) -> int:
        with self.lock:
            return self.t

    def move_to(self, t: int) -> None:
        with self.lock:
            self.t = max(self.t, t)


def hands_3() -> list[list[Card]]:
    names = [["2H", "JS", "3D"], ["5C", "9D", "4S"], ["KD", "QS", "8C"]]
    return [[Card.parse(c) for c in h] for h in names]


def runtime_for(game: str, hands: list[list[Card]], clock: FakeClock, **options: object) -> tuple[TableRuntime, QueueSource, MemoryAnnouncer, list[Ruling]]:
    session = Session.create(game, len(hands), hands=hands, options=dict(options), holdback_ns=100 * MS, strict=False)
    source = QueueSource("test")
    announcer = MemoryAnnouncer()
    seen: list[Ruling] = []
    runtime = TableRuntime(session, sources=[source], clock=clock, announcer=announcer,
                           observers=[seen.append], idle_wake_s=0.01)
    return runtime, source, announcer, seen


def wait_for(predicate, clock: FakeClock, until_ns: int) -> None:
    """Move the clock forward in small steps until `predicate()` holds (or fail)."""
    for _ in range(2000):
        if predicate():
            return
        clock.move_to(min(until_ns, clock() + 20 * MS))
        threading.Event().wait(0.002)
    raise AssertionError("runtime did not get there")


def test_slap_arriving_before_its_card_is_judged_against_that_card() -> None:
    clock = FakeClock()
    runtime, source, announcer, seen = runtime_for("slapjack", hands_3(), clock)
    with runtime:
        base = clock()
        # seat 1 lays 5C, seat 2 KD, seat 0 2H, seat 1 9D, seat 2 QS, seat 0 JS (the camera reports it late)
        for i, card in enumerate(["5C", "KD", "2H", "9D", "QS"]):
            source.put(CardSeen(Card.parse(card), base + i * 500 * MS))
        jack_t = base + 5 * 500 * MS
        clock.move_to(jack_t + 300 * MS)
        source.put(Slap(2, jack_t + 250 * MS))            # the slap is reported first...
        source.put(Slap(1, jack_t + 250 * MS + 65_000))
        source.put(CardSeen(Card.parse("JS"), jack_t))     # ...the card 60 ms after it landed
        wait_for(lambda: any(r.kind == "wins_pile" for r in seen), clock, jack_t + 3000 * MS)
    win = next(r for r in seen if r.kind == "wins_pile")
    assert (win.seat, win.get("cards"), win.get("margin_us")) == (2, 6, 65)
    assert not any(r.kind == "false_slap" for r in seen)
    assert any("Player 3 takes the pile" in u.text for u in announcer.said)


def test_lost_camera_pauses_judging_until_it_returns() -> None:
    clock = FakeClock()
    runtime, source, announcer, seen = runtime_for("slapjack", hands_3(), clock)
    with runtime:
        base = clock()
        source.put(CardSeen(Card.parse("5C"), base))
        source.put(Notice("camera_lost", "Camera lost: please pause the game"))
        source.put(Slap(0, base + 400 * MS))              # would be a false slap on 5C
        clock.move_to(base + 5000 * MS)
        threading.Event().wait(0.1)
        assert not any(r.kind == "false_slap" for r in seen)
        source.put(Notice("camera_back", "Camera back"))
        wait_for(lambda: any(r.kind == "false_slap" for r in seen), clock, base + 9000 * MS)
    assert any(u.kind == "alert" and "Camera lost" in u.text for u in announcer.said)
    assert [r.seat for r in seen if r.kind == "pays"] == [0]


def test_impossible_card_says_check_the_table_and_holds() -> None:
    clock = FakeClock()
    runtime, source, announcer, seen = runtime_for("slapjack", hands_3(), clock)
    with runtime:
        base = clock()
        source.put(CardSeen(Card.parse("5C"), base))
        source.put(CardSeen(Card.parse("5C"), base + 500 * MS))   # there is only one 5C in the deck
        wait_for(lambda: any(r.kind == "check_table" for r in seen), clock, base + 3000 * MS)
        assert "operator" in runtime.paused
    assert any("Check the table" in u.text for u in announcer.said)


def test_irish_snap_counts_are_spoken_with_words_unless_silent() -> None:
    hands = [[Card.parse(c) for c in h] for h in (["7H", "9S"], ["2C", "8D"])]
    for silent, expected in ((False, ["One!", "cat!"]), (True, [])):
        clock = FakeClock()
        runtime, source, announcer, _seen = runtime_for("irish-snap-plus", hands, clock,
                                                       silent=silent, words={"2": "cat"})
        with runtime:
            base = clock()
            source.put(CardSeen(Card.parse("9S"), base))  # seat 1 starts... tracked top is 2C: the camera wins
            source.put(CardSeen(Card.parse("7H"), base + 500 * MS))
            wait_for(lambda: runtime.game.cards_laid == 2, clock, base + 2000 * MS)
        assert [u.text for u in announcer.said if u.kind == "count"] == expected


def test_a_margin_that_arrives_after_the_ruling_reaches_live_views() -> None:
    session = Session.create("slapjack", 3, hands=hands_3(), holdback_ns=100 * MS, strict=False)
    amended: list[Ruling] = []
    runtime = TableRuntime(session, amend_observers=[amended.append])
    base = 10_000 * MS
    for i, card in enumerate(["5C", "KD", "2H", "9D", "QS", "JS"]):
        runtime.step(CardSeen(Card.parse(card), base + i * 500 * MS), "camera", base + i * 500 * MS + 1,
                     now_ns=base + i * 500 * MS + 1)
    jack = base + 2500 * MS
    runtime.step(Slap(2, jack + 200 * MS), "pads", jack + 200 * MS, now_ns=jack + 200 * MS)
    runtime.step(None, "", jack + 400 * MS, now_ns=jack + 400 * MS)       # ruled: nobody else yet
    assert [r.kind for r in session.rulings] == ["wins_pile"] and session.rulings[0].get("margin_us") is None
    runtime.step(Slap(1, jack + 450 * MS), "pads", jack + 450 * MS, now_ns=jack + 450 * MS)
    runtime.step(None, "", jack + 700 * MS, now_ns=jack + 700 * MS)
    assert amended and amended[0].get("margin_us") == 250_000


def test_a_bounded_memory_announcer_keeps_only_its_newest_lines() -> None:
    # a silent table (no speaker) runs for days: what it would have said must not grow without end
    bounded, unbounded = MemoryAnnouncer(keep=3), MemoryAnnouncer()
    lines = [Utterance(f"line {i}", "ruling") for i in range(10)]
    for line in lines:
        bounded.say(line)
        unbounded.say(line)
    assert bounded.said == lines[-3:] and unbounded.said == lines



def test_a_time_limit_ends_the_game_with_a_journaled_time_event(tmp_path) -> None:
    # at a table nothing else says "time": the runtime does, and the journal keeps it to re-judge the game
    from referee.journal import Journal, Recorder, resume
    clock = FakeClock()
    journal = Journal(tmp_path / "j.db")
    recorder = Recorder.start(journal, "slapjack", 3, hands=hands_3(), options={"time_limit_s": 2},
                              holdback_ns=100 * MS, strict=False)
    seen: list[Ruling] = []
    runtime = TableRuntime(recorder.session, clock=clock, recorder=recorder, observers=[seen.append],
                           idle_wake_s=0.01)
    with runtime:
        base = clock()
        runtime.submit(CardSeen(Card.parse("5C"), base + 500 * MS), "camera")
        wait_for(lambda: runtime.over.is_set(), clock, base + 3000 * MS)
    assert runtime.timed_out and runtime.game.over
    end = [r for r in seen if r.kind == "game_over"]
    assert end and end[0].say.startswith("Time!") and end[0].t_ns == base + 2000 * MS
    kinds = [(e.source, type(e.event).__name__) for e in journal.events(recorder.game_no)]
    assert ("clock", "TimeUp") in kinds and journal.game(recorder.game_no).ended
    again = resume(journal, recorder.game_no, repair=False)
    assert [r.kind for r in again.rulings] == [r.kind for r in runtime.game.rulings]
    journal.close()


def test_a_new_game_takes_over_the_sources_and_drops_what_belonged_to_the_last() -> None:
    clock = FakeClock()
    runtime, source, _announcer, _seen = runtime_for("slapjack", hands_3(), clock)
    told: list[int] = []
    runtime.game_listeners.append(lambda rt: told.append(rt.game.n))
    with runtime:
        base = clock()
        source.put(CardSeen(Card.parse("5C"), base))
        wait_for(lambda: runtime.game.cards_laid == 1, clock, base + 1000 * MS)
        runtime.paused.add("operator")
        clock.move_to(base + 2000 * MS)
        second = Session.create("irish-snap", 3, hands=hands_3(), holdback_ns=100 * MS, strict=False)
        runtime.new_game(second)
        assert told == [3] and not runtime.over.is_set() and runtime.game is second.game
        assert not runtime.paused                              # the last game's pause went with it
        source.put(Slap(0, base + 1500 * MS))                  # a slap from before the new game began...
        source.put(CardSeen(Card.parse("9D"), base + 2500 * MS))
        wait_for(lambda: second.game.cards_laid == 1, clock, base + 4000 * MS)
    assert not any(r.t_ns < base + 2000 * MS for r in second.game.rulings)   # ...never reached it
    assert second.game.pile[-1].card == Card.parse("9D") and second.game.cards_laid == 1


def test_finish_game_ends_a_game_where_it_stands_in_the_journal(tmp_path) -> None:
    from referee.journal import Journal, Recorder
    journal = Journal(tmp_path / "j.db")
    recorder = Recorder.start(journal, "slapjack", 3, hands=hands_3(), holdback_ns=100 * MS, strict=False)
    runtime = TableRuntime(recorder.session, clock=FakeClock(), recorder=recorder)
    runtime.finish_game()
    assert runtime.over.is_set()
    record = journal.game(recorder.game_no)
    assert record.ended and record.result["hands"] == [3, 3, 3]
    journal.close()


def test_a_sped_up_clock_wakes_the_referee_in_its_own_time() -> None:
    class Fast(FakeClock):
        def real_s(self, ns: int) -> float:
            return ns / 1e9 / 10

    clock = Fast()
    runtime, source, _announcer, _seen = runtime_for("slapjack", hands_3(), clock, time_limit_s=1)
    runtime.idle_wake_s = 5.0
    assert abs(runtime._sleep_s() - 0.1) < 0.01        # 1 table second is a tenth of a real one

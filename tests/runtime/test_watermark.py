"""Slaps wait for a card only while the camera says one is landing (its watermarks), never longer than the
configured hold-back, and the journal keeps the referee's clock so a replay judges the same."""
from __future__ import annotations

from pathlib import Path

from referee.core.cards import Card
from referee.core.events import MS, CardSeen, Slap
from referee.journal import Journal, Recorder
from referee.commands.journal import replay_from_journal
from referee.table.ports import Watermark
from referee.table.runtime import TableRuntime
from referee.core.session import Session

HOLDBACK = 300 * MS      # the camera's worst latency: the bound
QUICK = 50 * MS          # the pads' delivery bound, once the camera vouches


def hands() -> list[list[Card]]:
    return [[Card.parse(c) for c in h] for h in (["2H", "JS", "3D"], ["5C", "9D", "4S"])]


def table(recorder: Recorder | None = None) -> TableRuntime:
    session = recorder.session if recorder is not None else Session.create(
        "slapjack", 2, hands=hands(), holdback_ns=HOLDBACK, strict=False)
    return TableRuntime(session, clock=lambda: 0, recorder=recorder, quick_holdback_ns=QUICK)


def won(runtime: TableRuntime) -> list[int | None]:
    return [r.seat for r in runtime.game.rulings if r.kind == "wins_pile"]


def jack_slapped_by_seat_1(rt: TableRuntime) -> None:
    """Three cards, the third a Jack; seat 1 slaps it 300 ms later while the camera vouches for every frame."""
    rt.step(CardSeen(Card.parse("2H"), 1000 * MS), "camera", 1060 * MS, now_ns=1060 * MS)
    rt.step(CardSeen(Card.parse("5C"), 1600 * MS), "camera", 1660 * MS, now_ns=1660 * MS)
    rt.step(CardSeen(Card.parse("JS"), 2200 * MS), "camera", 2260 * MS, now_ns=2260 * MS)
    rt.step(Watermark(2500 * MS), "camera", 2510 * MS, now_ns=2510 * MS)
    rt.step(Slap(1, 2500 * MS), "pads", 2501 * MS, now_ns=2501 * MS)
    rt.step(Watermark(2560 * MS), "camera", 2561 * MS, now_ns=2561 * MS)


def test_with_the_camera_vouching_a_slap_is_judged_after_the_quick_hold_back() -> None:
    rt = table()
    jack_slapped_by_seat_1(rt)
    assert won(rt) == [1]                     # ~60 ms after the slap, not 300


def test_while_a_landing_is_being_read_slaps_wait_for_it() -> None:
    rt = table()
    rt.step(CardSeen(Card.parse("2H"), 1000 * MS), "camera", 1060 * MS, now_ns=1060 * MS)
    rt.step(CardSeen(Card.parse("5C"), 1600 * MS), "camera", 1660 * MS, now_ns=1660 * MS)
    rt.step(Watermark(2199 * MS), "camera", 2210 * MS, now_ns=2210 * MS)   # a landing since 2200 ms
    rt.step(Slap(0, 2400 * MS), "pads", 2401 * MS, now_ns=2401 * MS)        # a slap on the card landing
    rt.step(Watermark(2199 * MS), "camera", 2470 * MS, now_ns=2470 * MS)   # still reading it
    assert not [r for r in rt.game.rulings if r.kind in ("false_slap", "wins_pile")]
    rt.step(CardSeen(Card.parse("JS"), 2200 * MS), "camera", 2480 * MS, now_ns=2480 * MS)
    rt.step(Watermark(2480 * MS), "camera", 2481 * MS, now_ns=2481 * MS)
    rt.step(None, "", 2520 * MS, now_ns=2520 * MS)
    assert won(rt) == [0]                     # judged against the Jack, not as a false slap on the 5C


def test_a_camera_that_falls_behind_holds_nothing_past_the_configured_hold_back() -> None:
    rt = table()
    rt.step(CardSeen(Card.parse("2H"), 1000 * MS), "camera", 1060 * MS, now_ns=1060 * MS)
    rt.step(Watermark(1100 * MS), "camera", 1110 * MS, now_ns=1110 * MS)   # and then it says nothing more
    rt.step(Slap(0, 1500 * MS), "pads", 1501 * MS, now_ns=1501 * MS)
    rt.step(None, "", 1790 * MS, now_ns=1790 * MS)
    assert not [r for r in rt.game.rulings if r.kind == "false_slap"]
    rt.step(None, "", 1801 * MS, now_ns=1801 * MS)
    assert [r.seat for r in rt.game.rulings if r.kind == "false_slap"] == [0]


def test_the_journal_keeps_the_referees_clock_so_a_replay_judges_the_same(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")
    recorder = Recorder.start(journal, "slapjack", 2, hands=hands(), holdback_ns=HOLDBACK, strict=False)
    rt = table(recorder)
    jack_slapped_by_seat_1(rt)
    rt.step(Slap(0, 2540 * MS), "pads", 2700 * MS, now_ns=2700 * MS)     # arrives after the ruling: late
    assert ("wins_pile", 1) in [(r.kind, r.seat) for r in rt.game.rulings]
    journal.close()
    replayed = replay_from_journal(str(tmp_path / "j.db"), recorder.game_no)
    assert replayed["differ"] == [] and len(replayed["same"]) == len(rt.game.rulings)

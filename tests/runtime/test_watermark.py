"""Slaps wait for a card only while the camera says one is landing (its watermarks), never longer than the
configured hold-back, or until a camera behind the table has read past them; the journal keeps the referee's
clock so a replay judges the same."""
from __future__ import annotations

from pathlib import Path

from referee.core.cards import Card
from referee.core.events import MS, CardSeen, Slap
from referee.journal import Journal, Recorder
from referee.commands.journal import replay_from_journal
from referee.table.ports import Watermark
from referee.table.runtime import CAMERA_BEHIND_LIMIT_NS, TableRuntime
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


def test_a_camera_that_stops_reading_holds_a_slap_no_longer_than_its_limit() -> None:
    rt = table()
    rt.step(CardSeen(Card.parse("2H"), 1000 * MS), "camera", 1060 * MS, now_ns=1060 * MS)
    rt.step(Watermark(1100 * MS, looked_ns=1100 * MS), "camera", 1110 * MS, now_ns=1110 * MS)  # then nothing
    rt.step(Slap(0, 1500 * MS), "pads", 1501 * MS, now_ns=1501 * MS)
    limit = 1500 * MS + CAMERA_BEHIND_LIMIT_NS
    rt.step(None, "", limit - MS, now_ns=limit - MS)
    assert not [r for r in rt.game.rulings if r.kind == "false_slap"]
    rt.step(None, "", limit + MS, now_ns=limit + MS)
    assert [r.seat for r in rt.game.rulings if r.kind == "false_slap"] == [0]


def test_a_camera_without_frame_stamps_holds_nothing_past_the_configured_hold_back() -> None:
    rt = table()
    rt.step(CardSeen(Card.parse("2H"), 1000 * MS), "camera", 1060 * MS, now_ns=1060 * MS)
    rt.step(Watermark(1100 * MS), "camera", 1110 * MS, now_ns=1110 * MS)   # and then it says nothing more
    rt.step(Slap(0, 1500 * MS), "pads", 1501 * MS, now_ns=1501 * MS)
    rt.step(None, "", 1790 * MS, now_ns=1790 * MS)
    assert not [r for r in rt.game.rulings if r.kind == "false_slap"]
    rt.step(None, "", 1801 * MS, now_ns=1801 * MS)
    assert [r.seat for r in rt.game.rulings if r.kind == "false_slap"] == [0]


def test_a_slap_waits_for_a_camera_behind_the_table_to_read_past_it() -> None:
    """The CPU is busy: the camera reads each frame 600 ms late. A Jack landed 200 ms before the slap is
    reported long after the hold-back; the slap is judged against it, not as a false slap on the 5C."""
    rt = table()
    rt.step(CardSeen(Card.parse("2H"), 1000 * MS), "camera", 1600 * MS, now_ns=1600 * MS)
    rt.step(CardSeen(Card.parse("5C"), 1600 * MS), "camera", 2200 * MS, now_ns=2200 * MS)
    rt.step(Slap(1, 2400 * MS), "pads", 2401 * MS, now_ns=2401 * MS)
    for read in range(2100, 2700, 33):                  # frames read 600 ms after they were taken;
        landing = min(read, 2199)                          # the Jack's landing is read from 2200 on
        rt.step(Watermark(landing * MS, looked_ns=read * MS), "camera", (read + 600) * MS, now_ns=(read + 600) * MS)
        assert not [r for r in rt.game.rulings if r.kind in ("false_slap", "wins_pile")]
    rt.step(CardSeen(Card.parse("JS"), 2200 * MS), "camera", 3300 * MS, now_ns=3300 * MS)
    rt.step(Watermark(2710 * MS, looked_ns=2710 * MS), "camera", 3310 * MS, now_ns=3310 * MS)
    rt.step(None, "", 3370 * MS, now_ns=3370 * MS)
    assert won(rt) == [1]


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

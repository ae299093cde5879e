"""Resume: a game rebuilt from the journal is the game that was played, even after SIGKILL."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.core.events import Event
from referee.journal import Journal, Recorder, ResumeMismatch, Tick, resume, ruling_key
from referee.core.session import Session
from tests.conftest import ROOT
from tests.journal.conftest import play
from tests.journal.feed import GAME, HOLDBACK_NS, PLAYERS, SEED, stream


def state(session: Session) -> dict[str, object]:
    game = session.game
    return {"final": game.final(), "hands": [[str(c) for c in h] for h in game.hands],
            "pile": [(str(p.card), p.seat, p.t_ns) for p in game.pile], "turn": game.turn, "now": game.now,
            "held": len(session.arbiter)}


def fresh_through(events: int, ticks_after: list[int]) -> Session:
    """A new Session fed the feed stream straight (not through the journal) up to its `events`-th event."""
    session = Session.create(GAME, PLAYERS, seed=SEED, holdback_ns=HOLDBACK_NS, strict=False)
    seen = 0
    for step in stream():
        if seen == events:
            break
        if step.event is None:
            session.advance(step.arrival_ns)
        else:
            session.submit(step.event, now_ns=step.arrival_ns)
            seen += 1
    for t in ticks_after:
        session.advance(t)
    return session


def test_resume_of_a_whole_game_gives_the_same_state_and_rulings(journal: Journal) -> None:
    rec = play(journal, finish=False)
    again = resume(journal, rec.game_no)
    assert state(again) == state(rec.session)
    assert [ruling_key(r) for r in again.rulings] == [ruling_key(r.ruling) for r in journal.rulings(rec.game_no)]


def test_sigkill_mid_game_loses_nothing_committed(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, str(ROOT / "tests/journal/child_game.py"), str(path), "150", "0.01"],
                             stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    assert child.stdout is not None
    progress: list[tuple[int, int]] = []
    ready_at = None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        line = child.stdout.readline()
        assert line, "the child ended before it was killed"
        if line.strip() == "ready":
            ready_at = len(progress)
            continue
        progress.append(tuple(int(x) for x in line.split()))  # type: ignore[arg-type]
        if ready_at is not None and len(progress) >= ready_at + 8:
            break
    os.kill(child.pid, signal.SIGKILL)
    rest = child.stdout.read()        # everything printed before the kill was committed before printing
    child.wait(5)
    assert child.returncode == -signal.SIGKILL
    assert "finished" not in rest
    progress += [tuple(int(x) for x in line.split()) for line in rest.splitlines() if line.strip()]  # type: ignore[misc]
    last_event, rulings_done = progress[-1]

    with Journal(path) as journal:
        (game,) = journal.games()
        assert not game.ended
        records = journal.events(game.id)
        assert max(r.id for r in records) >= last_event                   # no committed event lost
        assert len(journal.rulings(game.id)) >= rulings_done              # no committed ruling lost
        recorded = [r.event for r in records if not isinstance(r.event, Tick)]
        sent: list[Event] = [s.event for s in stream() if s.event is not None][:len(recorded)]
        assert recorded == sent                                           # a prefix, in arrival order, intact
        trailing = []
        for r in reversed(records):
            if not isinstance(r.event, Tick):
                break
            trailing.insert(0, r.event.t_ns)

        resumed = Recorder.resume(journal, game.id)
        fresh = fresh_through(len(recorded), trailing)
        assert state(resumed.session) == state(fresh)
        keys = [ruling_key(r) for r in fresh.rulings]
        assert [ruling_key(r.ruling) for r in journal.rulings(game.id)] == keys   # repaired if cut off
        assert [ruling_key(r) for r in resumed.session.rulings] == keys
        assert not fresh.game.over

        # and the resumed game carries on recording
        more = [s for s in stream() if s.event is not None][len(recorded)]
        assert more.event is not None
        resumed.submit(more.event, more.source, more.arrival_ns)
        assert journal.events(game.id)[-1].event == more.event


def test_resume_repairs_rulings_a_crash_cut_off(journal: Journal) -> None:
    rec = play(journal, finish=False)
    rows = journal.rulings(rec.game_no)
    journal._write("DELETE FROM rulings WHERE id > ?", (rows[-5].id,))         # event committed, rulings not
    amended = next(r for r in rows if r.amended)
    un = amended.ruling.fields | {"margin_us": None}
    journal._write("UPDATE rulings SET fields = json(?) WHERE id = ?", (json.dumps(un), amended.id))
    resume(journal, rec.game_no)
    assert [ruling_key(r.ruling) for r in journal.rulings(rec.game_no)] == [ruling_key(r) for r in rec.session.rulings]


def test_resume_reports_rulings_that_do_not_come_out_again(journal: Journal) -> None:
    rec = play(journal, finish=False)
    victim = next(r for r in journal.rulings(rec.game_no) if r.ruling.kind == "false_slap")
    journal._write("UPDATE rulings SET seat = ? WHERE id = ?", ((victim.ruling.seat + 1) % PLAYERS, victim.id))
    with pytest.raises(ResumeMismatch) as caught:
        resume(journal, rec.game_no)
    (recorded, rejudged), = caught.value.differences
    assert recorded is not None and recorded["id"] == victim.id and rejudged == victim.ruling.to_json()


def test_held_and_noted_events_come_back_the_way_they_went_in(journal: Journal) -> None:
    from referee.core.events import MS, CardUnreadable, Play, Slap
    rec = Recorder.start(journal, "slapjack", 2, seed=3, holdback_ns=100 * MS, strict=False)
    rec.submit(Play(1000 * MS), "camera", 1050 * MS)
    rec.note(CardUnreadable(5000 * MS, 0.2), "camera", 5050 * MS)      # must not move the game's clock
    rec.hold(Slap(0, 1200 * MS), "pads", 1300 * MS)                     # paused: pushed, judged later
    rec.advance(2000 * MS)
    again = resume(journal, rec.game_no)
    assert [r.fed for r in journal.events(rec.game_no)][:3] == ["submit", "note", "hold"]
    assert state(again) == state(rec.session)
    assert [ruling_key(r) for r in again.rulings] == [ruling_key(r) for r in rec.session.rulings]

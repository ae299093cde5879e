"""The journal's tables round-trip; the database is durable (WAL, synchronous=FULL) and versioned."""
from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.cards import Card
from referee.core.events import MS, CardSeen, CardUnreadable, Flinch, PileCleared, Play, Press, Slap, TimeUp
from referee.journal import (SCHEMA_VERSION, Finish, Journal, JournalError, Tick, UnknownRecord, normal_fields,
                             ruling_key)
from referee.core.rulings import Ruling
from tests.conftest import ROOT
from tests.journal.conftest import play

ALL_EVENTS = [CardSeen(Card.parse("JH"), 1 * MS, 0.75, 2), CardSeen(Card.parse("joker"), 2 * MS), Play(3 * MS),
              Play(4 * MS, 1), Slap(0, 5 * MS + 1), Flinch(1, 6 * MS), Press(2, 7 * MS), TimeUp(8 * MS),
              PileCleared(9 * MS), CardUnreadable(10 * MS, 0.3), Tick(11 * MS), Finish(12 * MS)]


def test_round_trip_of_games_events_rulings_evidence(journal: Journal) -> None:
    hands = [[Card.parse("JH"), None], [Card.parse("10S")], [], []]
    game = journal.start_game("slapjack", 4, seed=5, dealer=1, options={"tie": "replay", "tie_us": [1, 2]},
                              names=["Ann", "Bo", "Cy", "Di"], hands=hands, config="[game]\nid = 'slapjack'\n",
                              holdback_ns=120 * MS, strict=False, started_ns=42)
    ids = [journal.record_event(game, e, "camera" if i % 2 else "pads", 100 + i) for i, e in enumerate(ALL_EVENTS)]
    back = journal.events(game)
    assert [r.event for r in back] == ALL_EVENTS
    assert [r.id for r in back] == ids and [r.seq for r in back] == list(range(len(ALL_EVENTS)))
    assert [r.arrival_ns for r in back] == [100 + i for i in range(len(ALL_EVENTS))]
    assert back[1].source == "camera"

    ruling = Ruling("wins_pile", 2, 5 * MS, "Jack! Cy takes the pile", {"cards": 3, "margin_us": None, "tie": False})
    rid = journal.record_ruling(game, ruling, [ids[4], ids[0], ids[4]])
    other = journal.record_ruling(game, Ruling("game_over", None, 12 * MS, "Done", {"scores": (1, 2)}))
    ruling.fields["margin_us"] = 65
    ruling.say += ", by 65 microseconds"
    journal.update_ruling(rid, ruling)
    rulings = journal.rulings(game)
    assert [r.id for r in rulings] == [rid, other] and [r.seq for r in rulings] == [0, 1]
    assert ruling_key(rulings[0].ruling) == ruling_key(ruling) and rulings[0].amended == 1
    assert rulings[0].event_ids == sorted({ids[4], ids[0]})
    assert rulings[1].ruling.fields == normal_fields({"scores": (1, 2)}) == {"scores": [1, 2]}

    jpeg = b"\xff\xd8fake jpeg\x00\xff\xd9"
    journal.record_evidence(rid, "card_frame", 1 * MS, jpeg)
    journal.record_evidence(rid, "slap_frame", 5 * MS, jpeg[::-1])
    assert [(e.kind, e.t_ns, e.jpeg) for e in journal.evidence(rid)] == [
        ("card_frame", 1 * MS, jpeg), ("slap_frame", 5 * MS, jpeg[::-1])]

    journal.end_game(game, {"winner": 2, "hands": [0, 0, 52, 0]})
    g = journal.game(game)
    assert (g.game_id, g.players, g.dealer, g.seed, g.started_ns) == ("slapjack", 4, 1, 5, 42)
    assert g.options == {"tie": "replay", "tie_us": [1, 2]} and g.names == ["Ann", "Bo", "Cy", "Di"]
    assert g.hands == [["JH", None], ["10S"], [], []] and g.setup()["hands"][0] == [Card("J", "H"), None]
    assert g.config == "[game]\nid = 'slapjack'\n" and g.holdback_ns == 120 * MS and g.strict is False
    assert g.ended and g.result == {"winner": 2, "hands": [0, 0, 52, 0]} and g.started_at
    assert [x.id for x in journal.games()] == [game]
    assert "journal.db" in repr(journal)


def test_unknown_numbers_are_lookup_errors(journal: Journal) -> None:
    game = journal.start_game("slapjack", 2)
    with pytest.raises(UnknownRecord):
        journal.game(game + 1)
    with pytest.raises(UnknownRecord):
        journal.record_event(game + 1, Slap(0, 1), "pads", 1)
    with pytest.raises(UnknownRecord):
        journal.record_evidence(999, "card_frame", 1, b"x")
    with pytest.raises(UnknownRecord):
        journal.update_ruling(999, Ruling("out", 0, 1))
    with pytest.raises(LookupError):
        journal.ruling(999)


def test_wal_mode_synchronous_full_and_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal(path) as j:
        assert j.pragma("journal_mode") == "wal"
        assert j.pragma("synchronous") == 2          # FULL
        assert j.pragma("user_version") == SCHEMA_VERSION
        assert j.pragma("foreign_keys") == 1
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"   # persistent, in the file
        assert {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} >= {
            "games", "events", "rulings", "evidence"}
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        raw.commit()
    finally:
        raw.close()
    with pytest.raises(JournalError, match="schema"):
        Journal(path)


def test_refuses_missing_garbage_and_foreign_files(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="no journal"):
        Journal(tmp_path / "absent.db", create=False)
    assert not (tmp_path / "absent.db").exists()
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database at all\n" * 200)
    with pytest.raises(JournalError, match="not a usable journal"):
        Journal(garbage)
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="not a referee journal"):
        Journal(other)


def test_prune_keeps_the_newest_games(journal: Journal) -> None:
    games = [journal.start_game("slapjack", 2, seed=i) for i in range(5)]
    for g in games:
        e = journal.record_event(g, Slap(0, 1), "pads", 1)
        r = journal.record_ruling(g, Ruling("ignored", 0, 1, fields={"reason": "empty_pile"}), [e])
        journal.record_evidence(r, "slap_frame", 1, b"x" * 1000)
    assert journal.prune(2) == 3
    assert [g.id for g in journal.games()] == games[-2:]
    with pytest.raises(UnknownRecord):
        journal.events(games[0])
    assert journal._read("SELECT count(*) FROM evidence")[0][0] == 2     # cascaded
    assert journal._read("SELECT count(*) FROM events")[0][0] == 2


def test_keep_games_prunes_on_start(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.db", keep_games=3) as j:
        made = [j.start_game("slapjack", 2) for _ in range(6)]
        assert [g.id for g in j.games()] == made[-3:]


def test_recorder_journals_every_ruling_and_the_late_margin(journal: Journal) -> None:
    rec = play(journal)
    rows = journal.rulings(rec.game_no)
    assert [ruling_key(r.ruling) for r in rows] == [ruling_key(r) for r in rec.session.rulings]
    amended = [r for r in rows if r.amended]
    assert amended and all(r.ruling.kind == "wins_pile" and r.ruling.get("margin_us") is not None for r in amended)
    assert all(r.event_ids for r in rows if r.ruling.kind in ("wins_pile", "false_slap"))
    kinds = [type(e.event) for e in journal.events(rec.game_no)]
    assert Tick in kinds and kinds[-1] is Finish
    game = journal.game(rec.game_no)
    assert game.ended and game.result == rec.session.game.final() and game.config.startswith("[game]")


def test_importing_the_journal_pulls_in_no_opencv() -> None:
    code = ("import sys, referee.journal, referee.commands.journal;"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('cv2', 'numpy')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "[]"


def test_the_judging_thread_may_write_a_journal_opened_elsewhere(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`referee run` opens the journal on the main thread and judges on another."""
    import threading

    from referee.core.events import Slap
    from referee.journal import Journal

    journal = Journal(tmp_path / "j.db")
    game = journal.start_game("slapjack", 2)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            for i in range(50):
                journal.record_event(game, Slap(0, i), "pads", i)
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(journal.events(game)) == 150
    journal.close()

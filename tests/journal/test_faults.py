"""Faults at the journal: a full disk (before and during a game), a read-only journal, damaged files.

The contract: bad input is one line and changes nothing; a fault at the table
is a JournalWriteError the runtime announces ("check the table"), with nothing
judged that cannot be recorded and nothing committed lost.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from referee.journal import (Finish, Journal, JournalDamaged, JournalError, JournalWriteError, Recorder, Tick,
                             integrity_report)
from referee.cli import main
from referee.commands.journal import replay_from_journal
from tests.conftest import ROOT
from tests.journal.conftest import play
from tests.journal.feed import stream

ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def cli(*argv: str, real: bool = False) -> subprocess.CompletedProcess[str]:
    """`referee ARGV...`: in this process (fast), or with `real` in a child process of its own."""
    if real:
        return subprocess.run([sys.executable, "-m", "referee", *argv], capture_output=True, text=True, cwd=ROOT,
                              env=ENV, timeout=60)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return subprocess.CompletedProcess(list(argv), code, out.getvalue(), err.getvalue())


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


# ---- a full disk -----------------------------------------------------------------------------------
def test_no_room_before_a_game_is_refused_as_disk_full(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tests/journal/fault_child.py"), str(tmp_path / "j.db"),
                           "preflight"], capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    reason, line = done.stdout.strip().split("|")
    assert reason == "disk full" and "disk I/O error" not in line and "MB left" in line
    with Journal(tmp_path / "j.db") as journal:
        assert journal.games() == []                         # no game row for a game that could not be kept


def test_a_disk_filling_mid_game_pauses_judging_and_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    done = subprocess.run([sys.executable, str(ROOT / "tests/journal/fault_child.py"), str(path), "midgame"],
                          capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    failed, summary = [json.loads(line) for line in done.stdout.splitlines()]
    assert failed["reason"] == "disk full" and "disk full" in failed["line"]
    assert failed["say"].startswith("Check the table: the journal cannot be written")
    assert summary["judged_while_paused"] == 0 and summary["backlog"] == 0 and summary["ended"]
    assert summary["rulings"] == summary["judged"]           # every ruling made is in the journal
    with Journal(path) as journal:
        assert integrity_report(journal._db) == []
        recorded = [r.event for r in journal.events(summary["game"]) if not isinstance(r.event, (Tick, Finish))]
    assert recorded == [s.event for s in stream(cards=60) if s.event is not None]   # all, in arrival order
    assert replay_from_journal(str(path), summary["game"])["differ"] == []          # re-judging agrees


class FlakyJournal(Journal):
    """Fails every write whose SQL contains `failing` with the error a full disk gives."""

    failing: str | None = None

    def _write(self, sql: str, params: Any = ()) -> int:
        if self.failing is not None and self.failing in sql:
            raise JournalWriteError(str(self.path), "disk full", "injected")
        return super()._write(sql, params)


def test_a_ruling_that_cannot_be_written_is_not_announced_and_is_written_later(tmp_path: Path) -> None:
    journal = FlakyJournal(tmp_path / "j.db")
    rec = Recorder.start(journal, "slapjack", 4, seed=7, holdback_ns=120_000_000, strict=False)
    steps = stream(cards=40)
    failures = 0
    for n, step in enumerate(steps):
        journal.failing = "INSERT INTO rulings" if 30 <= n < 60 else None
        try:
            if step.event is None:
                rec.advance(step.arrival_ns)
            else:
                rec.submit(step.event, step.source, step.arrival_ns)
        except JournalWriteError:
            failures += 1
            assert rec.recorded < len(rec.session.rulings) or rec.backlog    # what waits is known
    rec.finish()
    assert failures > 0 and rec.failure is None and not rec.backlog
    assert rec.recorded == len(rec.session.rulings) == len(journal.rulings(rec.game_no))
    assert replay_from_journal(str(journal.path), rec.game_no)["differ"] == []
    journal.close()


def test_a_journal_turning_read_only_mid_game_says_read_only(journal: Journal) -> None:
    rec = Recorder.start(journal, "slapjack", 4, seed=7, holdback_ns=120_000_000, strict=False)
    steps = [s for s in stream(cards=10) if s.event is not None]
    rec.submit(steps[0].event, steps[0].source, steps[0].arrival_ns)  # type: ignore[arg-type]
    journal._db.execute("PRAGMA query_only = ON")                     # SQLite refuses writes: SQLITE_READONLY
    with pytest.raises(JournalWriteError) as caught:
        rec.submit(steps[1].event, steps[1].source, steps[1].arrival_ns)  # type: ignore[arg-type]
    assert caught.value.reason == "read-only" and len(str(caught.value).splitlines()) == 1
    assert rec.hold(steps[2].event, steps[2].source, steps[2].arrival_ns) == 0   # type: ignore[arg-type]
    assert len(rec.backlog) == 2
    journal._db.execute("PRAGMA query_only = OFF")
    rec.advance(steps[2].arrival_ns + 1)
    assert [r.event for r in journal.events(rec.game_no)][:3] == [s.event for s in steps[:3]]


# ---- a read-only journal -------------------------------------------------------------------------------
def read_only_runner(folder: Path) -> Callable[[list[str]], subprocess.CompletedProcess[str]] | None:
    """Runs a command where `folder` really is read-only: by permissions for a normal user, or (root
    ignores permissions) in a mount namespace where it is bind-mounted read-only. None: neither works."""
    if os.geteuid() != 0:
        os.chmod(folder, 0o555)
        for p in folder.iterdir():
            os.chmod(p, 0o444)
        return lambda argv: subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=60)
    if shutil.which("unshare") is None:
        return None
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode != 0:
        return None

    def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
        mount = f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} {folder} && exec \"$@\""
        return subprocess.run(["unshare", "-rm", "sh", "-c", mount, "sh", *argv], capture_output=True, text=True,
                              cwd=ROOT, env=ENV, timeout=60)
    return run


def test_a_read_only_journal_refuses_a_game_but_can_still_be_read(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    with Journal(folder / "j.db") as journal:
        journal.start_game("slapjack", 2)
    run = read_only_runner(folder)
    if run is None:
        pytest.skip("cannot make a folder read-only here (root without unshare)")
    code = ("import sys; from referee.journal import Journal, JournalWriteError\n"
            "try:\n    Journal(sys.argv[1])\nexcept JournalWriteError as e:\n    print(e.reason, '|', e)")
    try:
        done = run([sys.executable, "-c", code, str(folder / "j.db")])
        assert done.stdout.startswith("read-only |") and "Traceback" not in done.stderr, done.stdout + done.stderr
        done = run([sys.executable, "-m", "referee", "disputes", "--journal", str(folder / "j.db"), "--json"])
        assert done.returncode == 0 and json.loads(done.stdout)[0]["game_id"] == "slapjack", done.stderr
    finally:
        os.chmod(folder, 0o755)


# ---- damaged files -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def two_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("journal") / "journal.db"
    with Journal(path) as journal:
        play(journal, seed=9)
        play(journal, seed=7)
        journal._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def root_page(path: Path, table: str) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0])
    finally:
        db.close()


def garbage(data: bytearray, _path: Path) -> None:
    data[len(data) // 2:len(data) // 2 + 8192] = bytes((i * 151 + 7) % 256 for i in range(8192))


def zeroed(data: bytearray, path: Path) -> None:
    for page in (root_page(path, "events"), root_page(path, "rulings")):
        data[(page - 1) * 4096:page * 4096] = bytes(4096)


def flipped(data: bytearray, _path: Path) -> None:
    at = data.index(b"takes the pile")
    data[at + 2] ^= 0xC0                                   # no longer UTF-8: a text cell, not a page, is bad


@pytest.mark.parametrize("damage", [garbage, zeroed, flipped], ids=lambda f: f.__name__)
def test_a_damaged_journal_is_refused_in_one_line_and_export_saves_what_it_can(
        two_games: Path, tmp_path: Path, damage: Callable[[bytearray, Path], None]) -> None:
    path = tmp_path / "journal.db"
    data = bytearray(two_games.read_bytes())
    damage(data, two_games)
    path.write_bytes(bytes(data))
    before = path.read_bytes()
    if damage is not flipped:                              # quick_check sees damaged pages at once
        with pytest.raises(JournalDamaged, match="damaged"):
            Journal(path)
    for argv in (["disputes", "1"], ["replay", "--from-journal", "1"]):
        done = cli(*argv, "--journal", str(path))
        assert done.returncode == 2 and "damaged" in one_line(done) and "export" in one_line(done)
    assert cli("journal", "check", "--journal", str(path)).returncode == 2
    assert path.read_bytes() == before                     # refusing changed nothing

    done = cli("journal", "export", "--journal", str(path), "--out", str(tmp_path / "saved.db"))
    assert done.returncode == 0, done.stderr
    with Journal(tmp_path / "saved.db") as saved, Journal(two_games, create=False) as whole:
        assert [g.id for g in saved.games()] == [1, 2]
        events = sum(saved.counts(g)[0] for g in (1, 2))
        everything = sum(whole.counts(g)[0] for g in (1, 2))
        if damage is zeroed:                               # the rows were all on intact leaf pages
            assert events == everything and saved.counts(1) == whole.counts(1)
        else:
            assert 0.5 * everything < events <= everything
    assert path.read_bytes() == before


def test_files_that_are_not_journals_are_refused_and_left_alone(tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_bytes(b"shopping list\n" * 100)
    with pytest.raises(JournalError, match="not an SQLite file"):
        Journal(text)
    assert text.read_bytes() == b"shopping list\n" * 100
    with pytest.raises(JournalError, match="folder"):
        Journal(tmp_path)
    with pytest.raises(JournalError, match="does not exist"):
        Journal(tmp_path / "nowhere" / "j.db")
    assert not (tmp_path / "nowhere").exists()


def test_an_empty_file_becomes_a_journal_only_for_the_writer(tmp_path: Path) -> None:
    empty = tmp_path / "j.db"
    empty.touch()
    with pytest.raises(JournalError, match="empty"):
        Journal(empty, create=False)
    done = cli("disputes", "--journal", str(empty), real=True)
    assert done.returncode == 2 and "empty" in one_line(done)
    assert empty.stat().st_size == 0                       # a reader never gives a file a schema
    with Journal(empty) as journal:                        # a new empty file at the configured path
        assert journal.games() == []
    cut = tmp_path / "cut.db"                               # empty, but its write-ahead log holds data
    cut.touch()
    (tmp_path / "cut.db-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(60))
    for create in (True, False):
        with pytest.raises(JournalDamaged, match="wal"):
            Journal(cut, create=create)
    assert cut.stat().st_size == 0


def test_journal_check_reports_a_sound_journal(two_games: Path) -> None:
    done = cli("journal", "check", "--journal", str(two_games))
    assert done.returncode == 0 and "sound; 2 games" in done.stdout, done.stderr

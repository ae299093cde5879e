"""The journal: every game, event, ruling and evidence frame, kept in SQLite for disputes and resume.

Durability first. The database runs in WAL mode with `synchronous=FULL`: each
record is its own transaction, and a commit returns only after the write-ahead
log has been fsync'd, so a power cut or SIGKILL loses nothing that was
committed (with `NORMAL`, WAL commits are only made durable at the next
checkpoint and the last few could vanish with the power). WAL also lets
`referee disputes` read while the table is writing.

Cost, measured here (ext4 on a virtio disk, 2 cores; `record_event`, 400 commits):
idle machine ~0.25 ms per fsync'd commit (a whole 626-record game in 0.17 s);
under load (load average 5.7) median 2.6 ms, p99 18 ms with FULL, against
0.02 ms / 0.17 ms with NORMAL. A Pi's SD card will be nearer the loaded
figures. A slap game makes a few records a second, so durability is cheap in
throughput, but each commit sits on the judging thread: a ruling waits for
its event's fsync (keep that in the 100 ms announcement budget).

This is the only `referee/` module (besides `vision/`) that imports sqlite3;
it never imports cv2 (evidence is stored as the JPEG bytes the camera made).
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, Union

from .cards import Card, CardError
from .events import (CardSeen, CardUnreadable, Event, Flinch, PileCleared, Play, Press, Slap,
                     TimeUp)
from .rulings import Ruling
from .session import EventRejected, Session

SCHEMA_VERSION = 1


class JournalError(RuntimeError):
    """The journal cannot be used (missing, not a journal, corrupt, newer schema): `str()` is one line."""


class UnknownRecord(JournalError, LookupError):
    """A game, ruling or evidence number that the journal does not hold."""


class ResumeMismatch(JournalError):
    """Re-judging the recorded events gave rulings other than the recorded ones."""

    def __init__(self, message: str, differences: list[tuple[dict[str, Any] | None, dict[str, Any] | None]]) -> None:
        super().__init__(message)
        self.differences = differences


# ---- control entries: things a Session was told that are not sensor events ----------
@dataclass(frozen=True, slots=True)
class Tick:
    """`Session.advance(t_ns)` changed the game (a window closed, held events released).
    Recorded because the moment a window closes decides whether a later slap is late."""

    t_ns: int


@dataclass(frozen=True, slots=True)
class Finish:
    """`Session.finish()`: the end of the stream; everything held was judged."""

    t_ns: int


Entry = Union[Event, Tick, Finish]

# How the live session was given an event, so resume gives it the same way:
# "submit": Session.submit; "hold": pushed to the arbiter while the table was paused
# (judged when it resumes); "note": kept as evidence only, never given to the rules.
FED_WAYS = ("submit", "hold", "note")

_KIND_OF: dict[type, str] = {
    CardSeen: "card", Play: "play", Slap: "slap", Flinch: "flinch", Press: "press",
    TimeUp: "time", PileCleared: "pile_cleared", CardUnreadable: "unreadable",
    Tick: "tick", Finish: "finish",
}
_SEAT_CLASSES: dict[str, type] = {"slap": Slap, "flinch": Flinch, "press": Press}


def _entry_row(entry: Entry) -> tuple[str, int | None, str | None, int | None, float | None]:
    """(kind, seat, card, by, confidence) for the events table."""
    kind = _KIND_OF.get(type(entry))
    if kind is None:
        raise TypeError(f"not an event the journal knows: {entry!r}")
    card = getattr(entry, "card", None)
    return (kind, getattr(entry, "seat", None), None if card is None else str(card),
            getattr(entry, "by", None), getattr(entry, "confidence", None))


def _entry_from_row(kind: str, t_ns: int, seat: int | None, card: str | None, by: int | None,
                    confidence: float | None) -> Entry:
    if kind == "card":
        if card is None:
            raise JournalError("a card event without a card")
        return CardSeen(Card.parse(card), t_ns, 1.0 if confidence is None else confidence, by)
    if kind == "play":
        return Play(t_ns, by)
    if kind in _SEAT_CLASSES:
        if seat is None:
            raise JournalError(f"a {kind} event without a seat")
        return _SEAT_CLASSES[kind](seat, t_ns)
    simple: dict[str, type] = {"time": TimeUp, "pile_cleared": PileCleared, "tick": Tick, "finish": Finish}
    if kind in simple:
        return simple[kind](t_ns)
    if kind == "unreadable":
        return CardUnreadable(t_ns, 0.0 if confidence is None else confidence)
    raise JournalError(f"unknown event kind {kind!r} in the journal")


# ---- what comes back out -----------------------------------------------------------
@dataclass(frozen=True)
class GameRecord:
    """One games row: the setup that, with the events, determines the whole game."""

    id: int
    started_ns: int
    started_at: str
    game_id: str
    players: int
    dealer: int
    seed: int
    options: dict[str, Any]
    names: list[str] | None
    hands: list[list[str | None]] | None
    config: str | None
    holdback_ns: int | None
    strict: bool
    ended: bool
    result: dict[str, Any] | None

    def setup(self) -> dict[str, Any]:
        """Keyword arguments for `Session.create` (after game_id and players)."""
        hands = None
        if self.hands is not None:
            hands = [[None if c is None else Card.parse(c) for c in hand] for hand in self.hands]
        return {"hands": hands, "seed": self.seed, "dealer": self.dealer, "options": dict(self.options),
                "names": self.names, "holdback_ns": self.holdback_ns, "strict": self.strict}


@dataclass(frozen=True)
class EventRecord:
    """One events row, back as an Event (or a Tick/Finish control entry) with its arrival time."""

    id: int
    seq: int
    event: Entry
    arrival_ns: int | None
    source: str
    fed: str = "submit"      # how the session got it: FED_WAYS


@dataclass(frozen=True)
class RulingRecord:
    """One rulings row. `amended` counts later updates (a margin filled in by the runner-up)."""

    id: int
    game: int
    seq: int
    ruling: Ruling
    event_ids: list[int]
    amended: int


@dataclass(frozen=True)
class EvidenceRecord:
    id: int
    ruling: int
    kind: str
    t_ns: int
    jpeg: bytes


_SCHEMA = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    started_ns INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    game_id TEXT NOT NULL,
    players INTEGER NOT NULL,
    dealer INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    options TEXT NOT NULL,
    names TEXT,
    hands TEXT,
    config TEXT,
    holdback_ns INTEGER,
    strict INTEGER NOT NULL DEFAULT 1,
    ended INTEGER NOT NULL DEFAULT 0,
    result TEXT
);
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    t_ns INTEGER NOT NULL,
    arrival_ns INTEGER,
    source TEXT NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER,
    card TEXT,
    by INTEGER,
    confidence REAL,
    fed TEXT NOT NULL DEFAULT 'submit',
    UNIQUE (game, seq)
);
CREATE TABLE rulings (
    id INTEGER PRIMARY KEY,
    game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    t_ns INTEGER NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER,
    fields TEXT NOT NULL,
    say TEXT NOT NULL,
    event_ids TEXT NOT NULL,
    amended INTEGER NOT NULL DEFAULT 0,
    UNIQUE (game, seq)
);
CREATE TABLE evidence (
    id INTEGER PRIMARY KEY,
    ruling INTEGER NOT NULL REFERENCES rulings(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    t_ns INTEGER NOT NULL,
    jpeg BLOB NOT NULL
);
CREATE INDEX evidence_ruling ON evidence(ruling);
"""


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=_jsonable)


def _jsonable(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, Card):
        return str(value)
    return str(value)


def normal_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Fields as they come back from the journal (tuples as lists, sets sorted), for comparing."""
    return json.loads(_dumps(dict(fields)))


class Journal:
    """The SQLite journal. `keep_games=N > 0`: `start_game` prunes to the newest N games.
    `create=False` opens an existing journal only (for `disputes`, `review`)."""

    def __init__(self, path: str | os.PathLike[str], *, keep_games: int = 0, create: bool = True) -> None:
        self.path = Path(path)
        self.keep_games = keep_games
        if not create and not self.path.is_file():
            raise JournalError(f"no journal at {self.path}")
        try:
            # One connection shared by the judging thread and readers (dashboard, tests): every use
            # goes through self._lock, so sqlite3's same-thread check is not needed.
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=10.0, check_same_thread=False)
            self._lock = threading.RLock()
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open the journal {self.path}: {exc}") from None
        try:
            self._setup()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise JournalError(f"{self.path} is not a usable journal: {exc}") from None
        except JournalError:
            self._db.close()
            raise

    def _setup(self) -> None:
        db = self._db
        db.execute("PRAGMA foreign_keys = ON")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise JournalError(f"{self.path} has journal schema {version}; this referee reads up to {SCHEMA_VERSION}")
        if version == 0:
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise JournalError(f"{self.path} is an SQLite file but not a referee journal")
            db.execute("PRAGMA auto_vacuum = INCREMENTAL")   # must precede the first table
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise JournalError(f"{self.path}: cannot switch the journal to WAL mode (got {mode})")
        db.execute("PRAGMA synchronous = FULL")
        if version == 0:
            db.execute("BEGIN IMMEDIATE")
            try:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    # ---- housekeeping -------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Journal({str(self.path)!r}, keep_games={self.keep_games})"

    def pragma(self, name: str) -> Any:
        """Read one PRAGMA (tests check journal_mode and synchronous)."""
        if not name.isidentifier():
            raise ValueError(f"not a pragma name: {name!r}")
        with self._lock:
            return self._db.execute(f"PRAGMA {name}").fetchone()[0]

    def _write(self, sql: str, params: Sequence[Any] = ()) -> int:
        """One statement as its own committed transaction; returns lastrowid."""
        try:
            with self._tx():
                cur = self._db.execute(sql, params)
            return int(cur.lastrowid or 0)
        except sqlite3.IntegrityError as exc:
            raise UnknownRecord(f"journal: {exc} (no such game or ruling)") from None
        except sqlite3.Error as exc:
            raise JournalError(f"journal write failed: {exc}") from None

    def _tx(self) -> "_Transaction":
        return _Transaction(self._db, self._lock)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            with self._lock:
                return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise JournalError(f"journal read failed: {exc}") from None

    # ---- writing ------------------------------------------------------------------
    def start_game(self, game_id: str, players: int, *, seed: int = 0, dealer: int = 0,
                   options: Mapping[str, Any] | None = None, names: Sequence[str] | None = None,
                   hands: Sequence[Sequence[Card | None]] | None = None,
                   config: str | Mapping[str, Any] | None = None, holdback_ns: int | None = None,
                   strict: bool = True, started_ns: int | None = None) -> int:
        """A new game row; returns the game number. `config`: the table TOML text (or a dict, kept as JSON)."""
        if self.keep_games > 0:
            self.prune(self.keep_games - 1)
        hands_json = None if hands is None else _dumps([[None if c is None else str(c) for c in h] for h in hands])
        config_text = config if isinstance(config, str) or config is None else _dumps(dict(config))
        return self._write(
            "INSERT INTO games (started_ns, started_at, game_id, players, dealer, seed, options, names, hands,"
            " config, holdback_ns, strict) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (time.monotonic_ns() if started_ns is None else started_ns,
             time.strftime("%Y-%m-%dT%H:%M:%S%z"), game_id, players, dealer, seed, _dumps(dict(options or {})),
             None if names is None else _dumps(list(names)), hands_json, config_text, holdback_ns, int(strict)))

    def record_event(self, game: int, event: Entry, source: str, arrival_ns: int | None, *,
                     fed: str = "submit") -> int:
        """One event (or Tick/Finish) as received; `seq` is its arrival position in the game,
        `fed` how the session was given it (FED_WAYS)."""
        if fed not in FED_WAYS:
            raise ValueError(f"fed must be one of {FED_WAYS}, not {fed!r}")
        kind, seat, card, by, confidence = _entry_row(event)
        return self._write(
            "INSERT INTO events (game, seq, t_ns, arrival_ns, source, kind, seat, card, by, confidence, fed)"
            " VALUES (?, (SELECT coalesce(max(seq), -1) + 1 FROM events WHERE game = ?), ?,?,?,?,?,?,?,?,?)",
            (game, game, event.t_ns, arrival_ns, source, kind, seat, card, by, confidence, fed))

    def record_ruling(self, game: int, ruling: Ruling, event_ids: Iterable[int] = ()) -> int:
        """One ruling, with the ids of the events it rests on; returns the ruling id."""
        return self._write(
            "INSERT INTO rulings (game, seq, t_ns, kind, seat, fields, say, event_ids)"
            " VALUES (?, (SELECT coalesce(max(seq), -1) + 1 FROM rulings WHERE game = ?), ?,?,?,?,?,?)",
            (game, game, ruling.t_ns, ruling.kind, ruling.seat, _dumps(ruling.fields), ruling.say,
             json.dumps(sorted(set(event_ids)))))

    def update_ruling(self, ruling_id: int, ruling: Ruling) -> None:
        """A ruling changed after it was made (the runner-up's margin): store its fields and words now."""
        with_rows = self._read("SELECT 1 FROM rulings WHERE id = ?", (ruling_id,))
        if not with_rows:
            raise UnknownRecord(f"no ruling {ruling_id} in the journal")
        self._write("UPDATE rulings SET fields = ?, say = ?, amended = amended + 1 WHERE id = ?",
                    (_dumps(ruling.fields), ruling.say, ruling_id))

    def record_evidence(self, ruling_id: int, kind: str, t_ns: int, jpeg: bytes) -> int:
        """A JPEG that shows what a ruling rests on ("card_frame", "slap_frame")."""
        return self._write("INSERT INTO evidence (ruling, kind, t_ns, jpeg) VALUES (?,?,?,?)",
                           (ruling_id, kind, t_ns, sqlite3.Binary(bytes(jpeg))))

    def end_game(self, game: int, result: Mapping[str, Any] | None) -> None:
        self.game(game)
        self._write("UPDATE games SET ended = 1, result = ? WHERE id = ?",
                    (None if result is None else _dumps(dict(result)), game))

    def prune(self, keep_games: int) -> int:
        """Delete all but the newest `keep_games` games (with their events, rulings, evidence);
        returns how many went. Freed pages are given back to the file system."""
        if keep_games < 0:
            raise ValueError("keep_games must be >= 0")
        try:
            with self._tx():
                cur = self._db.execute(
                    "DELETE FROM games WHERE id NOT IN (SELECT id FROM games ORDER BY id DESC LIMIT ?)",
                    (keep_games,))
            gone = cur.rowcount
            if gone:
                with self._lock:
                    self._db.execute("PRAGMA incremental_vacuum").fetchall()
            return gone
        except sqlite3.Error as exc:
            raise JournalError(f"journal prune failed: {exc}") from None

    def log_for(self, game: int) -> "GameLog":
        """The `ports.RulingLog` port for one game."""
        return GameLog(self, game)

    # ---- reading ------------------------------------------------------------------
    _GAME_COLUMNS = ("id, started_ns, started_at, game_id, players, dealer, seed, options, names, hands,"
                     " config, holdback_ns, strict, ended, result")

    def games(self) -> list[GameRecord]:
        return [self._game_row(r) for r in self._read(f"SELECT {self._GAME_COLUMNS} FROM games ORDER BY id")]

    def game(self, game_no: int) -> GameRecord:
        rows = self._read(f"SELECT {self._GAME_COLUMNS} FROM games WHERE id = ?", (game_no,))
        if not rows:
            raise UnknownRecord(f"no game {game_no} in the journal")
        return self._game_row(rows[0])

    @staticmethod
    def _game_row(r: tuple[Any, ...]) -> GameRecord:
        try:
            return GameRecord(r[0], r[1], r[2], r[3], r[4], r[5], r[6], json.loads(r[7]),
                              None if r[8] is None else json.loads(r[8]),
                              None if r[9] is None else json.loads(r[9]),
                              r[10], r[11], bool(r[12]), bool(r[13]), None if r[14] is None else json.loads(r[14]))
        except (ValueError, TypeError) as exc:
            raise JournalError(f"game {r[0]}: damaged setup row: {exc}") from None

    def events(self, game_no: int) -> list[EventRecord]:
        self.game(game_no)
        out = []
        for r in self._read("SELECT id, seq, t_ns, arrival_ns, source, kind, seat, card, by, confidence, fed"
                            " FROM events WHERE game = ? ORDER BY seq", (game_no,)):
            try:
                entry = _entry_from_row(r[5], r[2], r[6], r[7], r[8], r[9])
            except CardError as exc:
                raise JournalError(f"event {r[0]}: {exc}") from None
            out.append(EventRecord(r[0], r[1], entry, r[3], r[4], r[10]))
        return out

    def rulings(self, game_no: int) -> list[RulingRecord]:
        self.game(game_no)
        return [self._ruling_row(r) for r in self._read(
            "SELECT id, game, seq, t_ns, kind, seat, fields, say, event_ids, amended FROM rulings"
            " WHERE game = ? ORDER BY seq", (game_no,))]

    def ruling(self, ruling_id: int) -> RulingRecord:
        rows = self._read("SELECT id, game, seq, t_ns, kind, seat, fields, say, event_ids, amended FROM rulings"
                          " WHERE id = ?", (ruling_id,))
        if not rows:
            raise UnknownRecord(f"no ruling {ruling_id} in the journal")
        return self._ruling_row(rows[0])

    @staticmethod
    def _ruling_row(r: tuple[Any, ...]) -> RulingRecord:
        try:
            ruling = Ruling(r[4], r[5], r[3], r[7], json.loads(r[6]))
            return RulingRecord(r[0], r[1], r[2], ruling, json.loads(r[8]), r[9])
        except (ValueError, TypeError) as exc:
            raise JournalError(f"ruling {r[0]}: damaged row: {exc}") from None

    def evidence(self, ruling_id: int) -> list[EvidenceRecord]:
        return [EvidenceRecord(r[0], r[1], r[2], r[3], bytes(r[4])) for r in self._read(
            "SELECT id, ruling, kind, t_ns, jpeg FROM evidence WHERE ruling = ? ORDER BY t_ns, id", (ruling_id,))]

    def counts(self, game_no: int) -> tuple[int, int]:
        """(events, rulings) recorded for a game."""
        row = self._read("SELECT (SELECT count(*) FROM events WHERE game = ?),"
                         " (SELECT count(*) FROM rulings WHERE game = ?)", (game_no, game_no))[0]
        return int(row[0]), int(row[1])


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error): one durable record."""

    def __init__(self, db: sqlite3.Connection, lock: threading.RLock) -> None:
        self.db, self.lock = db, lock

    def __enter__(self) -> None:
        self.lock.acquire()
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self.lock.release()
            raise

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        try:
            if exc_type is None:
                self.db.execute("COMMIT")
            else:
                self.db.execute("ROLLBACK")
        finally:
            self.lock.release()


class GameLog:
    """`ports.RulingLog` bound to one game of a Journal."""

    def __init__(self, journal: Journal, game: int) -> None:
        self.journal, self.game = journal, game

    def record_event(self, event: Event, source: str, arrival_ns: int) -> int:
        return self.journal.record_event(self.game, event, source, arrival_ns)

    def record_ruling(self, ruling: Ruling, event_ids: Iterable[int] = ()) -> int:
        return self.journal.record_ruling(self.game, ruling, event_ids)

    def record_evidence(self, ruling_id: int, kind: str, t_ns: int, jpeg: bytes) -> None:
        self.journal.record_evidence(ruling_id, kind, t_ns, jpeg)


# ---- live recording ----------------------------------------------------------------------
class Recorder:
    """A Session whose every input and ruling goes to the journal as it happens.

    `submit` commits the event before the rules see it, then commits each new
    ruling (with the ids of the events at its moment and the card it judged),
    then any ruling amended since (a margin filled in). `advance` is recorded as
    a Tick only when it changed the game. After a crash, `Recorder.resume`
    rebuilds the session from the journal and carries on recording."""

    def __init__(self, journal: Journal, game_no: int, session: Session) -> None:
        self.journal, self.game_no, self.session = journal, game_no, session
        self.ruling_ids: list[int] = []
        self._watch: dict[int, tuple[Ruling, str]] = {}   # index -> (ruling, fields+say snapshot)
        self._ids_at: dict[int, list[int]] = {}           # t_ns -> event ids at that moment
        self._last_card_id: int | None = None
        self.last_event_id: int | None = None

    @classmethod
    def start(cls, journal: Journal, game_id: str, players: int, *, config: str | Mapping[str, Any] | None = None,
              started_ns: int | None = None, holdback_ns: int | None = None, strict: bool = True,
              seed: int = 0, dealer: int = 0, options: Mapping[str, Any] | None = None,
              names: Sequence[str] | None = None, hands: Sequence[Sequence[Card | None]] | None = None) -> "Recorder":
        """Set up the Session first (so a bad setup is refused before a row is written), then the game row."""
        session = Session.create(game_id, players, hands=hands, seed=seed, dealer=dealer,
                                 options=dict(options or {}), names=None if names is None else list(names),
                                 holdback_ns=holdback_ns, strict=strict)
        game_no = journal.start_game(game_id, players, seed=seed, dealer=dealer, options=options, names=names,
                                     hands=hands, config=config, holdback_ns=session.arbiter.holdback_ns,
                                     strict=strict, started_ns=started_ns)
        return cls(journal, game_no, session)

    @classmethod
    def resume(cls, journal: Journal, game_no: int) -> "Recorder":
        """Continue an interrupted game: re-judge the journal, record what the crash cut off, go on."""
        return _resume(journal, game_no, repair=True)

    # ---- input ------------------------------------------------------------------
    def submit(self, event: Event, source: str, arrival_ns: int | None = None) -> list[Ruling]:
        event_id = self.journal.record_event(self.game_no, event, source, arrival_ns)
        self.last_event_id = event_id
        self._ids_at.setdefault(event.t_ns, []).append(event_id)
        if isinstance(event, (CardSeen, Play)):
            self._last_card_id = event_id
        start = len(self.session.rulings)
        try:
            self.session.submit(event, tag=event_id, now_ns=arrival_ns)
        finally:
            self._sync(start)
        return self.session.rulings[start:]

    def hold(self, event: Event, source: str, arrival_ns: int | None = None) -> int:
        """The table is paused: record the event and hand it to the arbiter unjudged (judged on resuming)."""
        event_id = self.journal.record_event(self.game_no, event, source, arrival_ns, fed="hold")
        self.last_event_id = event_id
        self._ids_at.setdefault(event.t_ns, []).append(event_id)
        self.session.arbiter.push(event, event_id, arrival_ns)
        return event_id

    def note(self, event: Event, source: str, arrival_ns: int | None = None) -> int:
        """Record an event as evidence only (e.g. CardUnreadable): the rules never see it."""
        event_id = self.journal.record_event(self.game_no, event, source, arrival_ns, fed="note")
        self.last_event_id = event_id
        return event_id

    def advance(self, now_ns: int) -> list[Ruling]:
        before = self._state()
        start = len(self.session.rulings)
        self.session.advance(now_ns)
        if self._state() != before:
            self.journal.record_event(self.game_no, Tick(now_ns), "clock", now_ns)
        self._sync(start)
        return self.session.rulings[start:]

    def finish(self, result: Mapping[str, Any] | None = None) -> list[Ruling]:
        """End of the stream: judge what is held, record it, and close the game row with `final()`."""
        start = len(self.session.rulings)
        self.journal.record_event(self.game_no, Finish(self.session.game.now), "clock", None)
        self.session.finish()
        self._sync(start)
        self.journal.end_game(self.game_no, result if result is not None else self.session.game.final())
        return self.session.rulings[start:]

    # ---- bookkeeping ----------------------------------------------------------------
    def _state(self) -> tuple[int, int, int]:
        s = self.session
        return (s.game.now, len(s.rulings), len(s.arbiter))

    def _sync(self, start: int) -> None:
        rulings = self.session.rulings
        for index in range(len(self.ruling_ids), len(rulings)):
            ruling = rulings[index]
            ids = list(self._ids_at.get(ruling.t_ns, ()))
            if self._last_card_id is not None and ruling.kind in SLAP_KINDS:
                ids.append(self._last_card_id)
            self.ruling_ids.append(self.journal.record_ruling(self.game_no, ruling, ids))
            self._watch_if_open(index, ruling)
        for index, (ruling, snap) in list(self._watch.items()):
            now = _snapshot(ruling)
            if now != snap:
                self.journal.update_ruling(self.ruling_ids[index], ruling)
                self._watch[index] = (ruling, now)
            if ruling.get("margin_us") is not None or index < len(rulings) - 64:
                del self._watch[index]

    def _watch_if_open(self, index: int, ruling: Ruling) -> None:
        """Watch rulings a later event may still amend (a win whose margin is not known yet)."""
        if ruling.kind == "wins_pile" and ruling.get("margin_us") is None:
            self._watch[index] = (ruling, _snapshot(ruling))


SLAP_KINDS = frozenset({"wins_pile", "false_slap", "slap_again", "picks_up", "pays"})


def _snapshot(ruling: Ruling) -> str:
    return _dumps([ruling.fields, ruling.say])


# ---- resume ----------------------------------------------------------------------------------
def ruling_key(ruling: Ruling) -> str:
    """What must match between a recorded and a re-judged ruling."""
    return _dumps([ruling.kind, ruling.seat, ruling.t_ns, ruling.fields, ruling.say])


def feed(session: Session, records: Iterable[EventRecord]) -> None:
    """Give recorded entries to `session` exactly as the live session got them (arrival times, ticks,
    finish; held while paused; notes skipped).
    Events the live session rejected are rejected again and skipped, as they were then."""
    for rec in records:
        entry = rec.event
        if rec.fed == "note":
            continue
        if rec.fed == "hold" and not isinstance(entry, (Tick, Finish)):
            session.arbiter.push(entry, rec.id, rec.arrival_ns)
        elif isinstance(entry, Tick):
            session.advance(entry.t_ns)
        elif isinstance(entry, Finish):
            session.finish()
        else:
            try:
                session.submit(entry, tag=rec.id, now_ns=rec.arrival_ns)
            except EventRejected:
                pass


def session_for(record: GameRecord, options_override: Mapping[str, Any] | None = None) -> Session:
    setup = record.setup()
    if options_override:
        setup["options"].update(options_override)
    return Session.create(record.game_id, record.players, **setup)


def _amends(recorded: Ruling, rejudged: Ruling) -> bool:
    """`rejudged` is `recorded` with fields filled in later (an amendment the crash cut off)."""
    if (recorded.kind, recorded.seat, recorded.t_ns) != (rejudged.kind, rejudged.seat, rejudged.t_ns):
        return False
    new = normal_fields(rejudged.fields)
    return all(v is None or new.get(k) == v for k, v in normal_fields(recorded.fields).items())


def resume(journal: Journal, game_no: int, *, repair: bool = True) -> Session:
    """Rebuild game `game_no`'s Session from the journal: the setup row, then every recorded
    event with its arrival time. Hand counts, pile and turn come back exactly.

    Every recorded ruling must come out again; raises ResumeMismatch listing the
    (recorded, rejudged) pairs that differ. Rulings the crash cut off before they
    were committed (the event was, its rulings not yet), and margins not yet
    written back, are recorded now when `repair` is true."""
    return _resume(journal, game_no, repair=repair).session


def _resume(journal: Journal, game_no: int, *, repair: bool) -> Recorder:
    record = journal.game(game_no)
    events = journal.events(game_no)
    try:
        session = session_for(record)
    except (ValueError, LookupError) as exc:
        raise JournalError(f"game {game_no}: cannot set up {record.game_id}: {exc}") from None
    feed(session, events)
    recorded = journal.rulings(game_no)
    rejudged = session.rulings
    differences: list[tuple[dict[str, Any] | None, dict[str, Any] | None]] = []
    amend: list[tuple[int, Ruling]] = []
    for i, rec in enumerate(recorded):
        new = rejudged[i] if i < len(rejudged) else None
        if new is not None and ruling_key(new) == ruling_key(rec.ruling):
            continue
        if new is not None and _amends(rec.ruling, new):
            amend.append((rec.id, new))
            continue
        differences.append((dict(rec.ruling.to_json(), id=rec.id), None if new is None else new.to_json()))
    if differences:
        raise ResumeMismatch(f"game {game_no}: {len(differences)} recorded ruling(s) differ when re-judged",
                             differences)
    recorder = Recorder(journal, game_no, session)
    recorder.ruling_ids = [rec.id for rec in recorded]
    if repair:
        for ruling_id, ruling in amend:
            journal.update_ruling(ruling_id, ruling)
        by_t: dict[int, list[int]] = {}
        for ev in events:
            by_t.setdefault(ev.event.t_ns, []).append(ev.id)
        recorder._ids_at = by_t
        cards = [ev.id for ev in events if isinstance(ev.event, (CardSeen, Play))]
        recorder._last_card_id = cards[-1] if cards else None
        recorder._sync(len(recorded))
    for index, ruling in enumerate(rejudged[:len(recorder.ruling_ids)]):
        recorder._watch_if_open(index, ruling)
    return recorder


__all__ = ["Journal", "JournalError", "UnknownRecord", "ResumeMismatch", "Recorder", "GameLog", "resume",
           "feed", "session_for", "ruling_key", "Tick", "Finish", "GameRecord", "EventRecord", "RulingRecord",
           "EvidenceRecord", "SCHEMA_VERSION", "normal_fields", "FED_WAYS"]

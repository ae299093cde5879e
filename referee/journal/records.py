"""The journal's records: the schema, its rows as values, the error types, and row <-> event conversion.

Kept apart from the store (journal_store) so readers, the salvage command and
the recorder share one definition of what a row means. Every row read back goes
through a parser here; a row that does not parse is a JournalDamaged error.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, Union

from ..core.cards import Card, CardError
from ..core.events import (CardSeen, CardUnreadable, Event, Flinch, PileCleared, Play, Press, Slap,
                           TimeUp)
from ..core.rulings import Ruling
from ..table.ports import RecordNotKept

SCHEMA_VERSION = 1


class JournalError(RuntimeError):
    """The journal cannot be used (missing, not a journal, corrupt, newer schema): `str()` is one line."""


class UnknownRecord(JournalError, LookupError):
    """A game, ruling or evidence number that the journal does not hold."""


class JournalDamaged(JournalError):
    """The file is a journal but its pages or rows are damaged; `referee journal export` saves what can be read."""


class JournalWriteError(JournalError, RecordNotKept):
    """A write did not reach the journal: `reason` is "disk full", "read-only", "busy" or "I/O error".

    Nothing was committed by the failed call. At the table this is "check the
    table": `announcement` is the sentence to say, and judging must pause until
    the journal can be written again (Recorder.flush() tells)."""

    def __init__(self, path: str, reason: str, detail: str = "") -> None:
        self.path, self.reason, self.detail = path, reason, detail
        extra = f" ({detail})" if detail and detail != reason else ""
        super().__init__(f"{path}: cannot write the journal: {reason}{extra}")


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


def entry_row(entry: Entry) -> tuple[str, int | None, str | None, int | None, float | None]:
    """(kind, seat, card, by, confidence) for the events table."""
    kind = _KIND_OF.get(type(entry))
    if kind is None:
        raise TypeError(f"not an event the journal knows: {entry!r}")
    card = getattr(entry, "card", None)
    return (kind, getattr(entry, "seat", None), None if card is None else str(card),
            getattr(entry, "by", None), getattr(entry, "confidence", None))


def entry_from_row(kind: str, t_ns: int, seat: int | None, card: str | None, by: int | None,
                    confidence: float | None) -> Entry:
    if kind == "card":
        if card is None:
            raise JournalDamaged("a card event without a card")
        return CardSeen(Card.parse(card), t_ns, 1.0 if confidence is None else confidence, by)
    if kind == "play":
        return Play(t_ns, by)
    if kind in _SEAT_CLASSES:
        if seat is None:
            raise JournalDamaged(f"a {kind} event without a seat")
        return _SEAT_CLASSES[kind](seat, t_ns)
    simple: dict[str, type] = {"time": TimeUp, "pile_cleared": PileCleared, "tick": Tick, "finish": Finish}
    if kind in simple:
        return simple[kind](t_ns)
    if kind == "unreadable":
        return CardUnreadable(t_ns, 0.0 if confidence is None else confidence)
    raise JournalDamaged(f"unknown event kind {kind!r} in the journal")


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


SCHEMA = """
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


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=_jsonable)


def _jsonable(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, Card):
        return str(value)
    return str(value)


def normal_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Fields as they come back from the journal (tuples as lists, sets sorted), for comparing."""
    return json.loads(dumps(dict(fields)))


GAME_COLUMNS = ("id, started_ns, started_at, game_id, players, dealer, seed, options, names, hands,"
                " config, holdback_ns, strict, ended, result")
EVENT_COLUMNS = "id, seq, t_ns, arrival_ns, source, kind, seat, card, by, confidence, fed"
RULING_COLUMNS = "id, game, seq, t_ns, kind, seat, fields, say, event_ids, amended"


def _json(text: Any) -> Any:
    if not isinstance(text, str):
        raise TypeError(f"expected JSON text, found {type(text).__name__}")
    return json.loads(text)


def game_row(r: Sequence[Any]) -> GameRecord:
    """A games row (GAME_COLUMNS) as a GameRecord; JournalDamaged when it does not parse."""
    try:
        options = _json(r[7])
        if not isinstance(r[3], str) or not isinstance(r[4], int) or not isinstance(options, dict):
            raise TypeError("wrong column types")
        return GameRecord(r[0], r[1], r[2], r[3], r[4], r[5], r[6], options,
                          None if r[8] is None else _json(r[8]), None if r[9] is None else _json(r[9]),
                          r[10], r[11], bool(r[12]), bool(r[13]), None if r[14] is None else _json(r[14]))
    except (ValueError, TypeError) as exc:
        raise JournalDamaged(f"game {r[0]}: damaged setup row: {exc}") from None


def event_row(r: Sequence[Any]) -> EventRecord:
    """An events row (EVENT_COLUMNS) as an EventRecord; JournalDamaged when it does not parse."""
    try:
        if not isinstance(r[2], int) or r[10] not in FED_WAYS:
            raise TypeError("wrong column types")
        entry = entry_from_row(r[5], r[2], r[6], r[7], r[8], r[9])
    except (CardError, ValueError, TypeError) as exc:
        raise JournalDamaged(f"event {r[0]}: damaged row: {exc}") from None
    return EventRecord(r[0], r[1], entry, r[3], r[4], r[10])


def ruling_row(r: Sequence[Any]) -> RulingRecord:
    """A rulings row (RULING_COLUMNS) as a RulingRecord; JournalDamaged when it does not parse."""
    try:
        fields, event_ids = _json(r[6]), _json(r[8])
        if not isinstance(fields, dict) or not isinstance(event_ids, list) or not isinstance(r[4], str):
            raise TypeError("wrong column types")
        return RulingRecord(r[0], r[1], r[2], Ruling(r[4], r[5], r[3], r[7], fields), event_ids, r[9])
    except (ValueError, TypeError) as exc:
        raise JournalDamaged(f"ruling {r[0]}: damaged row: {exc}") from None

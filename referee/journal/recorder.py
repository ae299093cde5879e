"""Live recording and resume: a Session whose every input and ruling is committed to the journal.

When the journal cannot be written (disk full, read-only, I/O error) nothing
is judged that cannot be recorded: the event that failed, and every event
after it, wait in memory (`backlog`) unjudged; rulings made by an event that
was recorded but whose own write failed wait to be written. The first failure
raises JournalWriteError (the runtime pauses judging and says "check the
table"); `flush()` writes what waited, as held events, once the journal can
be written again, and judging carries on from there exactly as a resume would.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Iterable, Mapping, Sequence

from ..core.cards import Card
from ..core.events import CardSeen, Event, Play
from .records import (EventRecord, Finish, GameRecord, JournalError, JournalWriteError, ResumeMismatch,
                      Tick, dumps, normal_fields)
from .store import Journal
from ..core.rulings import Ruling
from ..core.session import EventRejected, Session

SLAP_KINDS = frozenset({"wins_pile", "false_slap", "slap_again", "picks_up", "pays"})
MAX_BACKLOG = 100_000        # events kept in memory while the journal is down (hours of play)
NOT_RECORDED = 0             # the id `hold`/`note` return for an event waiting in the backlog


class Recorder:
    """A Session whose every input and ruling goes to the journal as it happens.

    `submit` commits the event before the rules see it, then commits each new
    ruling (with the ids of the events at its moment and the card it judged),
    then any ruling amended since (a margin filled in). `advance` is recorded as
    a Tick only when it changed the game. After a crash, `Recorder.resume`
    rebuilds the session from the journal and carries on recording.

    `failure` is the JournalWriteError that stopped recording (None: all is
    written); `recorded` counts the rulings safely in the journal: a live view
    announces no ruling beyond it."""

    def __init__(self, journal: Journal, game_no: int, session: Session) -> None:
        self.journal, self.game_no, self.session = journal, game_no, session
        self.ruling_ids: list[int] = []
        self._watch: dict[int, tuple[Ruling, str]] = {}   # index -> (ruling, fields+say snapshot)
        self._ids_at: dict[int, list[int]] = {}           # t_ns -> event ids at that moment
        self._last_card_id: int | None = None
        self.last_event_id: int | None = None
        self.failure: JournalWriteError | None = None
        self.backlog: deque[tuple[Event, str, int | None, str]] = deque()   # (event, source, arrival, fed)
        self.dropped = 0                                  # backlog overflow: events lost while the journal was down
        self._pending_tick: int | None = None
        self._pending_end: dict[str, Any] | None = None

    @classmethod
    def start(cls, journal: Journal, game_id: str, players: int, *, config: str | Mapping[str, Any] | None = None,
              started_ns: int | None = None, holdback_ns: int | None = None, strict: bool = True,
              seed: int = 0, dealer: int = 0, options: Mapping[str, Any] | None = None,
              names: Sequence[str] | None = None, hands: Sequence[Sequence[Card | None]] | None = None) -> "Recorder":
        """Set up the Session first (so a bad setup is refused before a row is written), then the game row
        (JournalWriteError when the journal cannot take a game: no room, read-only)."""
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

    @property
    def recorded(self) -> int:
        """How many of `session.rulings` are in the journal (announce no ruling beyond this)."""
        return len(self.ruling_ids)

    # ---- input ------------------------------------------------------------------
    def submit(self, event: Event, source: str, arrival_ns: int | None = None) -> list[Ruling]:
        """Record `event`, judge it, record its rulings. JournalWriteError: it waits unjudged (see flush)."""
        if self.failure is not None:
            self._try_flush(event, source, arrival_ns, "hold")
        event_id = self._record(event, source, arrival_ns, "submit")
        if isinstance(event, (CardSeen, Play)):
            self._last_card_id = event_id
        start = len(self.session.rulings)
        try:
            self.session.submit(event, tag=event_id, now_ns=arrival_ns)
        finally:
            self._sync()
        return self.session.rulings[start:]

    def hold(self, event: Event, source: str, arrival_ns: int | None = None) -> int:
        """The table is paused: record the event and hand it to the arbiter unjudged (judged on resuming).
        While the journal is down the event waits in the backlog (returns NOT_RECORDED) without raising."""
        if self.failure is not None:
            self._wait(event, source, arrival_ns, "hold")
            return NOT_RECORDED
        event_id = self._record(event, source, arrival_ns, "hold")
        self.session.arbiter.push(event, event_id, arrival_ns)
        return event_id

    def note(self, event: Event, source: str, arrival_ns: int | None = None) -> int:
        """Record an event as evidence only (e.g. CardUnreadable): the rules never see it."""
        if self.failure is not None:
            self._wait(event, source, arrival_ns, "note")
            return NOT_RECORDED
        return self._record(event, source, arrival_ns, "note")

    def advance(self, now_ns: int) -> list[Ruling]:
        """Judge what became certain by `now_ns` (after writing whatever waited for the journal)."""
        self.flush()
        before = self._state()
        start = len(self.session.rulings)
        self.session.advance(now_ns)
        if self._state() != before:
            self._pending_tick = now_ns
            self._write_pending_tick()
        self._sync()
        return self.session.rulings[start:]

    def finish(self, result: Mapping[str, Any] | None = None) -> list[Ruling]:
        """End of the stream: judge what is held, record it, and close the game row with `final()`."""
        self.flush()
        start = len(self.session.rulings)
        self._guard(lambda: self.journal.record_event(self.game_no, Finish(self.session.game.now), "clock", None))
        self.session.finish()
        self._sync()
        self.end_game(result)
        return self.session.rulings[start:]

    def sync(self) -> None:
        """Record rulings the game made outside submit/advance (an operator's correction), after whatever
        waited: JournalWriteError if the journal still cannot be written."""
        self.flush()
        self._sync()

    def end_game(self, result: Mapping[str, Any] | None = None) -> None:
        """Close the game row with `result` (default `final()`); if that cannot be written it is kept and
        written by the next flush (JournalWriteError is raised)."""
        self._pending_end = dict(result if result is not None else self.session.game.final())
        self._write_pending_end()

    def flush(self) -> None:
        """Write what waited while the journal was down: a tick, rulings, then the backlog as held events
        (handed to the arbiter, judged on the next advance). JournalWriteError if it still cannot."""
        if self.failure is None:
            return
        self._write_pending_tick()
        self._sync()
        while self.backlog:
            event, source, arrival_ns, fed = self.backlog[0]
            event_id = self._guard(lambda: self.journal.record_event(self.game_no, event, source, arrival_ns, fed=fed))
            self.backlog.popleft()
            self._note_id(event, event_id, fed)
            if fed == "hold":
                self.session.arbiter.push(event, event_id, arrival_ns)
        self._write_pending_end()
        self.failure = None

    # ---- bookkeeping ----------------------------------------------------------------
    def _record(self, event: Event, source: str, arrival_ns: int | None, fed: str) -> int:
        """Commit one event; on a write failure it waits in the backlog (as held) and the error is raised."""
        try:
            event_id = self._guard(lambda: self.journal.record_event(self.game_no, event, source, arrival_ns, fed=fed))
        except JournalWriteError:
            self._wait(event, source, arrival_ns, "note" if fed == "note" else "hold")
            raise
        self._note_id(event, event_id, fed)
        return event_id

    def _note_id(self, event: Event, event_id: int, fed: str) -> None:
        self.last_event_id = event_id
        if fed != "note":
            self._ids_at.setdefault(event.t_ns, []).append(event_id)

    def _try_flush(self, event: Event, source: str, arrival_ns: int | None, fed: str) -> None:
        try:
            self.flush()
        except JournalWriteError:
            self._wait(event, source, arrival_ns, fed)
            raise

    def _wait(self, event: Event, source: str, arrival_ns: int | None, fed: str) -> None:
        if len(self.backlog) >= MAX_BACKLOG:
            self.backlog.popleft()
            self.dropped += 1
        self.backlog.append((event, source, arrival_ns, fed))

    def _guard(self, write: Any) -> Any:
        """Run one journal write; a JournalWriteError is kept as `failure` and raised."""
        try:
            return write()
        except JournalWriteError as exc:
            self.failure = exc
            raise

    def _write_pending_tick(self) -> None:
        if self._pending_tick is not None:
            t = self._pending_tick
            self._guard(lambda: self.journal.record_event(self.game_no, Tick(t), "clock", t))
            self._pending_tick = None

    def _write_pending_end(self) -> None:
        if self._pending_end is not None:
            result = self._pending_end
            self._guard(lambda: self.journal.end_game(self.game_no, result))
            self._pending_end = None

    def _state(self) -> tuple[int, int, int]:
        s = self.session
        return (s.game.now, len(s.rulings), len(s.arbiter))

    def _sync(self, start: int = 0) -> None:
        """Record every ruling not yet recorded, then any watched ruling that changed (amended)."""
        rulings = self.session.rulings
        for index in range(len(self.ruling_ids), len(rulings)):
            ruling = rulings[index]
            ids = list(self._ids_at.get(ruling.t_ns, ()))
            if self._last_card_id is not None and ruling.kind in SLAP_KINDS:
                ids.append(self._last_card_id)
            self.ruling_ids.append(self._guard(lambda: self.journal.record_ruling(self.game_no, ruling, ids)))
            self._watch_if_open(index, ruling)
        for index, (ruling, snap) in list(self._watch.items()):
            now = _snapshot(ruling)
            if now != snap:
                self._guard(lambda: self.journal.update_ruling(self.ruling_ids[index], ruling))
                self._watch[index] = (ruling, now)
            if ruling.get("margin_us") is not None or index < len(rulings) - 64:
                del self._watch[index]

    def _watch_if_open(self, index: int, ruling: Ruling) -> None:
        """Watch rulings a later event may still amend (a win whose margin is not known yet)."""
        if ruling.kind == "wins_pile" and ruling.get("margin_us") is None:
            self._watch[index] = (ruling, _snapshot(ruling))


def _snapshot(ruling: Ruling) -> str:
    return dumps([ruling.fields, ruling.say])


# ---- resume ----------------------------------------------------------------------------------
def ruling_key(ruling: Ruling) -> str:
    """What must match between a recorded and a re-judged ruling."""
    return dumps([ruling.kind, ruling.seat, ruling.t_ns, ruling.fields, ruling.say])


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

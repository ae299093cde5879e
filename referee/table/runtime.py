"""The referee at the table: sources in, one consumer judging, rulings out.

One thread per event source (pads, camera pipeline, keyboard) puts events
with their arrival time on one queue; a single consumer thread feeds the
Session and publishes rulings to the journal, the announcer and the lights.
The consumer sleeps until the next event or the next moment a ruling can
become certain (a deadline plus the hold-back): no busy loops.

Faults never crash the table: a stuck pad, a lost camera, an unreadable card
or an impossible event is announced ("check the table") and, where a wrong
ruling could follow, judging pauses until the problem is gone or an operator
resolves it.

A table plays game after game on one runtime: `new_game()` swaps in the next
game's session while the sources and threads run on. A game's `time_limit_s`
is kept here: when it passes, a `time` event is judged and journaled like any other.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any, Callable, Sequence

from ..core.events import S, CardSeen, CardUnreadable, Event, TimeUp
from ..core.rulings import Ruling
from ..core.session import Session
from .ports import Announcer, EventSource, MemoryAnnouncer, Notice, RecordNotKept, Utterance, Watermark

log = logging.getLogger(__name__)

Clock = Callable[[], int]
RulingObserver = Callable[[Ruling], None]
GameListener = Callable[["TableRuntime"], None]

PAUSE_KINDS = {"camera_lost": "camera", "unreadable": "unreadable"}
RESUME_KINDS = {"camera_back": "camera"}
#: How long a slap waits for a camera behind the table to read past it: longer than a landing read on a
#: busy Pi, shorter than the 2 s without frames after which the camera is reported lost and judging pauses.
CAMERA_BEHIND_LIMIT_NS = 1_500_000_000


class TableRuntime:
    """Wires sources, the Session and the outputs. `start()`, then `wait_over()` or `stop()`."""

    def __init__(self, session: Session, *, sources: Sequence[EventSource] = (),
                 clock: Clock = time.monotonic_ns, announcer: Announcer | None = None,
                 observers: Sequence[RulingObserver] = (), recorder: Any = None,
                 amend_observers: Sequence[RulingObserver] = (),
                 speak_counts: bool = True, idle_wake_s: float = 0.5, started_ns: int | None = None,
                 quick_holdback_ns: int | None = None) -> None:
        """`recorder` (referee.journal.Recorder over this session) journals every event,
        advance and ruling as it happens; without one, nothing is kept. `started_ns`: when the
        game began, for its time limit (default: now). `quick_holdback_ns`: the hold-back once every
        watermarking source (the camera) has vouched for the time (see `referee_clock`); the session's
        own hold-back stays the bound for a source that falls behind."""
        self.sources = list(sources)
        self.clock = clock
        # a sped-up simulated table's clock says how long its ns take in real seconds (its `real_s`)
        self._real_s: Callable[[int], float] = getattr(clock, "real_s", None) or (lambda ns: ns / 1e9)
        self.announcer = announcer or MemoryAnnouncer()
        self.observers = list(observers)
        self.amend_observers = list(amend_observers)   # told when a published ruling changes (a late margin)
        self.game_listeners: list[GameListener] = []   # told after new_game() swapped in the next game
        self._speak_counts = speak_counts
        self.idle_wake_s = idle_wake_s
        self.inbox: queue.Queue[tuple[int, str, Event | Notice | None]] = queue.Queue()
        self.paused: set[str] = set()
        self.over = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._not_before: int | None = None            # events stamped earlier belong to the game before
        self.quick_holdback_ns = quick_holdback_ns
        self._watermarks: dict[str, int] = {}           # source -> its latest Watermark
        self._looked: dict[str, int] = {}               # source -> the newest frame it has read
        self._referee_now = 0
        self._set_game(session, recorder, self.clock() if started_ns is None else started_ns)

    def _set_game(self, session: Session, recorder: Any, started_ns: int) -> None:
        self.session = session
        self.game = session.game
        self.recorder = recorder
        self.game_no = None if recorder is None else recorder.game_no
        self.speak_counts = self._speak_counts and not self.game.opts.get("silent", False)
        self._open_margins: list[Ruling] = []          # wins_pile rulings whose runner-up is still awaited
        self._published = len(self.game.rulings)       # a resumed game's rulings were published before
        self._calls_spoken = len(self.game.calls)
        self._ended = self.game.over
        self._journal_fault: str | None = None          # the reason last announced for a journal that cannot be written
        self.started_ns = started_ns
        self.timed_out = False                          # the game ended on its time limit
        limit = self.game.opts.get("time_limit_s")
        self._time_up_ns = None if limit is None or self.game.over else started_ns + int(limit * S)

    # ---- life cycle ---------------------------------------------------------
    def start(self) -> "TableRuntime":
        for source in self.sources:
            t = threading.Thread(target=self._pump, args=(source,), name=f"source-{source.name}", daemon=True)
            t.start()
            self._threads.append(t)
        consumer = threading.Thread(target=self._consume, name="referee", daemon=True)
        consumer.start()
        self._threads.append(consumer)
        return self

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stop.set()
        self.inbox.put((self.clock(), "stop", None))
        for t in self._threads:
            t.join(timeout_s)
        for source in self.sources:
            try:
                source.close()
            except Exception:  # closing must never hide the result
                log.exception("closing %s", source.name)

    def wait_over(self, timeout_s: float | None = None) -> bool:
        return self.over.wait(timeout_s)

    def new_game(self, session: Session, recorder: Any = None) -> None:
        """Play `session`'s game from now on, with the same sources, outputs and threads.
        Events stamped before this moment still on their way belong to the old game and are dropped;
        a pause for a lost camera stays (the camera is no better for a new game), the others end."""
        with self._lock:
            now = self.clock()
            self._set_game(session, recorder, now)
            self._not_before = now
            self.paused.intersection_update(set(PAUSE_KINDS.values()) - {"unreadable"})
            self.over.clear()
        self.inbox.put((self.clock(), "", None))        # wake the consumer for the new game's deadlines
        for listener in list(self.game_listeners):
            try:
                listener(self)
            except Exception:
                log.exception("game listener failed")

    def finish_game(self) -> None:
        """End the current game where it stands (the operator starts another): what is held is judged and the
        journal closes the game with its standing."""
        with self._lock:
            if not self._ended:
                try:
                    if self.recorder is not None:
                        self.recorder.finish()
                    else:
                        self.session.finish()
                    self._ended = True
                except RecordNotKept as exc:
                    self._journal_failed(exc)
            self._publish()
        self.over.set()

    def __enter__(self) -> "TableRuntime":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- input ----------------------------------------------------------------
    def submit(self, item: Event | Notice, source: str = "api") -> None:
        """Hand in an event or notice from any thread (sources, the dashboard, tests)."""
        self.inbox.put((self.clock(), source, item))

    def _pump(self, source: EventSource) -> None:
        while not self._stop.is_set():
            try:
                items = source.poll(0.2)
            except Exception as exc:    # a failing source is a notice, never a crash
                self.inbox.put((self.clock(), source.name, Notice("check_table", f"{source.name} failed: {exc}")))
                return
            for item in items:
                self.inbox.put((self.clock(), source.name, item))

    # ---- the consumer -------------------------------------------------------
    def _consume(self) -> None:
        while not self._stop.is_set():
            try:
                arrival, source, item = self.inbox.get(timeout=self._sleep_s())
            except queue.Empty:
                item, source, arrival = None, "", self.clock()
            if source == "stop":
                break
            self.step(item, source, arrival, now_ns=self.clock())

    def step(self, item: Event | Notice | None, source: str, arrival_ns: int, *, now_ns: int) -> None:
        """Take one item (or none: time passed) and judge what became certain by `now_ns`.
        The consumer thread calls this; a simulation may call it directly on a virtual clock."""
        with self._lock:
            try:
                if isinstance(item, Watermark):
                    self._watermarks[source] = item.t_ns
                    if item.looked_ns is not None:
                        self._looked[source] = item.looked_ns
                    item = None
                arrival_ns, now_ns = self.referee_clock(arrival_ns), self.referee_clock(now_ns)
                if item is not None:
                    self._take(item, source, arrival_ns)
                self._check_time(now_ns)
                if not self.paused:
                    if self.recorder is not None:
                        self.recorder.advance(now_ns)
                    else:
                        self.session.advance(now_ns)
                self._publish()
            except RecordNotKept as exc:  # the journal cannot be written: judge nothing more, say why
                self._journal_failed(exc)
                self._publish()
            except Exception as exc:     # last line of defence: say so, keep the table alive
                log.exception("referee step failed")
                self._notice(Notice("check_table", f"internal error: {exc}"))
        if self.game.over and self.session.arbiter.peek_time() is None:
            self.over.set()

    def referee_clock(self, t_ns: int) -> int:
        """The time the session is told it is at `t_ns`. Its arbiter judges up to that minus its hold-back
        (the camera's worst latency). While the camera vouches for time up to its watermark, judging may
        run up to min(t - quick hold-back, watermark) instead: slaps wait for a card only while one is
        landing, never longer than the hold-back (a pile being taken away also opens a "landing", and must
        not hold every slap after it until the next card). The hold-back counts from the newest frame the
        camera has read, not from now: a camera behind the table (a busy CPU) holds a slap until it has read
        past it, up to CAMERA_BEHIND_LIMIT_NS; judged sooner, a card landed before the slap would be missed
        and the slap ruled on the pile below.
        Never backwards; the journal records these times, so a replay judges exactly as the table did."""
        holdback = self.session.arbiter.holdback_ns
        if not self._watermarks or self.quick_holdback_ns is None or holdback is None:
            return t_ns
        vouched = min(t_ns - self.quick_holdback_ns, min(self._watermarks.values()))
        bound = t_ns - holdback
        if self._looked:
            bound = max(min(t_ns, min(self._looked.values())) - holdback, t_ns - CAMERA_BEHIND_LIMIT_NS)
        self._referee_now = max(self._referee_now, max(vouched, bound) + holdback)
        return self._referee_now

    def next_wake_ns(self) -> int | None:
        """When judging could next change without a new event (deadline or held event + hold-back,
        or the time limit)."""
        if self.paused:
            return None
        times = [t for t in (self.game.next_deadline(), self.session.arbiter.peek_time()) if t is not None]
        due = min(times) + (self.session.arbiter.holdback_ns or 0) if times else None
        if self._time_up_ns is not None:
            due = self._time_up_ns if due is None else min(due, self._time_up_ns)
        return due

    def _check_time(self, now_ns: int) -> None:
        """The game's time limit passed: a `time` event, stamped then (or at the last judged moment, if later)."""
        if self._time_up_ns is None or now_ns < self._time_up_ns:
            return
        if self.game.over:
            self._time_up_ns = None
            return
        t_ns = max(self._time_up_ns, self.game.now)
        self._time_up_ns = None
        self.timed_out = True
        self._take(TimeUp(t_ns), "clock", now_ns)

    def _sleep_s(self) -> float:
        due = self.next_wake_ns()
        if due is None:
            return self.idle_wake_s
        holdback = self.session.arbiter.holdback_ns
        if self._watermarks and self.quick_holdback_ns is not None and holdback is not None:
            due -= max(0, holdback - self.quick_holdback_ns)     # the camera vouches: wake for the quick one
        return min(self.idle_wake_s, max(0.0, self._real_s(due - self.clock())))

    def _take(self, item: Event | Notice, source: str, arrival: int) -> None:
        if isinstance(item, Notice):
            self._notice(item)
            return
        if self._not_before is not None and item.t_ns < self._not_before:
            log.debug("dropped %r: it happened before this game began", item)
            return
        if isinstance(item, CardUnreadable):
            if self.recorder is not None:
                self.recorder.note(item, source, arrival)      # evidence only, never judged
            self._notice(Notice("unreadable", "Please straighten the card", t_ns=item.t_ns))
            return
        if isinstance(item, CardSeen) and "unreadable" in self.paused:
            self.paused.discard("unreadable")
        if self.paused:                                         # judged when the table is sound again
            if self.recorder is not None:
                self.recorder.hold(item, source, arrival)
            else:
                self.session.arbiter.push(item, None, arrival)
        elif self.recorder is not None:
            self.recorder.submit(item, source, arrival)
        else:
            self.session.submit(item, now_ns=arrival)

    def _notice(self, notice: Notice) -> None:
        if notice.kind == "camera_lost":
            self._watermarks.clear()                # a lost camera vouches for nothing
            self._looked.clear()
        if notice.kind in PAUSE_KINDS:
            self.paused.add(PAUSE_KINDS[notice.kind])
        if notice.kind in RESUME_KINDS:
            self.paused.discard(RESUME_KINDS[notice.kind])
        self.announcer.say(Utterance(notice.message, "alert", notice.t_ns))
        check = Ruling("check_table", notice.seat, notice.t_ns or self.game.now, notice.message,
                       {"problem": notice.kind})
        if notice.kind not in ("pad_ok", "camera_back"):
            for observer in self.observers:
                observer(check)

    def _journal_failed(self, exc: RecordNotKept) -> None:
        """Pause judging until the operator resumes (the recorder keeps what arrives meanwhile); say it once."""
        self.paused.add("journal")
        if self._journal_fault != exc.reason:
            self._journal_fault = exc.reason
            log.error("%s", exc)
            self._notice(Notice("check_table", exc.announcement))

    # ---- operator actions ---------------------------------------------------------
    def resume(self, reason: str | None = None) -> None:
        """The operator says the table is sound again (all pauses, or one)."""
        with self._lock:
            self._journal_fault = None
            if reason is None:
                self.paused.clear()
            else:
                self.paused.discard(reason)
        self.inbox.put((self.clock(), "operator", None))

    def correct_top(self, card: Any) -> None:
        """Operator: the top card is really `card`."""
        with self._lock:
            self.game.correct_top(card, self.game.now)
            self.paused.discard("operator")
            self._record_corrections()
            self._publish()

    def correct_hand(self, seat: int, count: int) -> None:
        """Operator: `seat` (0-based) holds `count` cards. A refusal names the seat as people count, from 1."""
        from ..core.rules.state import TableError
        with self._lock:
            seats = self.game.n
            if not 0 <= seat < seats:
                raise TableError(f"no seat {seat + 1} at this table: seats 1 to {seats}")
            if count < 0:
                raise TableError(f"seat {seat + 1} cannot hold {count} cards: a count is 0 or more")
            self.game.correct_hand(seat, count, self.game.now)
            self.paused.discard("operator")
            self._record_corrections()
            self._publish()

    def _record_corrections(self) -> None:
        if self.recorder is not None:
            try:
                self.recorder.sync()
            except RecordNotKept as exc:
                self._journal_failed(exc)

    # ---- output -----------------------------------------------------------------
    def _publish(self) -> None:
        """Announce and show every ruling made since the last call; tell live views of late margins."""
        rulings = self.game.rulings
        upto = len(rulings) if self.recorder is None else min(len(rulings), self.recorder.recorded)
        for ruling in rulings[self._published:upto]:   # never announce a ruling the journal does not hold
            if ruling.kind == "check_table" and not str(ruling.fields.get("problem", "")).startswith("corrected"):
                self.paused.add("operator")
            if ruling.say and ruling.kind != "ignored":
                self.announcer.say(Utterance(ruling.say, "ruling", ruling.t_ns))
            for observer in self.observers:
                observer(ruling)
            if ruling.kind == "wins_pile" and ruling.fields.get("margin_us") is None:
                self._open_margins = [*self._open_margins[-3:], ruling]
        self._published = max(self._published, upto)
        self._amended()
        if self.speak_counts:
            for t_ns, _rank, word in self.game.calls[self._calls_spoken:]:
                self.announcer.say(Utterance(f"{word}!", "count", t_ns))
        self._calls_spoken = len(self.game.calls)
        if self.game.over and self.recorder is not None and not self._ended:
            self._ended = True
            try:
                self.recorder.end_game(self.game.final())
            except RecordNotKept as exc:             # kept by the recorder, written when it can be
                self._journal_failed(exc)

    def _amended(self) -> None:
        """A runner-up's slap filled in a margin after the ruling went out: tell the live views."""
        filled = [r for r in self._open_margins if r.fields.get("margin_us") is not None]
        if filled:
            self._open_margins = [r for r in self._open_margins if r not in filled]
        for ruling in filled:
            for observer in self.amend_observers:
                observer(ruling)

"""The kiosk demo: game after game of all six, bots on a simulated table, every
card rendered and read by the real vision pipeline, simulated pads through the
real arbitration, the journal, the voice, and a live feed for the dashboard.

Visitors "beat the bots": a joined seat's slaps come from a key, a touch or a
real pad; their reaction times go into a high-score table in the journal file.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable

from referee.cards import Card
from referee.events import MS, S, Press, Slap
from referee.live import TableFeed
from referee.ports import SILENT_KEEP, MemoryAnnouncer
from referee.rules import GAMES
from referee.rulings import Ruling

from .simulated import HardwareSimTable, VisionSimTable


class StopGame(Exception):
    """Raised inside the paced simulation to end the current game early."""


def default_journal_path() -> Path:
    base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "tabletop"
    base.mkdir(parents=True, exist_ok=True)
    return base / "demo.db"


def speaker_announcer() -> Any:
    """The voice to the speaker when there is one (espeak-ng, aplay and a sound card), else silent."""
    cards = Path("/proc/asound/cards")
    has_card = cards.exists() and "no soundcards" not in cards.read_text(errors="ignore")
    if has_card and shutil.which("espeak-ng") and shutil.which("aplay"):
        try:
            from hardware.voice import EspeakAnnouncer
            return EspeakAnnouncer()
        except Exception:
            pass
    return MemoryAnnouncer(keep=SILENT_KEEP)


VISITOR_TIMES = 20  # reaction times kept per visitor at the table (their last 5 are shown)


class HighScores:
    """Visitors' best reaction times, kept in their own table in the journal's file."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        with sqlite3.connect(self.path) as db:
            db.execute("CREATE TABLE IF NOT EXISTS highscores (id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                       " game TEXT NOT NULL, ms REAL NOT NULL, at TEXT NOT NULL)")

    def add(self, name: str, game: str, ms: float) -> None:
        """Record a reaction time; only each name's best is kept (a kiosk runs for days, slap after slap)."""
        with sqlite3.connect(self.path) as db:
            db.execute("INSERT INTO highscores (name, game, ms, at) VALUES (?,?,?,?)",
                       (name, game, round(ms, 1), time.strftime("%Y-%m-%d %H:%M")))
            db.execute("DELETE FROM highscores WHERE name = ? AND id NOT IN"
                       " (SELECT id FROM highscores WHERE name = ? ORDER BY ms, id LIMIT 1)", (name, name))

    def best(self, limit: int = 10) -> list[dict[str, Any]]:
        with sqlite3.connect(self.path) as db:
            rows = db.execute("SELECT name, game, min(ms) FROM highscores GROUP BY name ORDER BY min(ms) LIMIT ?",
                              (limit,)).fetchall()
        return [{"name": n, "game": g, "ms": ms} for n, g, ms in rows]


class DemoTable:
    """Runs games in turn on a simulated table, paced to the wall clock (`speed`: virtual
    seconds per real second), publishing to `feed`. `headless`: no pacing, no frames."""

    def __init__(self, feed: TableFeed | None = None, *, games: int = 0, game: str | None = None,
                 players: int = 4, seed: int = 0, speed: float = 1.0, headless: bool = False,
                 vision: bool = True, journal_path: str | Path | None = None, keep_games: int = 20,
                 announcer: Any = None, on_ruling: Callable[[Ruling], None] | None = None,
                 on_game: Callable[[int, Any], None] | None = None) -> None:
        self.feed = feed or TableFeed()
        self.games, self.only, self.players, self.seed = games, game, players, seed
        self.speed, self.headless, self.vision = speed, headless, vision
        self.journal_path = Path(journal_path) if journal_path else default_journal_path()
        self.keep_games = keep_games
        self.journal: Any = None                    # opened on the thread that plays (sqlite3 is per-thread)
        self.scores: HighScores | None = None       # in the journal's file, once the journal exists
        self.announcer = announcer or (MemoryAnnouncer(keep=SILENT_KEEP) if headless else speaker_announcer())
        self.on_ruling, self.on_game = on_ruling, on_game
        self.played = 0
        self.table: HardwareSimTable | None = None
        self.visitors: dict[int, dict[str, Any]] = {}
        self._inbox: list[Any] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._paused = threading.Event()
        self._abort_game = False
        self._next_game: str | None = None
        self._thread: threading.Thread | None = None
        self._last_frame_wall = 0.0
        self._clock_origin: tuple[float, int] | None = None
        self._register_actions()

    # ---- running --------------------------------------------------------------------
    def start(self) -> "DemoTable":
        self._thread = threading.Thread(target=self.run, name="demo", daemon=True)
        self._thread.start()
        return self

    def use_pads(self, pads: Any) -> threading.Thread:
        """Real pads (a `hardware` PadSource) as visitors' pads: a slap on seat k's pad joins
        seat k and slaps for it; a press presses. Stamps follow the table's clock from here on."""
        def pump() -> None:
            while not self._stop.is_set():
                try:
                    pad_event = pads.get(timeout=0.2)
                except Exception:                     # queue.Empty, or the pads were closed
                    if getattr(pads, "closed", False):
                        return
                    continue
                event = pad_event.event
                if event.seat not in self.visitors:
                    try:
                        self.join(event.seat, name=f"Pad {event.seat + 1}")
                    except (LookupError, ValueError):
                        continue
                kind = "press" if isinstance(event, Press) else "slap"
                self._queue(kind, event.seat)
        thread = threading.Thread(target=pump, name="demo-pads", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()
        self._paused.clear()
        if self._thread is not None:
            self._thread.join(10)

    def next_game_id(self) -> str:
        if self._next_game:
            game, self._next_game = self._next_game, None
            return game
        order = [self.only] if self.only else list(GAMES)
        return order[self.played % len(order)]

    def run(self) -> int:
        from referee.journal import Journal
        self.journal = Journal(self.journal_path, keep_games=self.keep_games)
        self.scores = HighScores(self.journal_path)
        try:
            return self._play_games()
        finally:
            self.journal.close()

    def _play_games(self) -> int:
        while not self._stop.is_set() and (self.games <= 0 or self.played < self.games):
            game = self.next_game_id()
            players = 3 if game == "slapstick" else self.players
            seed = self.seed + self.played
            self._abort_game = False
            self._clock_origin = None
            observers = [self._ruled]
            cls = VisionSimTable if self.vision else HardwareSimTable
            extra: dict[str, Any] = {"on_frame": self._frame} if self.vision else {}
            table = cls(game, players, seed=seed, journal=self.journal, announcer=self.announcer,
                        pace=None if self.headless else self._pace, observers=observers, **extra)
            if self.headless:
                table.sim.pace = self._check_abort
            with self._lock:
                self.table = table
                table.sim.human_seats = set(self.visitors)
            self.feed.extra = {"game_no": self.played + 1, "visitors": sorted(self.visitors),
                               "highscores": self.best(5)}
            self.feed.attach(table.runtime)
            try:
                result = table.run()
            except StopGame:
                result = None
            finally:
                table.close()
            self.played += 1
            if self.on_game is not None:
                self.on_game(self.played, result)
        return 0

    # ---- pacing and inputs (called on the simulation's thread) ---------------------------
    def _virtual_now(self) -> int | None:
        if self._clock_origin is None:
            return None
        wall0, virt0 = self._clock_origin
        return virt0 + int((time.monotonic() - wall0) * self.speed * S)

    def _check_abort(self, virtual_ns: int) -> None:
        if self._stop.is_set() or self._abort_game:
            raise StopGame()

    def _pace(self, virtual_ns: int) -> None:
        self._check_abort(virtual_ns)
        while self._paused.is_set() and not self._stop.is_set():
            time.sleep(0.1)
            self._clock_origin = None
        if self._clock_origin is None:
            self._clock_origin = (time.monotonic(), virtual_ns)
        wall0, virt0 = self._clock_origin
        due = wall0 + (virtual_ns - virt0) / S / self.speed
        while True:
            self._drain_inbox()
            delay = due - time.monotonic()
            if delay <= 0:
                return
            time.sleep(min(delay, 0.02))
            self._check_abort(virtual_ns)

    def _drain_inbox(self) -> None:
        with self._lock:
            items, self._inbox = self._inbox, []
            table = self.table
        if table is None:
            return
        now = self._virtual_now()
        if now is None:
            return
        for kind, seat in items:
            event = Slap(seat, now) if kind == "slap" else Press(seat, now)
            table.sim.inject(event)
            if kind == "slap":
                self._reaction(seat, now)

    def _reaction(self, seat: int, t_ns: int) -> None:
        table = self.table
        if table is None:
            return
        w = table.runtime.game.window
        if w is None or w.decided or seat in w.slaps:
            return
        ms = (t_ns - w.opened_ns) / MS
        visitor = self.visitors.get(seat)
        if visitor is not None and 0 < ms < 5000:
            times = visitor.setdefault("times", [])
            times.append(round(ms, 1))
            del times[:-VISITOR_TIMES]  # a visitor sees their last few; one may stay all day
            if self.scores is not None:
                self.scores.add(visitor["name"], table.runtime.game.game_id, ms)
            self.feed.extra["highscores"] = self.best(5)

    def _ruled(self, ruling: Ruling) -> None:
        if self.on_ruling is not None:
            self.on_ruling(ruling)

    def _frame(self, frame: Any, t_ns: int, events: list[Any]) -> None:
        if self.headless or time.monotonic() - self._last_frame_wall < 0.15:
            return
        import cv2
        self._last_frame_wall = time.monotonic()
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 70])
        if not ok:
            return
        overlay: dict[str, Any] = {"width": frame.shape[1], "height": frame.shape[0]}
        table = self.table
        pile = getattr(table, "pile", None)
        game = table.runtime.game if table is not None else None
        if game is not None and game.pile:
            overlay["card"] = str(game.pile[-1].card)
            overlay["confidence"] = 1.0
        if pile is not None and getattr(pile, "last_placement", None) is not None:
            overlay["quad"] = pile.last_placement.quad().round(1).tolist()
        self.feed.set_frame(jpeg.tobytes(), overlay)

    # ---- visitor and operator actions (called from the web server's threads) ---------------
    def _register_actions(self) -> None:
        a = self.feed.actions
        a["join"] = self.join
        a["visitor_slap"] = lambda seat: self._queue("slap", int(seat))
        a["visitor_press"] = lambda seat: self._queue("press", int(seat))
        a["highscores"] = lambda: self.best(10)
        a["pause"] = lambda: self._paused.set()
        a["resume"] = self.resume
        a["new_game"] = self.new_game
        a["change_game"] = self.change_game
        a["correct_card"] = self.correct_card
        a["set_hand"] = self.set_hand

    def best(self, limit: int) -> list[dict[str, Any]]:
        return self.scores.best(limit) if self.scores is not None else []

    def join(self, seat: int | None = None, name: str | None = None) -> dict[str, Any]:
        with self._lock:
            players = self.table.runtime.game.n if self.table is not None else self.players
            free = [s for s in range(players) if s not in self.visitors]
            if seat is None:
                if not free:
                    raise LookupError("every seat already has a visitor")
                seat = free[0]
            if not 0 <= int(seat) < players:
                raise ValueError(f"seat {seat} is not at this table")
            seat = int(seat)
            self.visitors[seat] = {"name": name or f"Visitor {seat + 1}", "times": []}
            if self.table is not None:
                self.table.sim.human_seats.add(seat)
        self.feed.extra["visitors"] = sorted(self.visitors)
        return {"seat": seat}

    def _queue(self, kind: str, seat: int) -> dict[str, Any]:
        if seat not in self.visitors:
            raise LookupError(f"seat {seat} has not joined")
        with self._lock:
            self._inbox.append((kind, seat))
        return {"ok": True, "times": self.visitors[seat]["times"][-5:]}

    def resume(self) -> None:
        self._paused.clear()
        if self.table is not None:
            self.table.runtime.resume()

    def new_game(self) -> None:
        self._abort_game = True
        self._paused.clear()

    def change_game(self, game: str) -> None:
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}")
        self._next_game = game
        self.new_game()

    def correct_card(self, card: str) -> None:
        table = self.table
        if table is None:
            raise LookupError("no game running")
        table.runtime.correct_top(Card.parse(card))

    def set_hand(self, seat: int, cards: int) -> None:
        table = self.table
        if table is None:
            raise LookupError("no game running")
        table.runtime.correct_hand(int(seat), int(cards))

""""Beat the bots": visitors at a simulated table take a seat, slap from the dashboard or a real pad,
and their winning reaction times go into a high-score table kept in the journal's file.

A reaction time is a high score only when the referee's ruling says the visitor beat the bots: they took
the pile (`wins_pile` to their seat), or, where the last slapper picks up, theirs was the first slap. A lost
slap, a false slap or a slap too slow never enters the table; the time recorded is the ruling's own (first
contact minus the card's stamp), the time the page shows as "WON in N ms"."""
from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from hardware.pad_events import PadEvent
from referee.core.events import MS, Press
from referee.core.rulings import Ruling

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


def winning_ms(ruling: Ruling, seat: int) -> float | None:
    """`seat`'s reaction time in ms if `ruling` says that seat's slap beat every other (None otherwise):
    the pile won by that seat, or the first slap where the last slapper picks up."""
    slaps, card_t = ruling.evidence.get("slaps"), ruling.evidence.get("card_t_ns")
    if not slaps or card_t is None or seat not in slaps:
        return None
    mine = slaps[seat]
    if ruling.kind == "wins_pile":
        won = ruling.seat == seat
    elif ruling.kind == "picks_up":
        won = ruling.seat != seat and all(mine < t for other, t in slaps.items() if other != seat)
    else:
        return None
    return (mine - card_t) / MS if won and mine >= card_t else None


class Kiosk:
    """Visitors at a bots table: `join` a seat (the bots leave its slaps to them), `slap`, `press`, `highscores`.
    `extra` is the dashboard's extra state (visitors, high scores), updated as they play."""

    def __init__(self, table: Any, journal_path: str | Path | None) -> None:
        self.table = table
        self.bots = table.bots
        self.scores = HighScores(journal_path) if journal_path else None
        self.visitors: dict[int, dict[str, Any]] = {}
        self.extra: dict[str, Any] = {"visitors": [], "highscores": self.best(5)}
        self._lock = threading.Lock()
        observers = getattr(getattr(table, "runtime", None), "observers", None)
        if isinstance(observers, list):          # the runtime outlives each game: one observer for all
            observers.append(self.on_ruling)

    def actions(self) -> dict[str, Any]:
        """The dashboard's visitor actions (no PIN: anyone at the stand may play)."""
        return {"join": self.join, "visitor_slap": lambda seat: self.slap(int(seat)),
                "visitor_press": lambda seat: self.press(int(seat)), "highscores": lambda: self.best(10)}

    def best(self, limit: int) -> list[dict[str, Any]]:
        return self.scores.best(limit) if self.scores is not None else []

    def join(self, seat: int | None = None, name: str | None = None) -> dict[str, Any]:
        with self._lock:
            game = self.table.runtime.game
            players = game.n
            free = [s for s in range(players) if s not in self.visitors]
            if seat is None:
                if not free:
                    raise LookupError("every seat already has a visitor")
                seat = next((s for s in free if self._playing(game, s)), free[0])
            if not 0 <= int(seat) < players:
                raise ValueError(f"no seat {int(seat) + 1} at this table: seats 1 to {players}")
            seat = int(seat)
            self.visitors[seat] = {"name": name or f"Visitor {seat + 1}", "times": []}
            self.bots.visitors.add(seat)
            self.extra["visitors"] = sorted(self.visitors)
        return {"seat": seat}

    @staticmethod
    def _playing(game: Any, seat: int) -> bool:
        """A seat still in the game with cards to play: a visitor seated there has slaps that count."""
        hands, status = getattr(game, "hands", None), getattr(game, "status", None)
        if hands is None or status is None:
            return True
        return bool(hands[seat]) and status[seat] == "in"

    def slap(self, seat: int) -> dict[str, Any]:
        visitor = self._visitor(seat)
        ms = self.bots.visitor_slap(seat)
        if ms is not None:
            times = visitor["times"]
            times.append(round(ms, 1))
            del times[:-VISITOR_TIMES]           # a visitor sees their last few; one may stay all day
        return {"ok": True, "times": visitor["times"][-5:]}

    def on_ruling(self, ruling: Ruling) -> None:
        """A ruling from the table: a visitor who beat the bots on it has their reaction time entered."""
        with self._lock:
            winners = [(seat, ms) for seat in self.visitors if (ms := winning_ms(ruling, seat)) is not None]
            names = {seat: self.visitors[seat]["name"] for seat, _ in winners}
        if not winners:
            return
        game = getattr(getattr(self.table.runtime, "game", None), "game_id", "")
        for seat, ms in winners:
            if self.scores is not None:
                self.scores.add(names[seat], game, ms)
        self.extra["highscores"] = self.best(5)

    def press(self, seat: int) -> dict[str, Any]:
        visitor = self._visitor(seat)
        self.bots.visitor_press(seat)
        return {"ok": True, "times": visitor["times"][-5:]}

    def _visitor(self, seat: int) -> dict[str, Any]:
        visitor = self.visitors.get(seat)
        if visitor is None:
            raise LookupError(f"seat {seat + 1} has no visitor: join first")
        return visitor

    def use_pads(self, pads: Any, stop: threading.Event) -> threading.Thread:
        """Real pads (a `hardware` PadSource) as visitors' pads: a slap on seat k's pad joins seat k and slaps
        for it there and then (on the table's clock); a press presses."""
        def pump() -> None:
            while not stop.is_set():
                try:
                    pad_event: PadEvent = pads.get(timeout=0.2)
                except Exception:                     # queue.Empty, or the pads were closed
                    if getattr(pads, "closed", False):
                        return
                    continue
                event = pad_event.event
                try:
                    if event.seat not in self.visitors:
                        self.join(event.seat, name=f"Pad {event.seat + 1}")
                    self.press(event.seat) if isinstance(event, Press) else self.slap(event.seat)
                except (LookupError, ValueError):
                    continue
        thread = threading.Thread(target=pump, name="visitor-pads", daemon=True)
        thread.start()
        return thread

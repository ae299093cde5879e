"""A simulated table behind a `TableFeed`, for the dashboard's tests and screenshots.

Bots play through the real Session and TableRuntime on a virtual clock (as in
`tabletop.simulated`, minus hardware), so the page shows real rulings and
timelines. The operator and visitor handlers here are stand-ins that record
their calls and do the obvious thing (pause, a visitor's slap); the demo
table registers the real ones.
"""
from __future__ import annotations

import random
import threading
import time
from typing import Any, Callable

from ..core.cards import Card
from ..core.events import MS, S, Event, Press, Slap
from ..table.live import TableFeed
from ..table.runtime import TableRuntime
from ..core.session import Session
from ..sim.table import SimTable

HOLDBACK_MS = 120.0


class Stopped(Exception):
    """Raised inside the simulation's pacer to end a run early."""


class StageTable:
    """Bots play `game`; `feed` publishes it; `calls` lists every handler call (name, params)."""

    def __init__(self, game: str = "irish-snap", players: int = 4, *, seed: int = 1, pin: str = "2468",
                 journal: Any = None, names: list[str] | None = None,
                 options: dict[str, Any] | None = None) -> None:
        self.now = 0
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.visitors: dict[int, list[int]] = {}
        options = {"margin_wait_ms": 120, **(options or {})}
        holdback = int(HOLDBACK_MS * MS)
        recorder = None
        if journal is not None:
            from ..journal import Recorder
            recorder = Recorder.start(journal, game, players, seed=seed, options=options, strict=False,
                                      holdback_ns=holdback, names=names, config={"simulated": True})
            session = recorder.session
        else:
            session = Session.create(game, players, seed=seed, options=options, strict=False,
                                     holdback_ns=holdback, names=names)
        self.session = session
        self.runtime = TableRuntime(session, clock=lambda: self.now, recorder=recorder)
        self.feed = TableFeed(self.runtime, operator_pin=pin)
        self.sim = SimTable(game, players, seed=seed, session=session, deliver=self._deliver,
                            advance=self._advance, pace=self._pace)
        self._until: Callable[[], bool] | None = None
        self._speed: float | None = None
        self._stop = threading.Event()
        self._origin: tuple[int, float] | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.RLock()
        self._register()

    # ---- the simulation --------------------------------------------------------------------
    def _deliver(self, event: Event, arrival: int) -> None:
        with self._lock:
            self.now = max(self.now, arrival)
            self.runtime.step(event, "sim", arrival, now_ns=arrival)

    def _advance(self, now: int) -> None:
        with self._lock:
            self.now = max(self.now, now)
            self.runtime.step(None, "", now, now_ns=now)

    def _pace(self, virtual_ns: int) -> None:
        if self._stop.is_set() or (self._until is not None and self._until()):
            raise Stopped
        if self._speed:
            if self._origin is None:
                self._origin = (virtual_ns, time.monotonic())
            due = self._origin[1] + (virtual_ns - self._origin[0]) / S / self._speed
            delay = due - time.monotonic()
            if delay > 0:
                self._stop.wait(min(delay, 1.0))

    def play(self, until: Callable[[], bool] | None = None, speed: float | None = None) -> bool:
        """Run the game (to its end, or until `until()` holds); True if it stopped early. Runs once."""
        self._until, self._speed = until, speed
        try:
            self.sim.run()
        except Stopped:
            return True
        self._advance(self.now + int(HOLDBACK_MS * MS) + 1)
        return False

    def start(self, speed: float = 4.0) -> "StageTable":
        """Play in a background thread at `speed` virtual seconds per real second."""
        self._thread = threading.Thread(target=self.play, kwargs={"speed": speed}, name="stage", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)

    def rulings(self, kind: str | None = None) -> list[Any]:
        return [r for r in self.session.rulings if kind is None or r.kind == kind]

    # ---- stand-in handlers ---------------------------------------------------------------------
    def _register(self) -> None:
        def record(name: str, fn: Callable[..., Any]) -> None:
            def handler(**params: Any) -> Any:
                self.calls.append((name, params))
                return fn(**params)
            self.feed.actions[name] = handler

        record("pause", lambda: self.runtime.paused.add("operator"))
        record("resume", lambda: self.runtime.resume())
        record("new_game", lambda: "new game requested")
        record("change_game", self._change_game)
        record("correct_card", lambda card: str(Card.parse(card)))
        record("set_hand", self._set_hand)
        record("join", self._join)
        record("visitor_slap", lambda seat: self._visitor(Slap, seat))
        record("visitor_press", lambda seat: self._visitor(Press, seat))
        record("highscores", self.highscores)

    def _change_game(self, game: str) -> str:
        from ..core.rules import GAMES
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}")
        self.feed.extra["next_game"] = game
        return game

    def _set_hand(self, seat: int, cards: int) -> dict[str, int]:
        if not 0 <= int(seat) < self.session.game.n or int(cards) < 0:
            raise ValueError("no such seat or a negative count")
        return {"seat": int(seat), "cards": int(cards)}

    def _join(self, seat: int | None = None) -> int:
        seat = 0 if seat is None else int(seat)
        if not 0 <= seat < self.session.game.n:
            raise ValueError(f"no seat {seat + 1} at this table: seats 1 to {self.session.game.n}")
        self.visitors.setdefault(seat, [])
        return seat

    def _visitor(self, kind: type, seat: int) -> dict[str, Any]:
        seat = int(seat)
        if seat not in self.visitors:
            raise ValueError(f"seat {seat + 1} has no visitor: join first")
        with self._lock:
            t = self.now + 1
            self.runtime.step(kind(seat, t), "visitor", t, now_ns=t)
        return {"seat": seat, "t_us": t // 1000}

    def highscores(self) -> list[dict[str, Any]]:
        return [{"name": "Ada", "ms": 187}, {"name": "Bots' best", "ms": 241}, {"name": "Sam", "ms": 263}]

    # ---- a camera frame -----------------------------------------------------------------------
    def show_frame(self, card: str | None = None, *, seed: int = 0) -> dict[str, Any]:
        """Render the top card on a table (OpenCV), publish it as the camera frame with its outline."""
        import cv2

        from ..vision import render
        top = card or (str(self.session.game.pile[-1].card) if self.session.game.pile else "JS")
        rng = random.Random(seed)
        import numpy as np
        noise = np.random.default_rng(seed).normal(0, 6, (480, 640, 1))
        img = np.clip(np.array([48, 112, 40], np.float32) + noise, 0, 255).astype(np.uint8)   # green felt
        place = render.Placement(Card.parse(top), (330.0, 235.0), 190.0, 12.0)
        render.composite(img, place, rng=rng)
        ok, jpeg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
        assert ok
        quad = [[round(float(x), 1), round(float(y), 1)] for x, y in place.quad()]
        overlay = {"card": top, "confidence": 0.97, "center": [330.0, 235.0], "quad": quad,
                   "width": img.shape[1], "height": img.shape[0]}
        overlay["seq"] = self.feed.set_frame(jpeg.tobytes(), overlay, self.now)
        return overlay

    def next_game(self, game: str | None = None, *, seed: int = 2) -> Session:
        """Swap in a new game (not played by the bots): what the page sees when the table starts its next one."""
        session = Session.create(game or self.session.game.game_id, self.session.game.n, seed=seed, strict=False,
                                 holdback_ns=int(HOLDBACK_MS * MS), names=self.session.game.names)
        with self._lock:
            self.runtime.new_game(session)
        return session


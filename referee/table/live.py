"""What a live view (the dashboard) sees of a table: state snapshots and a stream of updates.

`TableFeed` observes a runtime's rulings and publishes JSON-ready messages to
any number of subscribers (each a bounded queue: a slow browser drops old
updates instead of slowing the referee). Every message says what it is
(`type`), where it stands in the stream (`seq`) and which game it belongs to
(`game_seq`, one more at each new game), so a page never shows one game's
ruling over the next. Camera frames are numbered and the last few kept, so a
page shows each frame with what vision read on that very frame. Operator
actions go through the feed too, checked against the operator PIN.
"""
from __future__ import annotations

import hmac
import queue
import threading
from collections import deque
from typing import Any, Callable

from .live_words import headline, how_to_play, standings
from ..core.rules import GAMES
from ..core.rules.base import Game
from ..core.rulings import Ruling
from .runtime import TableRuntime

SLAP_KINDS = {"wins_pile", "picks_up", "slap_again"}
FRAMES_KEPT = 8              # frames a page may still ask for by number (it asks for the newest it was told of)


class OperatorDenied(PermissionError):
    """An operator action without the right PIN."""


def ruling_message(ruling: Ruling, names: list[str] | None = None) -> dict[str, Any]:
    """A ruling for the page: its headline (who, what and why), and its slap timeline (µs relative to the
    card) when it has one."""
    out = ruling.to_json()
    out["headline"] = headline(ruling.kind, ruling.seat, ruling.fields, names, ruling.say)
    evidence = ruling.evidence
    if evidence.get("slaps") is not None and evidence.get("card_t_ns") is not None:
        card_t = evidence["card_t_ns"]
        out["timeline"] = sorted(({"seat": seat, "us": (t - card_t) // 1000} for seat, t in evidence["slaps"].items()),
                                 key=lambda x: x["us"])
        out["required"] = evidence.get("required")
    return out


class TableFeed:
    """Snapshots and pushed updates of one table, game after game."""

    def __init__(self, runtime: TableRuntime | None = None, *, operator_pin: str = "", history: int = 30,
                 names: list[str] | None = None) -> None:
        self.operator_pin = operator_pin
        self.names = names
        self._subscribers: list[queue.Queue[dict[str, Any]]] = []
        self._lock = threading.Lock()
        self.recent: deque[dict[str, Any]] = deque(maxlen=history)
        self.frame_jpeg: bytes | None = None
        self.frame_overlay: dict[str, Any] | None = None
        self.frames: deque[tuple[int, bytes]] = deque(maxlen=FRAMES_KEPT)
        self.frame_seq = 0
        self.game_seq = 0
        self._seq = 0
        self.actions: dict[str, Callable[..., Any]] = {}
        self.runtime: TableRuntime | None = None
        self.extra: dict[str, Any] = {}
        if runtime is not None:
            self.attach(runtime)

    # ---- wiring -------------------------------------------------------------
    def attach(self, runtime: TableRuntime) -> None:
        """Follow a runtime: its rulings are published from now on, and each new game it starts
        (the page clears its rulings then). Attaching the same runtime again changes nothing."""
        if runtime is not self.runtime:
            self.runtime = runtime
            runtime.observers.append(self.on_ruling)
            runtime.amend_observers.append(self.on_amend)
            runtime.game_listeners.append(self.on_new_game)
        self.publish({"type": "state", "state": self.snapshot()})

    def on_new_game(self, runtime: TableRuntime) -> None:
        """The table started its next game: its rulings so far (none) replace the last game's."""
        with self._lock:
            self.recent.clear()
            self.game_seq += 1
        self.publish({"type": "state", "state": self.snapshot(), "recent": []})

    def on_ruling(self, ruling: Ruling) -> None:
        if ruling.kind == "ignored":
            return
        message = ruling_message(ruling, self._names())
        with self._lock:
            self.recent.append(message)
        self.publish({"type": "ruling", "ruling": message, "state": self.snapshot()})

    def on_amend(self, ruling: Ruling) -> None:
        """A published ruling changed (its margin arrived): replace it on the page."""
        message = ruling_message(ruling, self._names())
        with self._lock:
            for i, old in enumerate(self.recent):
                if old.get("t_us") == message["t_us"] and old.get("kind") == message["kind"]:
                    self.recent[i] = message
        self.publish({"type": "ruling", "ruling": message, "amended": True, "state": self.snapshot()})

    def set_frame(self, jpeg: bytes, overlay: dict[str, Any] | None = None, t_ns: int | None = None) -> int:
        """The latest camera frame (JPEG) captured at `t_ns`, and what vision read on that frame (`overlay`:
        card, confidence, quad, or `reading`); returns the frame's number (`/frame.jpg?seq=N` serves it)."""
        with self._lock:
            self.frame_seq += 1
            seq = self.frame_seq
            self.frames.append((seq, jpeg))
        overlay = {**(overlay or {}), "seq": seq}
        if t_ns is not None:
            overlay["t_us"] = t_ns // 1000
        self.frame_jpeg = jpeg
        self.frame_overlay = overlay
        self.publish({"type": "frame", "overlay": overlay})
        return seq

    def frame(self, seq: int | None = None) -> bytes | None:
        """Frame number `seq` while it is kept (None once it is not), or the newest frame."""
        if seq is None:
            return self.frame_jpeg
        with self._lock:
            return next((jpeg for n, jpeg in self.frames if n == seq), None)

    # ---- subscribers --------------------------------------------------------
    def subscribe(self, maxsize: int = 100) -> queue.Queue[dict[str, Any]]:
        q: queue.Queue[dict[str, Any]] = queue.Queue(maxsize)
        with self._lock:
            self._subscribers.append(q)
        q.put({"type": "state", "state": self.snapshot(), "recent": list(self.recent), "seq": self._seq,
               "game_seq": self.game_seq})
        return q

    def unsubscribe(self, q: queue.Queue[dict[str, Any]]) -> None:
        with self._lock:
            if q in self._subscribers:
                self._subscribers.remove(q)

    def publish(self, message: dict[str, Any]) -> None:
        """Send `message` to every viewer, numbered in the stream and stamped with its game."""
        with self._lock:
            self._seq += 1
            message = {**message, "seq": self._seq, "game_seq": self.game_seq}
            subscribers = list(self._subscribers)
        for q in subscribers:
            try:
                q.put_nowait(message)
            except queue.Full:              # a stalled viewer loses old updates, never slows the table
                try:
                    q.get_nowait()
                    q.put_nowait(message)
                except (queue.Empty, queue.Full):
                    pass

    # ---- state ----------------------------------------------------------------
    def _names(self) -> list[str] | None:
        runtime = self.runtime
        return self.names or (runtime.game.names if runtime is not None else None) or None

    def snapshot(self) -> dict[str, Any]:
        """The table as a page shows it: seats, pile, count or target, how to play, paused, over."""
        runtime = self.runtime
        if runtime is None:
            return {"game": None, "operator": bool(self.operator_pin), "game_seq": self.game_seq}
        game = runtime.game
        top = game.pile[-1].card if game.pile else None
        names = self.names or game.names or [f"Player {s + 1}" for s in range(game.n)]
        state: dict[str, Any] = {
            "game": game.game_id, "title": GAMES[game.game_id].title if game.game_id in GAMES else game.game_id,
            "players": [{"seat": s, "name": names[s] if s < len(names) else f"Player {s + 1}",
                         "cards": len(game.hands[s]), "status": game.status[s],
                         "scoring": len(game.scoring[s]), "penalty": len(game.penalty[s]),
                         "turn": game.turn == s} for s in range(game.n)],
            "pile": len(game.pile), "top": None if top is None else str(top),
            "over": game.over, "winner": game.winner, "loser": game.loser,
            "paused": sorted(runtime.paused),
            "operator": bool(self.operator_pin), "game_seq": self.game_seq,
            "presses": type(game).on_press is not Game.on_press,        # a press means something in this game
        }
        if game.calls:
            state["call"] = game.calls[-1][2]
        final = game.final()
        for key in ("target", "round", "totals"):
            value = final.get(key)
            if value is not None:
                state[key] = value
        state["howto"] = how_to_play(game.game_id, state.get("call"), state.get("target"))
        if game.over:
            state["standings"] = standings(game.game_id, state["players"], game.winner, game.loser,
                                           state.get("totals"))
        state.update(self.extra)
        return state

    # ---- operator actions -----------------------------------------------------------
    def check_pin(self, pin: str) -> None:
        # bytes: compare_digest refuses str with non-ASCII characters (a TypeError, not a denial)
        if not self.operator_pin or not hmac.compare_digest(str(pin).encode(), self.operator_pin.encode()):
            raise OperatorDenied("operator PIN required")

    def operate(self, action: str, pin: str, **params: Any) -> Any:
        """Run a registered operator action (pause, resume, new_game, ...) if the PIN is right."""
        self.check_pin(pin)
        handler = self.actions.get(action)
        if handler is None:
            raise KeyError(f"unknown operator action {action!r} (known: {', '.join(sorted(self.actions))})")
        result = handler(**params)
        self.publish({"type": "state", "state": self.snapshot()})
        return result

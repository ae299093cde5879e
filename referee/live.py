"""What a live view (the dashboard) sees of a table: state snapshots and a stream of updates.

`TableFeed` observes a runtime's rulings and publishes JSON-ready messages to
any number of subscribers (each a bounded queue: a slow browser drops old
updates instead of slowing the referee). Operator actions go through it too,
checked against the operator PIN.
"""
from __future__ import annotations

import hmac
import queue
import threading
from collections import deque
from typing import Any, Callable

from .rules import GAMES
from .rulings import Ruling
from .runtime import TableRuntime

SLAP_KINDS = {"wins_pile", "picks_up", "slap_again"}


class OperatorDenied(PermissionError):
    """An operator action without the right PIN."""


def ruling_message(ruling: Ruling, names: list[str] | None = None) -> dict[str, Any]:
    """A ruling for the page, with its slap timeline (µs relative to the card) when it has one."""
    out = ruling.to_json()
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
        self.publish({"type": "state", "state": self.snapshot(), "recent": []})

    def on_ruling(self, ruling: Ruling) -> None:
        if ruling.kind == "ignored":
            return
        message = ruling_message(ruling, self.names)
        with self._lock:
            self.recent.append(message)
        self.publish({"type": "ruling", "ruling": message, "state": self.snapshot()})

    def on_amend(self, ruling: Ruling) -> None:
        """A published ruling changed (its margin arrived): replace it on the page."""
        message = ruling_message(ruling, self.names)
        with self._lock:
            for i, old in enumerate(self.recent):
                if old.get("t_us") == message["t_us"] and old.get("kind") == message["kind"]:
                    self.recent[i] = message
        self.publish({"type": "ruling", "ruling": message, "amended": True, "state": self.snapshot()})

    def set_frame(self, jpeg: bytes, overlay: dict[str, Any] | None = None) -> None:
        """The latest camera frame (JPEG) and what vision made of it (quad, card name)."""
        self.frame_jpeg = jpeg
        self.frame_overlay = overlay
        self.publish({"type": "frame", "overlay": overlay})

    # ---- subscribers --------------------------------------------------------
    def subscribe(self, maxsize: int = 100) -> queue.Queue[dict[str, Any]]:
        q: queue.Queue[dict[str, Any]] = queue.Queue(maxsize)
        with self._lock:
            self._subscribers.append(q)
        q.put({"type": "state", "state": self.snapshot(), "recent": list(self.recent)})
        return q

    def unsubscribe(self, q: queue.Queue[dict[str, Any]]) -> None:
        with self._lock:
            if q in self._subscribers:
                self._subscribers.remove(q)

    def publish(self, message: dict[str, Any]) -> None:
        with self._lock:
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
    def snapshot(self) -> dict[str, Any]:
        runtime = self.runtime
        if runtime is None:
            return {"game": None}
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
        }
        if game.calls:
            state["call"] = game.calls[-1][2]
        final = game.final()
        for key in ("target", "round", "totals"):
            value = final.get(key)
            if value is not None:
                state[key] = value
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

"""The camera's vision pipeline at a table that plays game after game, told what the referee decided."""
from __future__ import annotations

import threading
from typing import Any, Callable

from referee.core.events import CardSeen, CardUnreadable, PileCleared
from referee.core.rulings import Ruling


class GamePipeline:
    """The vision pipeline of a table that plays game after game. It forgets the pile when a game starts, on
    the camera's own thread, at the first frame captured since (a frame from before still shows the old pile).
    And when the referee has given the pile away, the next change the camera cannot name is the pile being
    taken, not a card: it is reported as the pile cleared, and the cards that lay there are forgotten (a card
    picked up comes back later and must then be read as new)."""

    def __init__(self, pipeline: Any) -> None:
        self.pipeline = pipeline
        self._reset_at: int | None = None
        self._taken = False
        self._lock = threading.Lock()
        self.readers: list[Callable[[Any, int, list[Any]], None]] = []   # told each frame with what was read on it

    def reset_from(self, t_ns: int) -> None:
        with self._lock:
            self._reset_at, self._taken = t_ns, False

    def pile_taken(self) -> None:
        with self._lock:
            self._taken = True

    def __call__(self, ruling: Ruling, game: Any) -> None:
        """A runtime observer: a ruling that left the referee's pile empty gave it away."""
        if ruling.kind != "ignored" and not game.pile:
            self.pile_taken()

    def __getattr__(self, name: str) -> Any:
        """Anything else is the pipeline's own (what it is waiting for, what it saw)."""
        pipeline = self.__dict__.get("pipeline")
        if pipeline is None:
            raise AttributeError(name)
        return getattr(pipeline, name)

    def feed(self, frame: Any, t_ns: int, *more: Any) -> list[Any]:
        """`more`: whatever else the pipeline reads with a frame (the camera's full-resolution frame)."""
        with self._lock:
            due = self._reset_at is not None and t_ns >= self._reset_at
            if due:
                self._reset_at = None
        if due:
            self.pipeline.reset()
        events = self.pipeline.feed(frame, t_ns, *more)
        if events and self._taken:
            events = self._swept(events)
        for reader in list(self.readers):   # evidence, the dashboard
            reader(frame, t_ns, events)
        return events

    def _swept(self, events: list[Any]) -> list[Any]:
        with self._lock:
            self._taken = False
        on_pile = getattr(self.pipeline, "on_pile", None)
        seen = [e.card for e in events if isinstance(e, CardSeen)]
        if on_pile is not None:
            on_pile.clear()
            on_pile.update(seen)
        if seen or any(isinstance(e, PileCleared) for e in events):
            return events
        return [PileCleared(e.t_ns) if isinstance(e, CardUnreadable) else e for e in events]

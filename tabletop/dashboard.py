"""The dashboard of a running table: its live feed, the operator's actions behind the PIN, the camera view,
and (at a bots table) the visitors' "beat the bots" actions."""
from __future__ import annotations

import logging
import time
from typing import Any

from referee.core.cards import Card
from referee.core.events import CardSeen, CardUnreadable, PileCleared
from referee.table.live import TableFeed

from .game_setup import GamePlan

FRAME_EVERY_S = 0.15          # the page's camera view: a JPEG this often while the reading holds (real seconds)

log = logging.getLogger(__name__)


class TableControls:
    """The operator's actions on a running table: pause, resume, new game, change game, correct card, set hand."""

    def __init__(self, table: Any, plan: GamePlan) -> None:
        self.table, self.plan = table, plan

    def actions(self) -> dict[str, Any]:
        return {"pause": self.pause, "resume": self.resume, "new_game": self.new_game,
                "change_game": self.change_game, "correct_card": self.correct_card, "set_hand": self.set_hand}

    def pause(self) -> None:
        if self.table.bots is not None:
            self.table.bots.held = True          # the players wait too
        self.table.runtime.paused.add("operator")

    def resume(self) -> None:
        if self.table.bots is not None:
            self.table.bots.held = False
        self.table.runtime.resume()

    def new_game(self) -> None:
        """End this game where it stands (journaled as it stands) and deal the same game again: "New game"
        means this game afresh, not the next one in the demo's rotation."""
        self.plan.choose(self.table.runtime.game.game_id)
        self._finish()

    def change_game(self, game: str) -> None:
        """End this game and play `game` next."""
        self.plan.choose(game)
        self._finish()

    def _finish(self) -> None:
        self.resume()
        self.table.runtime.finish_game()

    def correct_card(self, card: str) -> None:
        self.table.runtime.correct_top(Card.parse(card))

    def set_hand(self, seat: int, cards: int) -> None:
        self.table.runtime.correct_hand(int(seat), int(cards))


class FramePublisher:
    """Camera frames to the page as JPEGs, each with what vision read on that very frame.

    It is told each frame after the vision pipeline has read it (`GamePipeline.readers`), so the overlay is
    the camera's reading, never the game's state: the card named last (with its confidence and when it
    landed), `reading` while a landing is being read, `unreadable` when one could not be named, nothing once
    the pile is cleared or a new game begins. A frame goes out a few times a second, and at once whenever
    the reading changes, so the label never waits behind the picture."""

    def __init__(self, feed: TableFeed, table: Any) -> None:
        self.feed, self.table = feed, table
        self._last = 0.0
        self._named: dict[str, Any] | None = None
        self._shown: Any = None

    def new_game(self, _runtime: Any = None) -> None:
        """The pipeline forgets the pile at a new game: so does the label."""
        self._named = None

    def on_read(self, frame: Any, t_ns: int, events: list[Any]) -> None:
        """A pipeline hook on the camera's thread: it must never raise into the camera loop."""
        try:
            self._on_read(frame, t_ns, events)
        except Exception:
            log.exception("dashboard frame")

    def reading(self, t_ns: int, events: list[Any]) -> dict[str, Any]:
        """What vision has read as of the frame captured at `t_ns` (its `events` included)."""
        for event in events:
            if isinstance(event, CardSeen):
                self._named = {"card": str(event.card), "confidence": round(float(event.confidence), 3),
                               "landed_t_us": event.t_ns // 1000, "named_t_us": t_ns // 1000}
            elif isinstance(event, CardUnreadable):
                self._named = {"unreadable": True, "landed_t_us": event.t_ns // 1000}
            elif isinstance(event, PileCleared):
                self._named = None
        if getattr(self.table.pipeline, "pending_since", None) is not None:
            return {"reading": True}
        return dict(self._named or {})

    def _on_read(self, frame: Any, t_ns: int, events: list[Any]) -> None:
        read = self.reading(t_ns, events)
        now = time.monotonic()
        if read == self._shown and now - self._last < FRAME_EVERY_S:
            return
        import cv2
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 70])
        if not ok:
            return
        self._last, self._shown = now, read
        self.feed.set_frame(jpeg.tobytes(), {"width": frame.shape[1], "height": frame.shape[0], **read}, t_ns)


def make_feed(table: Any, plan: GamePlan, kiosk: Any = None) -> TableFeed:
    """The live feed of `table` with its operator actions (and the visitors', at a bots table)."""
    config = table.config
    feed = TableFeed(operator_pin=config.kiosk.operator_pin, names=config.game.names or None)
    feed.actions.update(TableControls(table, plan).actions())
    extra: dict[str, Any] = kiosk.extra if kiosk is not None else {}
    if kiosk is not None:
        feed.actions.update(kiosk.actions())

    def follow(runtime: Any) -> None:
        extra["game_no"] = plan.played
        feed.extra = extra
    follow(table.runtime)
    table.runtime.game_listeners.append(follow)      # before the feed's own listener: the new state has it
    feed.attach(table.runtime)
    if table.pipeline is not None:                   # a camera read by vision: its frames, with their readings
        frames = FramePublisher(feed, table)
        table.pipeline.readers.append(frames.on_read)
        table.runtime.game_listeners.append(frames.new_game)
    return feed


def serve_dashboard(feed: TableFeed, table: Any, *, host: str, port: int) -> Any:
    """Serve `feed` on host:port (OSError when the port is taken); `.stop()` ends it."""
    from referee.web import serve
    journal = table.journal
    return serve(feed, host=host, port=port, journal_path=str(journal.path) if journal is not None else None).start()

"""The dashboard of a running table: its live feed, the operator's actions behind the PIN, the camera view,
and (at a bots table) the visitors' "beat the bots" actions."""
from __future__ import annotations

import time
from typing import Any

from referee.cards import Card
from referee.live import TableFeed

from .game_setup import GamePlan

FRAME_EVERY_S = 0.15          # the page's camera view: a JPEG at most this often (real seconds)


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
        """End this game where it stands (journaled as it stands); the next one starts."""
        self.resume()
        self.table.runtime.finish_game()

    def change_game(self, game: str) -> None:
        self.plan.choose(game)
        self.new_game()

    def correct_card(self, card: str) -> None:
        self.table.runtime.correct_top(Card.parse(card))

    def set_hand(self, seat: int, cards: int) -> None:
        self.table.runtime.correct_hand(int(seat), int(cards))


class FramePublisher:
    """Camera frames to the page as JPEGs (a few a second), with the referee's top card as the overlay."""

    def __init__(self, feed: TableFeed, table: Any) -> None:
        self.feed, self.table = feed, table
        self._last = 0.0

    def __call__(self, frame: Any, t_ns: int) -> None:
        now = time.monotonic()
        if now - self._last < FRAME_EVERY_S:
            return
        self._last = now
        import cv2
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 70])
        if not ok:
            return
        overlay: dict[str, Any] = {"width": frame.shape[1], "height": frame.shape[0]}
        pile = self.table.runtime.game.pile
        if pile:
            overlay["card"] = str(pile[-1].card)
            overlay["confidence"] = 1.0
        self.feed.set_frame(jpeg.tobytes(), overlay)


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
    table.frame_listeners.append(FramePublisher(feed, table))
    return feed


def serve_dashboard(feed: TableFeed, table: Any, *, host: str, port: int) -> Any:
    """Serve `feed` on host:port (OSError when the port is taken); `.stop()` ends it."""
    from referee.web import serve
    journal = table.journal
    return serve(feed, host=host, port=port, journal_path=str(journal.path) if journal is not None else None).start()

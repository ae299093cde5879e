"""One game at the table: events in, in any arrival order; rulings out, in time order.

The session owns the rules module and the arbiter. It is the one place where
a game is set up (deck, deal, options) and where late or impossible events are
handled, so the table runtime, `referee replay` and the simulator share it.
"""
from __future__ import annotations

import dataclasses
import random
from typing import Any, Callable, Sequence

from .arbiter import Arbiter
from .cards import Card, count_ranks, deal, shuffled
from .events import MS, CardSeen, Event, Play
from .options import validate
from .rules import Game, SetupError, TableError, find_game
from .rulings import Ruling

MAX_STEPS = 5_000_000


class EventRejected(TableError):
    """An event the table state cannot accept; `tag` says which event (e.g. its index)."""

    def __init__(self, tag: Any, message: str) -> None:
        super().__init__(message)
        self.tag = tag
        self.message = message


def build_game(game_id: str, players: int, *, hands: Sequence[Sequence[Card | None]] | None = None,
               seed: int = 0, dealer: int = 0, options: dict[str, Any] | None = None,
               names: list[str] | None = None, faces_known: bool = True) -> Game:
    """Set up a game: validate options and seats, deal (or check the given hands).
    `faces_known=False` (a real table): only each hand's count is known; the
    camera names every card as it lands."""
    rules = find_game(game_id)
    opts = validate(rules.OPTIONS, options)
    if isinstance(players, bool) or not isinstance(players, int):
        raise SetupError(f"players must be a whole number, not {players!r}")
    rules.check_players(players, opts)
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        raise SetupError(f"dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
    deck = rules.deck(players, opts)
    if hands is None and not faces_known:
        hands = deal([None] * len(deck), players, dealer)  # type: ignore[list-item]
    elif hands is None:
        hands = deal(shuffled(deck, random.Random(seed)), players, dealer)
    else:
        check_hands(hands, players, deck)
    return rules(players, hands, opts, dealer=dealer, seed=seed, names=names)


def check_hands(hands: Sequence[Sequence[Card | None]], players: int, deck: list[Card]) -> None:
    if len(hands) != players:
        raise SetupError(f"hands gives {len(hands)} hands for {players} players")
    available = count_ranks(deck)
    used = count_ranks(c for hand in hands for c in hand if c is not None)
    for name, count in used.items():
        if count > available.get(name, 0):
            have = available.get(name, 0)
            raise SetupError(f"{name} appears {count} times in hands but this game's deck has {have}")


class Session:
    """Feeds a game through the arbiter. `holdback_ns=None`: judge only when told (replay)."""

    def __init__(self, game: Game, *, holdback_ns: int | None = None, strict: bool = True,
                 on_ruling: Callable[[Ruling], None] | None = None) -> None:
        self.game = game
        self.arbiter = Arbiter(holdback_ns)
        self.strict = strict
        self.on_ruling = on_ruling
        self._emitted = 0

    @classmethod
    def create(cls, game_id: str, players: int, *, holdback_ns: int | None = None, strict: bool = True,
               **setup: Any) -> "Session":
        game = build_game(game_id, players, **setup)
        if holdback_ns is None and game.opts.get("holdback_ms") is not None:
            holdback_ns = int(game.opts["holdback_ms"] * MS)
        return cls(game, holdback_ns=holdback_ns, strict=strict)

    @property
    def rulings(self) -> list[Ruling]:
        return self.game.rulings

    # ---- input ----------------------------------------------------------------
    def submit(self, event: Event, tag: Any = None, now_ns: int | None = None) -> list[Ruling]:
        """Accept an event that arrived at `now_ns`; judge whatever became certain."""
        start = len(self.game.rulings)
        seat = getattr(event, "seat", None)
        if seat is not None and not 0 <= seat < self.game.n:
            self._reject(tag, f"seat {seat} is not at this table (seats 0..{self.game.n - 1})")
        elif self.arbiter.holdback_ns is not None and event.t_ns < self.game.now:
            self._late(event, tag)
        else:
            self.arbiter.push(event, tag, now_ns)
        self._run(self.arbiter.horizon())
        return self._new_since(start)

    def advance(self, now_ns: int) -> list[Ruling]:
        """Time passed with no event: close windows and release held events that are now final."""
        start = len(self.game.rulings)
        self.arbiter.clock_ns = max(self.arbiter.clock_ns, now_ns)
        self._run(self.arbiter.horizon())
        return self._new_since(start)

    def finish(self) -> list[Ruling]:
        """End of the stream: judge everything held, and let time run on until nothing is pending."""
        start = len(self.game.rulings)
        self._run(None, run_on=True)
        return self._new_since(start)

    # ---- the loop ---------------------------------------------------------------
    def _run(self, limit: int | None, *, run_on: bool = False) -> None:
        if limit is None and not run_on:
            return
        game = self.game
        for _ in range(MAX_STEPS):
            event_t = self.arbiter.peek_time()
            if event_t is not None and limit is not None and event_t > limit:
                event_t = None
            deadline = game.next_deadline()
            if deadline is not None and limit is not None and deadline > limit:
                deadline = None
            if deadline is None and event_t is None:
                return
            if deadline is not None and (event_t is None or deadline <= event_t):
                game.fire(deadline)
                if game.next_deadline() == deadline:
                    raise RuntimeError(f"{game.game_id}: deadline {deadline} did not move (a rules bug)")
            else:
                event, tag = self.arbiter.pop()
                self._handle(event, tag)
        raise RuntimeError("too many steps without the game settling")

    def _handle(self, event: Event, tag: Any) -> None:
        try:
            self.game.handle(event)
        except TableError as exc:
            self._reject(tag, str(exc))

    def _late(self, event: Event, tag: Any) -> None:
        """Arrived after its moment was judged: a card is laid now; a slap is not judged on a wrong pile."""
        if isinstance(event, (CardSeen, Play)):
            self._handle(dataclasses.replace(event, t_ns=self.game.now), tag)
        else:
            self.game.ignore(getattr(event, "seat", None), event.t_ns, "late")

    def _reject(self, tag: Any, message: str) -> None:
        if self.strict:
            raise EventRejected(tag, message)
        self.game.emit("check_table", None, self.game.now, f"Check the table: {message}", problem=message)

    def _new_since(self, start: int) -> list[Ruling]:
        new = self.game.rulings[start:]
        if self.on_ruling is not None:
            for ruling in new:
                self.on_ruling(ruling)
        return new

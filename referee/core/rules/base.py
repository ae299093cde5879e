"""A game's flow, shared by every rules module: set-up, the event loop, deadlines, endings.

A game sees events strictly in timestamp order (the arbiter sees to that) and
answers with rulings. Time moves only through events and deadlines: a window
closing, a first slap becoming certain, a ghost call. Games override a few
hooks (`lay`, `on_slap`, `decide`, ...); `Table` keeps every card accounted
for and `SlapWindows` judges the slaps in a window.
"""
from __future__ import annotations

import random
from typing import Any, ClassVar, Sequence

from ..cards import Card, standard_deck
from ..events import CardSeen, Event, Flinch, Play, Press, Slap, TimeUp
from ..options import COMMON, Opt
from .state import FINISHED, IN, OUT, SITS_OUT, WAITING, Hand, Laid, SetupError, TableError, Window
from .windows import SlapWindows

__all__ = ["FINISHED", "IN", "OUT", "SITS_OUT", "WAITING", "Game", "Hand", "Laid", "SetupError", "TableError",
           "Window"]


class Game(SlapWindows):
    """Base of every rules module. Subclasses set `game_id` and override hooks."""

    game_id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 10
    OPTIONS: ClassVar[dict[str, Opt]] = COMMON
    starts_left_of_dealer: ClassVar[bool] = True
    closes_on_next_card: ClassVar[bool] = True

    # ---- set-up -------------------------------------------------------------
    @classmethod
    def deck(cls, players: int, options: dict[str, Any]) -> list[Card]:
        """The full deck this game is played with."""
        return standard_deck()

    @classmethod
    def check_players(cls, players: int, options: dict[str, Any]) -> None:
        if not cls.min_players <= players <= cls.max_players:
            raise SetupError(f"{cls.game_id} takes {cls.min_players} to {cls.max_players} players, not {players}")

    def __init__(self, players: int, hands: Sequence[Sequence[Card | None]], options: dict[str, Any],
                 *, dealer: int = 0, seed: int = 0, names: list[str] | None = None) -> None:
        super().__init__(players, hands, options, deck=self.deck(players, options), dealer=dealer, names=names)
        self.opts = options
        self.rng = random.Random(seed)
        self.turn: int | None = (dealer + 1) % players if self.starts_left_of_dealer else dealer
        self.over = False
        self.winner: int | None = None
        self.loser: int | None = None
        self.scores: list[int] | None = None
        self.now = 0
        self.cards_laid = 0
        self.calls: list[tuple[int, str, str]] = []   # (t_ns, rank, word) spoken by the announcer
        if self.turn is not None and not self.can_lay(self.turn):
            self.turn = self.next_layer(self.turn)

    # ---- the event loop -------------------------------------------------------
    def handle(self, event: Event) -> None:
        """Apply one event. Events arrive in timestamp order."""
        self.now = max(self.now, event.t_ns)
        seat = getattr(event, "seat", None)
        if seat is not None and not 0 <= seat < self.n:
            raise TableError(f"seat {seat} is not at this table (seats 0..{self.n - 1})")
        if self.over:
            self.ignore(seat, event.t_ns, "game_over")
            return
        if isinstance(event, (CardSeen, Play)):
            self.on_card(event)
            self.cards_laid += 1
        elif isinstance(event, Slap):
            self.on_slap(event.seat, event.t_ns)
        elif isinstance(event, Flinch):
            self.on_flinch(event.seat, event.t_ns)
        elif isinstance(event, Press):
            self.on_press(event.seat, event.t_ns)
        elif isinstance(event, TimeUp):
            self.on_time(event.t_ns)
        # PileCleared, CardUnreadable: evidence for the runtime, no rule effect here
        if not self.over:
            self.check_stall(event.t_ns)

    def before_card(self, t_ns: int) -> None:
        """A card is landing: an open window closes first (the next card closes it)."""
        if self.window is not None and (self.closes_on_next_card or self.window.decided):
            self.close_window(self.window, t_ns)

    def on_card(self, event: CardSeen | Play) -> None:
        self.before_card(event.t_ns)
        if self.over:
            return
        seat = self.turn
        if seat is None:
            raise TableError("nobody is due to play a card")
        seen = event.card if isinstance(event, CardSeen) else None
        card = self.take_from_hand(seat, seen)
        self.lay(seat, card, event.t_ns)

    def lay(self, seat: int, card: Card, t_ns: int) -> None:
        raise NotImplementedError

    def on_slap(self, seat: int, t_ns: int) -> None:
        raise NotImplementedError

    def on_flinch(self, seat: int, t_ns: int) -> None:
        self.ignore(seat, t_ns, "no_flinch_here")

    def on_press(self, seat: int, t_ns: int) -> None:
        self.ignore(seat, t_ns, "no_press_here")

    def on_time(self, t_ns: int) -> None:
        """The time limit passed: the game is decided on the standings."""
        order = self.standings()
        self.finish(t_ns, winner=order[0], loser=order[-1] if len(order) > 1 else None,
                    say=f"Time! {self.name(order[0])} wins")

    def standings(self) -> list[int]:
        """Seats best first (for a time limit). Default: most cards in hand, ties by seat from the dealer's left."""
        seats = self.clockwise_from((self.dealer + 1) % self.n)
        return sorted(seats, key=lambda s: -len(self.hands[s]))

    # ---- deadlines ----------------------------------------------------------
    def next_deadline(self) -> int | None:
        """The earliest moment at which something happens without a new event."""
        w = self.window
        if w is None or self.over:
            return None
        times = [t for t in (w.close_ns, None if w.decided else self.decision_time(w)) if t is not None]
        return min(times) if times else None

    def fire(self, t_ns: int) -> None:
        """Time reached `t_ns` (a deadline) with no event before it."""
        self.now = max(self.now, t_ns)
        w = self.window
        if w is None or self.over:
            return
        decide = None if w.decided else self.decision_time(w)
        if decide is not None and decide <= t_ns and (w.close_ns is None or decide <= w.close_ns):
            self.decide(w, decide)
        elif w.close_ns is not None and w.close_ns <= t_ns:
            self.close_window(w, w.close_ns)
        if not self.over:
            self.check_stall(t_ns)

    def decide(self, w: Window, t_ns: int) -> None:
        raise NotImplementedError

    def close_window(self, w: Window, t_ns: int) -> None:
        """The window's time ran out, or the next card landed."""
        self.window = None

    # ---- endings ------------------------------------------------------------
    def finish(self, t_ns: int, *, winner: int | None, loser: int | None = None,
               say: str = "", scores: list[int] | None = None) -> None:
        self.over = True
        self.winner, self.loser = winner, loser
        self.scores = scores if scores is not None else [len(h) for h in self.hands]
        self.window = None
        self.emit("game_over", winner, t_ns, say or f"Game over! {self.name(winner)} wins",
                  winner=winner, loser=loser, scores=self.scores)

    def check_stall(self, t_ns: int) -> None:
        """Nobody can lay and nothing is pending: the last layer takes the pile back."""
        if self.window is not None or not self.pile or self.turn is not None and self.can_lay(self.turn):
            return
        if any(self.can_lay(s) for s in range(self.n)):
            return
        self.on_stall(t_ns)

    def on_stall(self, t_ns: int) -> None:
        seat = self.pile[-1].seat
        if self.status[seat] == OUT:
            seat = next(s for s in self.clockwise_from(seat) if self.status[s] != OUT)
        cards = self.take_pile(seat)
        self.emit("picks_up", seat, t_ns, f"Nobody can play: {self.name(seat)} takes the pile back",
                  cards=cards, reason="stalled")
        self.after_receiving(seat, t_ns)
        self.turn = self.first_layer_from(seat)
        self.after_pile_taken(t_ns)

    def after_receiving(self, seat: int, t_ns: int) -> None:
        """A player got cards: a waiting one is back in."""
        if self.status[seat] == WAITING and self.hands[seat]:
            self.status[seat] = IN
            self.emit("back_in", seat, t_ns, f"{self.name(seat)} is back in")

    def after_pile_taken(self, t_ns: int) -> None:
        """Hook: check for the end of the game after cards moved."""

    # ---- what the outside world reads ----------------------------------------
    def final(self) -> dict[str, Any]:
        return {
            "hands": [len(h) for h in self.hands],
            "scoring": [len(s) for s in self.scoring],
            "penalty": [len(p) for p in self.penalty],
            "status": list(self.status),
            "over": self.over,
            "winner": self.winner,
            "loser": self.loser,
            "pile": len(self.pile),
            "turn": self.turn,
        }

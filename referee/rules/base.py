"""What every slap game shares: hands, the pile, turns, slap windows, ties.

A game sees events strictly in timestamp order (the arbiter sees to that) and
answers with rulings. Time moves only through events and deadlines: a window
closing, a first slap becoming certain, a ghost call. Games override a few
hooks; the bookkeeping here keeps every card accounted for.
"""
from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Sequence

from ..cards import Card, count_ranks, standard_deck
from ..events import MS, CardSeen, Event, Flinch, Play, Press, Slap, TimeUp
from ..options import COMMON, Opt
from ..rulings import Ruling, seat_name, spoken_margin

IN, WAITING, OUT, SITS_OUT, FINISHED = "in", "waiting", "out", "sits_out", "finished"


class TableError(ValueError):
    """A reported event contradicts what the referee knows of the table
    (a card that cannot exist, a player with no cards playing one): check the table."""


class SetupError(ValueError):
    """A game that cannot be set up as asked (player count, hands, deck)."""


@dataclass(slots=True)
class Laid:
    """One card on the pile (or row) and who laid it when."""

    card: Card
    seat: int
    t_ns: int
    dead: bool = False


@dataclass(slots=True)
class Window:
    """A trigger's slap window: who slapped when, and until when it is open."""

    opened_ns: int
    close_ns: int | None          # None: stays open until someone takes the pile
    layer: int                    # who laid the trigger card: ties count from here
    mode: str                     # "first" (first slap wins) or "last" (last slapper picks up)
    required: frozenset[int] = frozenset()
    slaps: dict[int, int] = field(default_factory=dict)
    reason: str = ""
    decided: bool = False         # the pile was awarded; kept open only to hear the runner-up
    award: Ruling | None = None   # the wins_pile ruling, whose margin a runner-up fills in
    replays: int = 0              # dead heats already replayed on this trigger


Hand = deque  # of Card | None (None: a card whose face the referee has not seen)


class Game:
    """Base of every rules module. Subclasses set `game_id` and override hooks."""

    game_id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 10
    OPTIONS: ClassVar[dict[str, Opt]] = COMMON
    starts_left_of_dealer: ClassVar[bool] = True

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
        self.n = players
        self.opts = options
        self.dealer = dealer
        self.names = names
        self.rng = random.Random(seed)
        self.hands: list[Hand] = [deque(h) for h in hands]
        self.pile: list[Laid] = []
        self.status: list[str] = [IN] * players
        self.scoring: list[list[Card]] = [[] for _ in range(players)]
        self.penalty: list[list[Card]] = [[] for _ in range(players)]
        self.aside: list[Card] = []            # cards out of play (slapstick's untaken row)
        self.direction = 1
        self.turn: int | None = (dealer + 1) % players if self.starts_left_of_dealer else dealer
        self.window: Window | None = None
        self.slapped_top: set[int] = set()     # who already slapped the current top card
        self.over = False
        self.winner: int | None = None
        self.loser: int | None = None
        self.scores: list[int] | None = None
        self.now = 0
        self.cards_laid = 0
        self.rulings: list[Ruling] = []
        self.calls: list[tuple[int, str, str]] = []   # (t_ns, rank, word) spoken by the announcer
        self.deck_counts = count_ranks(self.deck(players, options))
        self.cards_in_play = sum(len(h) for h in self.hands)
        self.tie = options["tie"]
        self._tie_us = options["tie_us"]
        self.window_ns = int(options["slap_window_ms"]) * MS
        self.margin_wait_ns = int(options["margin_wait_ms"]) * MS
        if self.turn is not None and not self.can_lay(self.turn):
            self.turn = self.next_layer(self.turn)

    # ---- small helpers --------------------------------------------------------
    def name(self, seat: int | None) -> str:
        return seat_name(seat, self.names)

    def emit(self, kind: str, seat: int | None, t_ns: int, say: str = "", **fields: Any) -> Ruling:
        ruling = Ruling(kind, seat, t_ns, say, fields)
        self.rulings.append(ruling)
        return ruling

    def ignore(self, seat: int | None, t_ns: int, reason: str) -> None:
        self.emit("ignored", seat, t_ns, "", reason=reason)

    def tie_ns(self, a: int, b: int) -> int:
        """Dead-heat margin for a pair of pads: the larger of the two."""
        margin = self._tie_us
        if isinstance(margin, tuple):
            ma = margin[a] if a < len(margin) else 0
            mb = margin[b] if b < len(margin) else 0
            return max(ma, mb) * 1000
        return int(margin) * 1000

    def max_tie_ns(self) -> int:
        margin = self._tie_us
        return (max(margin, default=0) if isinstance(margin, tuple) else int(margin)) * 1000

    def seat_after(self, seat: int, step: int | None = None) -> int:
        return (seat + (self.direction if step is None else step)) % self.n

    def can_lay(self, seat: int) -> bool:
        """May this seat lay a card on its turn? (has cards and is still playing)"""
        return bool(self.hands[seat]) and self.status[seat] not in (OUT, FINISHED, SITS_OUT)

    def next_layer(self, after: int) -> int | None:
        """The next seat after `after`, in the direction of play, that can lay."""
        seat = after
        for _ in range(self.n):
            seat = self.seat_after(seat)
            if self.can_lay(seat):
                return seat
        return None

    def first_layer_from(self, seat: int) -> int | None:
        """`seat` itself if it can lay, else the next one that can."""
        return seat if self.can_lay(seat) else self.next_layer(seat)

    def holders(self) -> list[int]:
        return [s for s in range(self.n) if self.hands[s]]

    def clockwise_from(self, start: int) -> list[int]:
        return [(start + i) % self.n for i in range(self.n)]

    def top(self) -> Laid | None:
        return self.pile[-1] if self.pile else None

    def total_cards(self) -> int:
        """Every card the game holds anywhere: must always equal the cards dealt."""
        return (sum(len(h) for h in self.hands) + len(self.pile) + len(self.aside)
                + sum(len(s) for s in self.scoring) + sum(len(p) for p in self.penalty))

    # ---- moving cards ---------------------------------------------------------
    def take_from_hand(self, seat: int, seen: Card | None) -> Card:
        """Remove `seat`'s top card; the camera's `seen` card wins over tracking."""
        hand = self.hands[seat]
        if not hand:
            raise TableError(f"{self.name(seat)} has no cards to play")
        tracked = hand[0]
        if seen is None:
            if tracked is None:
                raise TableError(f"the card {self.name(seat)} laid was not seen by the camera")
            hand.popleft()
            return tracked
        if tracked != seen:
            self._reconcile(seat, seen)
        hand.popleft()
        return seen

    def _reconcile(self, seat: int, seen: Card) -> None:
        """The camera saw `seen` where tracking expected another card: swap the
        two identities in the hands so the deck stays whole, or refuse a card
        that cannot be in anyone's hand."""
        hand = self.hands[seat]
        for other in self.hands:
            for i, card in enumerate(other):
                if card == seen and not (other is hand and i == 0):
                    other[i] = hand[0]
                    hand[0] = seen
                    return
        visible = sum(1 for laid in self.pile if laid.card == seen)
        visible += sum(1 for cards in (*self.scoring, *self.penalty, self.aside) for c in cards if c == seen)
        unknown = sum(1 for h in self.hands for c in h if c is None)
        if unknown == 0 or visible >= self.deck_counts.get(str(seen), 0):
            raise TableError(f"{seen} cannot be in play here: check the table")
        # the card was unknown to tracking; learn it
        hand[0] = seen

    def give_bottom(self, seat: int, cards: Iterable[Card | None]) -> int:
        before = len(self.hands[seat])
        self.hands[seat].extend(cards)
        return len(self.hands[seat]) - before

    def take_pile(self, seat: int) -> int:
        """Turn the pile over under `seat`'s hand: the first card laid is the first to come out again."""
        cards = [laid.card for laid in self.pile]
        self.pile.clear()
        self.slapped_top.clear()
        return self.give_bottom(seat, cards)

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

    closes_on_next_card: ClassVar[bool] = True

    def before_card(self, t_ns: int) -> None:
        """A card is landing: an open window closes first (RULES.md: the next card closes it)."""
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

    def record_slap(self, w: Window, seat: int, t_ns: int) -> None:
        """A slap into an open window: a player counts at most one slap per trigger."""
        if seat in w.slaps:
            self.ignore(seat, t_ns, "duplicate")
        else:
            w.slaps[seat] = t_ns

    def slap_outside_window(self, seat: int, t_ns: int) -> bool:
        """A slap with no window open: True when it must be judged (a false slap, usually);
        False when it is ignored (empty pile, or this player already slapped this card)."""
        if not self.pile:
            self.ignore(seat, t_ns, "empty_pile")
            return False
        if seat in self.slapped_top:
            self.ignore(seat, t_ns, "duplicate")
            return False
        self.slapped_top.add(seat)
        return True

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

    def decision_time(self, w: Window) -> int | None:
        """When the window's outcome becomes certain (before it closes)."""
        if w.mode == "first":
            if not w.slaps:
                return None
            times = sorted(w.slaps.values())
            certain = times[0] + max(self.max_tie_ns(), 1)
            if len(times) > 1:   # runner-up known: the margin is known
                return max(certain, times[1] + 1)
            return max(certain, times[0] + self.margin_wait_ns)
        if w.required and w.required <= w.slaps.keys():
            return max(w.slaps[s] for s in w.required) + 1
        return None

    def decide(self, w: Window, t_ns: int) -> None:
        raise NotImplementedError

    def close_window(self, w: Window, t_ns: int) -> None:
        """The window's time ran out, or the next card landed."""
        self.window = None

    # ---- arbitration --------------------------------------------------------
    def first_slappers(self, w: Window) -> tuple[list[int], int, int | None]:
        """(seats in a dead heat for first, time of first, margin to the runner-up in ns)."""
        ordered = sorted(w.slaps.items(), key=lambda kv: (kv[1], kv[0]))
        lead_seat, t1 = ordered[0]
        tied = [s for s, t in ordered if t == t1 or t - t1 < self.tie_ns(lead_seat, s)]
        runner = next((t for s, t in ordered if s not in tied), None)
        margin = (ordered[1][1] - t1) if len(ordered) > 1 else None
        if runner is not None and len(tied) == 1:
            margin = runner - t1
        return tied, t1, margin

    def last_slappers(self, w: Window) -> tuple[list[int], int, int | None]:
        """(seats equally last, time of the last slap or of the close, margin to the second-last)."""
        missing = sorted(s for s in w.required if s not in w.slaps)
        if missing:
            return missing, -1, None
        ordered = sorted(((w.slaps[s], s) for s in w.required), reverse=True)
        t_last, last_seat = ordered[0]
        tied = [s for t, s in ordered if t == t_last or t_last - t < self.tie_ns(last_seat, s)]
        margin = (t_last - ordered[1][0]) if len(ordered) > 1 else None
        return tied, t_last, margin

    def break_tie(self, tied: Sequence[int], start: int, w: Window | None = None) -> int | None:
        """`turn-order`: the tied seat reached first clockwise from `start`; `replay`: None
        (once per trigger: a second dead heat on the same trigger goes by turn order)."""
        if len(tied) == 1:
            return tied[0]
        if self.tie == "replay" and (w is None or w.replays == 0):
            return None
        return next(s for s in self.clockwise_from(start) if s in tied)

    def ask_again(self, w: Window, tied: Sequence[int], t_ns: int) -> None:
        """`tie = replay`: nobody wins; the window opens again from now."""
        self.emit("slap_again", None, t_ns,
                  f"Dead heat between {', '.join(self.name(s) for s in tied)}: slap again!",
                  seats=sorted(tied))
        w.slaps.clear()
        w.replays += 1
        w.opened_ns = t_ns
        if w.close_ns is not None:
            w.close_ns = t_ns + self.window_ns
        self.slapped_top.clear()

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

    # ---- operator corrections (outside the rules: logged as such) ----------------
    def correct_top(self, card: Card, t_ns: int) -> None:
        """The operator says the top card is `card` (the camera misread it)."""
        if not self.pile:
            raise TableError("there is no card on the pile to correct")
        old = self.pile[-1].card
        self.pile[-1].card = card
        for hand in self.hands:                  # keep the deck whole: the card it really is was tracked elsewhere
            for i, c in enumerate(hand):
                if c == card:
                    hand[i] = old
                    break
            else:
                continue
            break
        self.emit("check_table", None, t_ns, f"Operator: the top card is {card.spoken()}", problem="corrected_card",
                  was=str(old), now=str(card))

    def correct_hand(self, seat: int, count: int, t_ns: int) -> None:
        """The operator counted `seat`'s hand: `count` cards (faces unknown for cards added)."""
        if not 0 <= seat < self.n or count < 0:
            raise TableError(f"no seat {seat}, or a negative count")
        hand = self.hands[seat]
        before = len(hand)
        while len(hand) > count:
            hand.pop()
        while len(hand) < count:
            hand.append(None)
        self.emit("check_table", seat, t_ns, f"Operator: {self.name(seat)} holds {count} cards",
                  problem="corrected_hand", was=before, now=count)

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

    def slap_is_right(self, seat: int) -> bool:
        """Would a slap by `seat` right now be a correct one? (for bots and the dashboard)"""
        w = self.window
        return w is not None and not w.decided and seat not in w.slaps

    def expects_slap_from(self, seat: int) -> bool:
        """Must `seat` slap the open window (last-slapper games)?"""
        w = self.window
        return w is not None and not w.decided and seat in w.required and seat not in w.slaps

    def margin_say(self, margin_ns: int | None) -> str:
        return spoken_margin(margin_ns)

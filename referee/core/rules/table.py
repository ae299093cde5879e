"""The cards and seats of one game: hands, the pile, statuses, turns in the direction of play.

Every card dealt is always somewhere (a hand, the pile, scoring cards, a penalty pile, or
set aside); `total_cards()` counts them. The camera's reading of a card wins over tracking,
and the operator's corrections are rulings like any other (`check_table`).
"""
from __future__ import annotations

from collections import deque
from typing import Any, Iterable, Sequence

from ..cards import Card, count_ranks
from ..rulings import Ruling, seat_name
from .state import FINISHED, IN, OUT, SITS_OUT, Hand, Laid, TableError


class Table:
    """Hands, pile and statuses, and the rulings emitted so far."""

    def __init__(self, players: int, hands: Sequence[Sequence[Card | None]], *, deck: Sequence[Card],
                 dealer: int = 0, names: list[str] | None = None) -> None:
        self.n = players
        self.dealer = dealer
        self.names = names
        self.hands: list[Hand] = [deque(h) for h in hands]
        self.pile: list[Laid] = []
        self.status: list[str] = [IN] * players
        self.scoring: list[list[Card]] = [[] for _ in range(players)]
        self.penalty: list[list[Card]] = [[] for _ in range(players)]
        self.aside: list[Card] = []            # cards out of play (slapstick's untaken row)
        self.direction = 1
        self.slapped_top: set[int] = set()     # who already slapped the current top card
        self.rulings: list[Ruling] = []
        self.deck_counts = count_ranks(deck)
        self.cards_in_play = sum(len(h) for h in self.hands)

    # ---- rulings --------------------------------------------------------------
    def name(self, seat: int | None) -> str:
        return seat_name(seat, self.names)

    def emit(self, kind: str, seat: int | None, t_ns: int, say: str = "", **fields: Any) -> Ruling:
        ruling = Ruling(kind, seat, t_ns, say, fields)
        self.rulings.append(ruling)
        return ruling

    def ignore(self, seat: int | None, t_ns: int, reason: str) -> None:
        self.emit("ignored", seat, t_ns, "", reason=reason)

    # ---- seats ------------------------------------------------------------------
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

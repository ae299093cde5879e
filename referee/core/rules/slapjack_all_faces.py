"""slapjack-all-faces (docs/rules.md): Jacks, then Queens, then Kings, won as scoring cards.

A pile holding a target stays slappable until somebody takes it; the first
slap sets the targets aside and shuffles the rest under the winner's hand.
"""
from __future__ import annotations

from typing import Any

from ..cards import FACE_RANKS, Card, deal, standard_deck
from .slapjack import Slapjack
from .state import IN, OUT, SITS_OUT, WAITING, Laid, Window

MAJORITY = 7


class SlapjackAllFaces(Slapjack):
    game_id = "slapjack-all-faces"
    title = "Slapjack All Faces"
    max_players = 20
    closes_on_next_card = False

    @classmethod
    def deck(cls, players: int, options: dict[str, Any]) -> list[Card]:
        return standard_deck(jokers=2)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.target = "J"
        self.face_total = sum(self.deck_counts.get(f"{r}{s}", 0) for r in FACE_RANKS for s in "SHDC")

    def is_trigger(self, laid: Laid) -> bool:
        return laid.card.rank == self.target

    def pile_has_target(self) -> bool:
        return any(laid.card.rank == self.target for laid in self.pile)

    def trigger_open(self, seat: int, t_ns: int) -> Window | None:
        if self.pile_has_target():
            return Window(t_ns, None, seat, "first", reason=self.target)
        return None

    def may_slap(self, seat: int) -> bool:
        return self.status[seat] in (IN, WAITING)

    def no_receive_statuses(self) -> tuple[str, ...]:
        return (OUT, SITS_OUT)

    def on_emptied(self, seat: int, t_ns: int) -> None:
        if self.status[seat] == IN:
            self.status[seat] = WAITING
            self.emit("waiting", seat, t_ns, f"{self.name(seat)} is out of cards: one more chance")
        self.check_round_end(t_ns)

    def lose_chance(self, seat: int, t_ns: int) -> None:
        if self.status[seat] == WAITING:
            self.status[seat] = SITS_OUT
            self.emit("sits_out", seat, t_ns, f"{self.name(seat)} sits out until the next round")

    def award(self, w: Window, winner: int, t_ns: int, margin: int | None, tie: bool) -> None:
        last_layer = self.pile[-1].seat
        targets = [laid.card for laid in self.pile if laid.card.rank == self.target]
        rest = [laid.card for laid in self.pile if laid.card.rank != self.target]
        cards = len(self.pile)
        self.pile.clear()
        self.slapped_top.clear()
        self.scoring[winner].extend(targets)
        self.rng.shuffle(rest)
        self.give_bottom(winner, rest)
        self.announce_win(w, winner, t_ns, cards, margin, tie, scored=len(targets))
        self.settle_waiting(winner, t_ns)
        if self.status[winner] == IN and not self.hands[winner]:
            self.on_emptied(winner, t_ns)      # won only targets: still no cards, a fresh chance
        self.advance_target(t_ns)
        self.turn = self.next_layer(last_layer)
        self.after_pile_taken(t_ns)

    def won(self, rank: str) -> int:
        return sum(1 for cards in self.scoring for c in cards if c.rank == rank)

    def advance_target(self, t_ns: int) -> None:
        while self.target in FACE_RANKS and self.won(self.target) >= self.rank_total(self.target):
            index = FACE_RANKS.index(self.target)
            if index + 1 >= len(FACE_RANKS):
                return
            self.target = FACE_RANKS[index + 1]
            word = {"Q": "Queens", "K": "Kings"}[self.target]
            self.emit("target", None, t_ns, f"All the {'Jacks' if self.target == 'Q' else 'Queens'} are won: now slap {word}!",
                      rank=self.target)
            if self.window is None and self.pile_has_target():
                self.window = Window(t_ns, None, self.pile[-1].seat, "first", reason=self.target)

    def rank_total(self, rank: str) -> int:
        return sum(self.deck_counts.get(f"{rank}{s}", 0) for s in "SHDC")

    def after_pile_taken(self, t_ns: int) -> None:
        if self.over:
            return
        faces = [len(s) for s in self.scoring]
        if max(faces) >= MAJORITY or sum(faces) >= self.face_total:
            order = self.standings()
            best = order[0]
            self.finish(t_ns, winner=best, scores=[10 * f for f in faces],
                        say=f"{self.name(best)} wins with {faces[best]} face cards!")
            return
        self.check_round_end(t_ns)

    def standings(self) -> list[int]:
        seats = self.clockwise_from((self.dealer + 1) % self.n)
        return sorted(seats, key=lambda s: (-len(self.scoring[s]), -len(self.hands[s])))

    def check_round_end(self, t_ns: int) -> None:
        """Rule 11: one player has cards, all others sit out, no majority: redeal."""
        if self.over:
            return
        holders = self.holders()
        if len(holders) != 1:
            return
        holder = holders[0]
        if any(self.status[s] != SITS_OUT for s in range(self.n) if s != holder):
            return
        if max(len(s) for s in self.scoring) >= MAJORITY:
            return
        cards = [c for c in self.hands[holder]] + [laid.card for laid in self.pile]
        self.hands[holder].clear()
        self.pile.clear()
        self.slapped_top.clear()
        self.window = None
        self.rng.shuffle(cards)
        self.dealer = holder
        for seat, hand in enumerate(deal(cards, self.n, holder)):
            self.hands[seat].extend(hand)
            self.status[seat] = IN if hand else WAITING
        self.emit("round_end", None, t_ns, f"New round: {self.name(holder)} deals the cards again",
                  penalties=None, totals=[len(s) for s in self.scoring])
        self.turn = self.first_layer_from(self.seat_after(holder))

    def final(self) -> dict[str, Any]:
        out = super().final()
        out["target"] = self.target
        return out

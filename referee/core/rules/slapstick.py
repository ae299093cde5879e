"""slapstick (David Parlett's game, docs/rules.md): a row game of rank matches, Jokers and
chickening out, with the rule text's optional extras.

No slaps decide anything here: each card laid is checked against the row, and
a pad press is a chicken-out (or "done", or a ten-card-string stop).
"""
from __future__ import annotations

from typing import Any

from ..cards import JOKER, Card, deal, standard_deck
from ..options import COMMON, Opt, boolean, int_range
from .base import Game
from .state import Laid, SetupError


def _optional_rounds(value: Any) -> int | None:
    return None if value is None else int_range(1, 52)(value)


class Slapstick(Game):
    game_id = "slapstick"
    title = "Slapstick"
    min_players = 2
    max_players = 8
    OPTIONS = {
        **COMMON,
        "jokers": Opt(None, lambda v: None if v is None else int_range(0, 8)(v), "Jokers in the deck (default: one per player)"),
        "rounds": Opt(None, _optional_rounds, "rounds in a match (default: one per player)"),
        "flush": Opt(False, boolean, "three of a suit oblige the next card to follow suit"),
        "straight": Opt(False, boolean, "three consecutive ranks oblige the next card to extend the run"),
        "straight_ordered": Opt(False, boolean, "straights count only in order (9-10-J or J-10-9); implies straight"),
        "glide": Opt(False, boolean, "three rising or falling cards oblige the next to continue"),
        "ten_string": Opt(False, boolean, "a 10th card without a match may stop the row; a 13th wins outright"),
    }

    @classmethod
    def deck(cls, players: int, options: dict[str, Any]) -> list[Card]:
        jokers = options.get("jokers")
        return standard_deck(jokers=players if jokers is None else jokers)

    @classmethod
    def check_players(cls, players: int, options: dict[str, Any]) -> None:
        if not 2 <= players <= cls.max_players:
            raise SetupError(f"slapstick takes 2 to {cls.max_players} players (3 is best), not {players}")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.first_dealer = self.dealer
        self.round = 0
        self.rounds = self.opts["rounds"] or self.n
        self.totals = [0] * self.n
        self.warnings: list[str] = []
        if self.n > 3:
            self.warnings.append(f"slapstick is meant for 3 players (2 allowed); {self.n} will work but play slowly")
        self.straight_on = bool(self.opts["straight"] or self.opts["straight_ordered"])
        self.new_row(self.turn if self.turn is not None else (self.dealer + 1) % self.n)

    # ---- row state ------------------------------------------------------------
    def new_row(self, opener: int | None) -> None:
        self.opening_left = 2
        self.chicken_seat: int | None = None
        self.string_seat: int | None = None
        self.flush_suit: str | None = None
        self.run: tuple[int, int, int] | None = None     # (low, high, step); step 0 = either end
        self.glide_dir = 0
        self.turn = None if opener is None else self.first_layer_from(opener)

    def layer_stays(self, seat: int) -> bool:
        """Does `seat` lay the next card too (opening pair, chicken run, ten-card string)?"""
        if not self.hands[seat]:
            return False
        return self.opening_left > 0 or self.chicken_seat == seat or self.string_seat == seat

    # ---- laying ---------------------------------------------------------------
    def lay(self, seat: int, card: Card, t_ns: int) -> None:
        self.pile.append(Laid(card, seat, t_ns))
        if self.opening_left > 0:
            self.opening_left -= 1
        if len(self.pile) >= 2 and self.check_match(seat, card, t_ns):
            return
        if self.check_extras(seat, card, t_ns):
            return
        self.update_extras()
        if self.opts["ten_string"] and len(self.pile) >= 10:
            if len(self.pile) >= 13:
                self.string_win(seat, t_ns)
                return
            self.string_seat = seat
        self.turn = seat if self.layer_stays(seat) else self.next_layer(seat)
        if self.chicken_seat == seat and not self.hands[seat]:
            self.chicken_seat = None

    def check_match(self, seat: int, card: Card, t_ns: int) -> bool:
        """Rank rules 1 and 2; True when the row was taken."""
        row = self.pile
        first, prev = row[0].card, row[-2].card
        if card.rank == first.rank:
            self.take_row(seat, t_ns, "match_first", to_penalty=self.n == 2)
        elif card.rank == prev.rank:
            self.take_row(seat, t_ns, "match_prev", to_penalty=self.n == 2)
        elif card.rank == JOKER:
            self.take_row(self.next_picker(seat), t_ns, "joker")
        elif any(laid.card.rank == card.rank for laid in row[1:-2]):
            self.take_row(self.next_picker(seat), t_ns, "match_other")
        else:
            return False
        return True

    def next_picker(self, seat: int) -> int:
        nxt = self.next_layer(seat)
        return nxt if nxt is not None and nxt != seat else self.seat_after(seat)

    # ---- the optional extras ----------------------------------------------------
    def check_extras(self, seat: int, card: Card, t_ns: int) -> bool:
        """An obligation the card fails: its layer picks up. True when the row was taken."""
        if self.flush_suit is not None and card.suit != self.flush_suit:
            self.take_row(seat, t_ns, "flush")
            return True
        if self.run is not None and not self.extends_run(card.value):
            self.take_row(seat, t_ns, "straight")
            return True
        if self.glide_dir and not (card.value - self.pile[-2].card.value) * self.glide_dir > 0:
            self.take_row(seat, t_ns, "glide")
            return True
        return False

    def extends_run(self, value: int) -> bool:
        assert self.run is not None
        low, high, step = self.run
        if step > 0:
            return value == high + 1
        if step < 0:
            return value == low - 1
        return value in (low - 1, high + 1)

    def update_extras(self) -> None:
        last = [laid.card for laid in self.pile[-3:]]
        three = len(last) == 3 and not any(c.is_joker for c in last)
        self.flush_suit = None
        if self.opts["flush"] and three and len({c.suit for c in last}) == 1:
            self.flush_suit = last[0].suit
        if self.straight_on:
            self.run = self.next_run(last) if three else None
        self.glide_dir = 0
        if self.opts["glide"] and three:
            a, b, c = (x.value for x in last)
            direction = 1 if a < b < c else -1 if a > b > c else 0
            if direction and 1 <= c + direction <= 13 and (direction < 0 or c < 13):
                self.glide_dir = direction

    def next_run(self, last: list[Card]) -> tuple[int, int, int] | None:
        values = [c.value for c in last]
        if self.run is not None and self.extends_run(values[-1]):
            low, high, step = self.run
            low, high = min(low, values[-1]), max(high, values[-1])
        elif self.opts["straight_ordered"]:
            a, b, c = values
            step = b - a
            if step not in (1, -1) or c - b != step:
                return None
            low, high = min(values), max(values)
        else:
            low, high = min(values), max(values)
            if high - low != 2 or len(set(values)) != 3:
                return None
            step = 0
        can_extend = (step >= 0 and high < 13) or (step <= 0 and low > 1)
        return (low, high, step) if can_extend else None

    # ---- taking the row -----------------------------------------------------------
    def take_row(self, picker: int, t_ns: int, reason: str, *, to_penalty: bool = False) -> None:
        cards = [laid.card for laid in self.pile]
        self.pile.clear()
        if to_penalty:
            self.penalty[picker].extend(cards)
        else:
            self.give_bottom(picker, cards)
        where = "to their penalty pile" if to_penalty else ""
        self.emit("picks_up", picker, t_ns, f"{self.name(picker)} picks up {len(cards)} {where}".rstrip(),
                  cards=len(cards), reason=reason)
        if any(not hand for hand in self.hands):
            self.end_round(t_ns)
        else:
            self.new_row(picker)

    def on_press(self, seat: int, t_ns: int) -> None:
        if seat != self.turn:
            self.ignore(seat, t_ns, "not_your_turn")
        elif self.string_seat == seat:
            self.take_row(self.next_picker(seat), t_ns, "ten_string")
        elif self.chicken_seat == seat:
            self.chicken_seat = None
            self.turn = self.next_layer(seat)
            if not self.pile:
                self.new_row(self.turn)
        elif not self.pile:
            self.ignore(seat, t_ns, "nothing_to_chicken")
        else:
            # also in the middle of an opening pair (the rule sets no moment): a hand of rank pairs
            # would otherwise open, match itself, pick up and open again for ever
            round_before = self.round
            self.take_row(seat, t_ns, "chicken")
            if not self.over and self.round == round_before:
                self.opening_left = 0          # lays as many as they like, from an empty row
                self.chicken_seat = seat
                self.turn = seat

    def on_slap(self, seat: int, t_ns: int) -> None:
        self.ignore(seat, t_ns, "no_slap_here")

    def string_win(self, seat: int, t_ns: int) -> None:
        """A 13th card without a match wins the match outright."""
        picker = self.next_picker(seat)
        cards = [laid.card for laid in self.pile]
        self.pile.clear()
        self.give_bottom(picker, cards)
        self.emit("picks_up", picker, t_ns, f"{self.name(picker)} picks up the string", cards=len(cards),
                  reason="ten_string")
        right = (seat - 1) % self.n
        if self.hands[seat]:
            moved = len(self.hands[seat])
            self.give_bottom(right, self.hands[seat])
            self.hands[seat].clear()
            self.emit("pays", seat, t_ns, f"{self.name(seat)}'s cards go to {self.name(right)}", to=right, cards=moved)
        self.finish(t_ns, winner=seat, scores=list(self.totals),
                    say=f"Thirteen in a row! {self.name(seat)} wins outright")

    # ---- rounds and the match -----------------------------------------------------
    @staticmethod
    def penalty_of(cards: Any) -> int:
        return sum(5 if c is not None and c.is_joker else 1 for c in cards)

    def end_round(self, t_ns: int) -> None:
        penalties = [self.penalty_of(self.hands[s]) + self.penalty_of(self.penalty[s]) for s in range(self.n)]
        self.totals = [a + b for a, b in zip(self.totals, penalties)]
        self.round += 1
        self.emit("round_end", None, t_ns, f"Round {self.round} over", penalties=penalties,
                  totals=list(self.totals), round=self.round)
        if self.round >= self.rounds:
            order = sorted(self.clockwise_from((self.first_dealer + 1) % self.n), key=lambda s: self.totals[s])
            self.finish(t_ns, winner=order[0], loser=order[-1], scores=list(self.totals),
                        say=f"{self.name(order[0])} wins the match with {self.totals[order[0]]} penalty points")
            return
        cards = [c for h in self.hands for c in h] + [c for p in self.penalty for c in p]
        cards += [laid.card for laid in self.pile] + self.aside
        for h in self.hands:
            h.clear()
        for p in self.penalty:
            p.clear()
        self.pile.clear()
        self.aside.clear()
        if any(c is None for c in cards):
            cards = [c for c in cards if c is not None] + [None] * sum(1 for c in cards if c is None)
        else:
            self.rng.shuffle(cards)
        self.dealer = (self.first_dealer + self.round) % self.n
        for seat, hand in enumerate(deal(cards, self.n, self.dealer)):  # type: ignore[arg-type]
            self.hands[seat].extend(hand)
        self.new_row((self.dealer + 1) % self.n)

    def on_stall(self, t_ns: int) -> None:
        """Everyone is out of cards with the row unfinished: it counts for nobody."""
        self.aside.extend(laid.card for laid in self.pile)
        self.pile.clear()
        self.end_round(t_ns)

    def on_time(self, t_ns: int) -> None:
        order = self.standings()
        self.finish(t_ns, winner=order[0], loser=order[-1], scores=list(self.totals),
                    say=f"Time! {self.name(order[0])} wins")

    def standings(self) -> list[int]:
        now = [self.totals[s] + self.penalty_of(self.hands[s]) + self.penalty_of(self.penalty[s]) for s in range(self.n)]
        return sorted(self.clockwise_from((self.first_dealer + 1) % self.n), key=lambda s: now[s])

    def slap_is_right(self, seat: int) -> bool:
        return False

    def final(self) -> dict[str, Any]:
        out = super().final()
        out["round"] = self.round
        out["totals"] = list(self.totals)
        return out

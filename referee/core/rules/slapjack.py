"""slapjack (docs/rules.md): the first slap on a Jack wins the pile.

Also the base of the other first-slap games (classic, all faces), which
override the hooks for who may slap, what a trigger is and what winning does.
"""
from __future__ import annotations

from typing import Any

from ..cards import Card, standard_deck
from ..events import CardSeen, Play
from ..options import COMMON, Opt, int_range
from .base import Game
from .state import IN, OUT, WAITING, Laid, SetupError, TableError, Window


class Slapjack(Game):
    game_id = "slapjack"
    title = "Slapjack"
    min_players = 2
    max_players = 20

    def is_trigger(self, laid: Laid) -> bool:
        return not laid.dead and laid.card.rank == "J"

    def trigger_open(self, seat: int, t_ns: int) -> Window | None:
        """A window for the card just laid, or None if it is no trigger."""
        top = self.pile[-1]
        if self.is_trigger(top):
            return Window(t_ns, t_ns + self.window_ns, seat, "first", reason=top.card.rank)
        return None

    # ---- laying ---------------------------------------------------------------
    def lay(self, seat: int, card: Card, t_ns: int, *, dead: bool = False) -> None:
        self.slapped_top.clear()
        self.pile.append(Laid(card, seat, t_ns, dead))
        if dead:
            self.emit("dead_card", seat, t_ns, f"Dead card: {self.name(seat)} played out of turn")
        else:
            self.turn = self.next_layer(seat)
        if not self.hands[seat]:
            self.on_emptied(seat, t_ns)
        if self.over:
            return
        if self.window is None:
            self.window = self.trigger_open(seat, t_ns)

    def on_emptied(self, seat: int, t_ns: int) -> None:
        """`seat` has just run out of cards."""
        if self.status[seat] == IN:
            self.status[seat] = WAITING
            self.emit("waiting", seat, t_ns, f"{self.name(seat)} is out of cards and waits for a Jack")

    # ---- slapping -------------------------------------------------------------
    def may_slap(self, seat: int) -> bool:
        return self.status[seat] in (IN, WAITING)

    def on_slap(self, seat: int, t_ns: int) -> None:
        if not self.may_slap(seat):
            self.ignore(seat, t_ns, "not_playing")
            return
        w = self.window
        if w is not None and not w.decided:
            self.record_slap(w, seat, t_ns)
            return
        if w is not None and w.decided:
            self.late_slap(w, seat, t_ns)
            return
        if not self.slap_outside_window(seat, t_ns):
            return
        if self.is_trigger(self.pile[-1]):
            self.ignore(seat, t_ns, "window_closed")   # an unslapped Jack whose window ran out
            return
        self.false_slap(seat, t_ns)

    def late_slap(self, w: Window, seat: int, t_ns: int) -> None:
        """A slap on a window already won: the pile is gone, but the first such
        slap is the runner-up, and it sets the winning margin."""
        award = w.award
        if award is not None:
            award.evidence.setdefault("slaps", {}).setdefault(seat, t_ns)   # every first contact, for disputes
        if award is not None and award.seat != seat and award.get("margin_us") is None:
            margin = t_ns - award.t_ns
            award.fields["margin_us"] = margin // 1000
            award.say += self.margin_say(margin)
        self.ignore(seat, t_ns, "empty_pile" if not self.pile else "duplicate")

    def false_slap(self, seat: int, t_ns: int) -> None:
        top = self.pile[-1]
        self.emit("false_slap", seat, t_ns, f"False slap, {self.name(seat)}")
        if not self.hands[seat]:
            self.lose_chance(seat, t_ns)
            self.after_pile_taken(t_ns)
            return
        to = top.seat
        if to != seat and self.status[to] not in self.no_receive_statuses():
            card = self.hands[seat].popleft()
            self.hands[to].append(card)
            self.emit("pays", seat, t_ns, f"{self.name(seat)} pays {self.name(to)} one card", to=to, cards=1)
            self.after_receiving(to, t_ns)
            if self.turn is None:
                self.turn = self.first_layer_from(to)
            if not self.hands[seat]:
                self.on_emptied(seat, t_ns)
                if self.turn == seat:
                    self.turn = self.next_layer(seat)
        self.after_pile_taken(t_ns)

    def no_receive_statuses(self) -> tuple[str, ...]:
        return (OUT,)

    def lose_chance(self, seat: int, t_ns: int) -> None:
        """A card-less player's chance is gone."""
        if self.status[seat] != OUT:
            self.status[seat] = OUT
            self.emit("out", seat, t_ns, f"{self.name(seat)} is out")

    # ---- deciding -------------------------------------------------------------
    def decide(self, w: Window, t_ns: int) -> None:
        tied, t1, margin = self.first_slappers(w)
        winner = self.break_tie(tied, self.pile[-1].seat, w)
        if winner is None:
            self.ask_again(w, tied, t_ns)
            return
        self.award(w, winner, t1, margin, len(tied) > 1)

    def award(self, w: Window, winner: int, t_ns: int, margin: int | None, tie: bool) -> None:
        cards = self.take_pile(winner)
        self.announce_win(w, winner, t_ns, cards, margin, tie)
        self.settle_waiting(winner, t_ns)
        self.turn = self.first_layer_from(self.seat_after(winner))
        self.after_pile_taken(t_ns)

    def announce_win(self, w: Window, winner: int, t_ns: int, cards: int, margin: int | None,
                     tie: bool, **extra: Any) -> None:
        """Rule the win; keep the window (until it would have closed) to hear the runner-up."""
        rank_word = {"J": "Jack", "Q": "Queen", "K": "King"}.get(w.reason, "Slap")
        say = f"{rank_word}! {self.name(winner)} takes the pile{self.margin_say(margin)}"
        if tie:
            say += ", a dead heat within the margin, settled by turn order"
        w.award = self.emit("wins_pile", winner, t_ns, say, cards=cards,
                            margin_us=None if margin is None else margin // 1000, tie=tie, **extra)
        w.award.evidence = {"card_t_ns": w.opened_ns, "slaps": dict(w.slaps), "close_ns": w.close_ns}
        w.decided = True
        if w.close_ns is None:
            w.close_ns = self.now + self.window_ns
        self.window = w

    def settle_waiting(self, winner: int, t_ns: int) -> None:
        """The Jack is won: the winner, if waiting, is back; other waiting players are out."""
        if self.status[winner] == WAITING:
            self.status[winner] = IN
            self.emit("back_in", winner, t_ns, f"{self.name(winner)} slaps back in")
        for seat in range(self.n):
            if seat != winner and self.status[seat] == WAITING:
                self.lose_chance(seat, t_ns)

    def after_pile_taken(self, t_ns: int) -> None:
        holders = self.holders()
        if not self.pile and len(holders) == 1:
            self.finish(t_ns, winner=holders[0], say=f"{self.name(holders[0])} has all the cards and wins!")


class SlapjackClassic(Slapjack):
    """slapjack-classic (docs/rules.md): dead cards, slapping in, permanent shut-out."""

    game_id = "slapjack-classic"
    title = "Slapjack (classic)"
    max_players = 16
    OPTIONS = {**COMMON, "decks": Opt(1, int_range(1, 2), "one deck, or two (104 cards) for longer games")}

    @classmethod
    def deck(cls, players: int, options: dict[str, Any]) -> list[Card]:
        return standard_deck(decks=options.get("decks", 1))

    @classmethod
    def check_players(cls, players: int, options: dict[str, Any]) -> None:
        top = 8 if options.get("decks", 1) == 1 else 16
        if not 2 <= players <= top:
            raise SetupError(f"slapjack-classic takes 2 to {top} players with {options.get('decks', 1)} deck(s), not {players}")

    def on_card(self, event: CardSeen | Play) -> None:
        if not isinstance(event, CardSeen) or event.by is None or event.by == self.turn:
            super().on_card(event)
            return
        by = event.by
        if not 0 <= by < self.n:
            raise TableError(f"seat {by} is not at this table")
        self.before_card(event.t_ns)
        if self.over:
            return
        card = self.take_from_hand(by, event.card)
        self.lay(by, card, event.t_ns, dead=True)

    def may_slap(self, seat: int) -> bool:
        if self.status[seat] == WAITING:
            return len(self.holders()) >= 2
        return self.status[seat] == IN

    def settle_waiting(self, winner: int, t_ns: int) -> None:
        if self.status[winner] == WAITING:
            self.status[winner] = IN
            self.emit("back_in", winner, t_ns, f"{self.name(winner)} slaps back in")

    def late_slap(self, w: Window, seat: int, t_ns: int) -> None:
        if self.status[seat] == WAITING and seat not in w.slaps:
            w.slaps[seat] = t_ns      # slapped in time: not shut out, but not the winner
        super().late_slap(w, seat, t_ns)

    def close_window(self, w: Window, t_ns: int) -> None:
        self.window = None
        if len(self.holders()) < 2:
            return
        for seat in range(self.n):
            if self.status[seat] == WAITING and seat not in w.slaps:
                self.lose_chance(seat, t_ns)

    def on_emptied(self, seat: int, t_ns: int) -> None:
        super().on_emptied(seat, t_ns)
        self.after_pile_taken(t_ns)

    def after_pile_taken(self, t_ns: int) -> None:
        holders = self.holders()
        if len(holders) == 1 and not self.over:
            winner = holders[0]
            taken = self.take_pile(winner)
            say = f"{self.name(winner)} wins" + (f" and takes the last {taken} cards" if taken else "")
            self.finish(t_ns, winner=winner, say=say)

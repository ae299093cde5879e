"""irish-snap-plus (docs/rules.md): count One..King from the dealer's left, slap on a
snap or a count match, flinches forfeit, and the rule text's additional variations.
"""
from __future__ import annotations

from typing import Any

from ..cards import JOKER, RANKS, Card, standard_deck
from ..events import MS
from ..options import COMMON, Opt, boolean, choice, int_range, rank_set, word_map
from .irish_snap import IrishSnap
from .state import FINISHED, IN, OUT, SetupError


class IrishSnapPlus(IrishSnap):
    game_id = "irish-snap-plus"
    title = "Irish Snap (with snaps and flinches)"
    starts_left_of_dealer = True
    OPTIONS = {
        **COMMON,
        "out": Opt("cease", choice("cease", "keep-counting"), "what a player with no cards does"),
        "queen_slap": Opt(False, boolean, "a Queen is also a trigger"),
        "silent": Opt(False, boolean, "the referee keeps the count without announcing it"),
        "ghost_count": Opt(False, boolean, "the referee calls card-less players' numbers (needs keep-counting)"),
        "ghost_call_ms": Opt(800, int_range(1), "delay of a ghost call after the previous card"),
        "reverse_on": Opt(frozenset(), rank_set, "called numbers (and/or JOKER) that reverse the direction"),
        "words": Opt({}, word_map, "words spoken instead of some numbers"),
    }

    @classmethod
    def deck(cls, players: int, options: dict[str, Any]) -> list[Card]:
        return standard_deck(jokers=2 if JOKER in options.get("reverse_on", ()) else 0)

    @classmethod
    def check_players(cls, players: int, options: dict[str, Any]) -> None:
        super().check_players(players, options)
        if options.get("ghost_count") and options.get("out") != "keep-counting":
            raise SetupError("option 'ghost_count' needs option 'out' = 'keep-counting'")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ghost_at: int | None = None

    def keep_counting(self) -> bool:
        return self.opts["out"] == "keep-counting"

    def slap_out(self) -> bool:
        return False

    def call_word(self, rank: str) -> str:
        words: dict[str, str] = self.opts["words"]
        if rank in words:
            return words[rank]
        return "One" if rank == "A" else super().call_word(rank)

    def triggers(self, card: Card, called: str) -> list[str]:
        reasons = []
        under = self.pile[-2].card if len(self.pile) >= 2 else None
        if under is not None and under.rank == card.rank:
            reasons.append("snap")
        if not card.is_joker and card.rank == called:
            reasons.append("count")
        if self.opts["queen_slap"] and card.rank == "Q":
            reasons.append("queen")
        return reasons

    def required_slappers(self) -> frozenset[int]:
        if self.keep_counting():
            return frozenset(s for s in range(self.n) if self.status[s] == IN)
        return frozenset(s for s in range(self.n) if self.hands[s] and self.status[s] == IN)

    def after_lay(self, seat: int, card: Card, called: str, t_ns: int) -> None:
        flips = 0
        if called in self.opts["reverse_on"]:
            flips += 1
        if card.is_joker and JOKER in self.opts["reverse_on"]:
            flips += 1
        for _ in range(flips):
            self.direction = -self.direction
            self.emit("reverse", None, t_ns, "Reverse!")

    def on_emptied(self, seat: int, t_ns: int) -> None:
        if self.keep_counting():
            return
        self.status[seat] = FINISHED
        if self.first_out is None:
            self.first_out = seat

    # ---- turns: card-less players keep their count in keep-counting ------------
    def pass_turn(self, seat: int, t_ns: int) -> None:
        self.ghost_at = None
        if not self.keep_counting():
            self.turn = self.next_layer(seat)
            return
        self.turn = self.seat_after(seat)
        if not self.hands[self.turn] and self.opts["ghost_count"]:
            self.ghost_at = t_ns + self.opts["ghost_call_ms"] * MS

    def before_card(self, t_ns: int) -> None:
        super().before_card(t_ns)
        if self.over or not self.keep_counting() or self.turn is None:
            return
        self.ghost_at = None
        for _ in range(self.n):             # silent turns of card-less players
            if self.hands[self.turn]:
                return
            self.call_index = (self.call_index + 1) % len(RANKS)
            self.turn = self.seat_after(self.turn)

    def next_deadline(self) -> int | None:
        base = super().next_deadline()
        if self.ghost_at is None or self.over:
            return base
        return self.ghost_at if base is None else min(base, self.ghost_at)

    def fire(self, t_ns: int) -> None:
        other = super().next_deadline()
        if self.ghost_at is not None and self.ghost_at <= t_ns and (other is None or self.ghost_at <= other):
            self.ghost_call(self.ghost_at)
            return
        super().fire(t_ns)

    def ghost_call(self, t_ns: int) -> None:
        """The referee calls the number of a card-less player's turn."""
        self.ghost_at = None
        self.now = max(self.now, t_ns)
        if self.window is not None or self.turn is None:
            return
        called = self.next_call(t_ns)
        top = self.top()
        self.turn = self.seat_after(self.turn)
        if top is not None and not top.card.is_joker and top.card.rank == called:
            self.open_trigger(top.seat, t_ns, "count")
            return
        if not self.hands[self.turn]:
            self.ghost_at = t_ns + self.opts["ghost_call_ms"] * MS

    # ---- flinches and restarts -----------------------------------------------------
    def on_flinch(self, seat: int, t_ns: int) -> None:
        if self.status[seat] in (FINISHED, OUT):
            self.ignore(seat, t_ns, "not_playing")
        elif self.window is not None:
            self.ignore(seat, t_ns, "window_open")     # during a trigger, a withdrawn hand simply has not slapped yet
        elif not self.pile:
            self.ignore(seat, t_ns, "empty_pile")
        else:
            self.pick_up(seat, t_ns, "flinch")

    def restart(self, picker: int, t_ns: int) -> None:
        """The picker starts the next round, calling One."""
        self.call_index = 0
        self.ghost_at = None
        self.turn = self.first_layer_from(picker) if not self.keep_counting() else picker
        if self.keep_counting() and not self.hands[picker]:
            self.turn = self.next_layer(picker)

    def check_end(self, t_ns: int) -> None:
        if self.over or self.window is not None:
            return
        if not self.keep_counting():
            super().check_end(t_ns)
            return
        holders = self.holders()
        if len(holders) == 1 and not self.pile:
            self.finish(t_ns, winner=None, loser=holders[0],
                        say=f"{self.name(holders[0])} holds all the cards and loses")

    def reports_winner(self) -> bool:
        return True

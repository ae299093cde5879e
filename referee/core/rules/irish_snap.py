"""irish-snap (docs/rules.md): count Ace..King aloud, slap on a
count match, and the LAST slapper picks up.

Also the base of irish-snap-plus, which adds snaps, flinches and house variants.
"""
from __future__ import annotations

from typing import Any

from ..cards import RANK_WORDS, RANKS, Card
from ..options import COMMON, Opt, choice
from .base import Game
from .state import FINISHED, IN, OUT, Laid, Window


class IrishSnap(Game):
    game_id = "irish-snap"
    title = "Irish Snap"
    min_players = 2
    max_players = 20
    starts_left_of_dealer = False       # the dealer plays first and calls "Ace"
    OPTIONS = {**COMMON, "finish": Opt("run-out", choice("run-out", "slap-out"),
                                       "slap-out: a player with no cards must still win a slap")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.call_index = 0
        self.first_out: int | None = None

    # ---- counting -------------------------------------------------------------
    def call_word(self, rank: str) -> str:
        return RANK_WORDS[rank]

    def next_call(self, t_ns: int) -> str:
        rank = RANKS[self.call_index]
        self.call_index = (self.call_index + 1) % len(RANKS)
        self.calls.append((t_ns, rank, self.call_word(rank)))
        return rank

    def triggers(self, card: Card, called: str) -> list[str]:
        """Why the card just laid is a trigger: [] when it is not."""
        return ["count"] if card.rank == called else []

    def slap_out(self) -> bool:
        return self.opts.get("finish") == "slap-out"

    def required_slappers(self) -> frozenset[int]:
        """Who must slap a trigger now."""
        if self.slap_out():
            return frozenset(s for s in range(self.n) if self.status[s] == IN)
        return frozenset(s for s in range(self.n) if self.hands[s] and self.status[s] == IN)

    # ---- laying ---------------------------------------------------------------
    def lay(self, seat: int, card: Card, t_ns: int) -> None:
        self.slapped_top.clear()
        called = self.next_call(t_ns)
        self.pile.append(Laid(card, seat, t_ns))
        reasons = self.triggers(card, called)
        self.after_lay(seat, card, called, t_ns)
        if not self.hands[seat]:
            self.on_emptied(seat, t_ns)
        self.pass_turn(seat, t_ns)
        if reasons:
            self.open_trigger(seat, t_ns, "+".join(reasons))
        else:
            self.check_end(t_ns)

    def after_lay(self, seat: int, card: Card, called: str, t_ns: int) -> None:
        """Hook for effects of a card beyond triggering (reversals)."""

    def pass_turn(self, seat: int, t_ns: int) -> None:
        self.turn = self.next_layer(seat)

    def open_trigger(self, layer: int, t_ns: int, reason: str) -> None:
        self.window = Window(t_ns, t_ns + self.window_ns, layer, "last",
                             required=self.required_slappers(), reason=reason)

    def on_emptied(self, seat: int, t_ns: int) -> None:
        if self.slap_out():
            return          # stays in: must still win a slap
        self.status[seat] = FINISHED
        if self.first_out is None:
            self.first_out = seat

    # ---- slapping -------------------------------------------------------------
    def on_slap(self, seat: int, t_ns: int) -> None:
        if self.status[seat] in (FINISHED, OUT):
            self.ignore(seat, t_ns, "not_playing")
            return
        if self.window is not None:
            self.record_slap(self.window, seat, t_ns)
            return
        if not self.slap_outside_window(seat, t_ns):
            return
        self.emit("false_slap", seat, t_ns, f"False slap! {self.name(seat)} picks up")
        self.pick_up(seat, t_ns, "false_slap")

    def decide(self, w: Window, t_ns: int) -> None:
        tied, t_last, margin = self.last_slappers(w)
        loser = self.break_tie(tied, w.layer, w)
        if loser is None:
            self.ask_again(w, tied, t_ns)
            return
        self.window = None
        at = t_last if t_last >= 0 else t_ns
        winner = self.slap_out_winner(w, loser)
        evidence = {"card_t_ns": w.opened_ns, "slaps": dict(w.slaps), "close_ns": w.close_ns,
                    "required": sorted(w.required)}
        self.pick_up(loser, at, "last", evidence=evidence,
                     margin_us=None if margin is None else margin // 1000, tie=len(tied) > 1)
        if winner is not None and not self.over:
            self.finish(at, winner=winner, say=f"{self.name(winner)} slapped out and wins!")

    def close_window(self, w: Window, t_ns: int) -> None:
        """Window over: whoever has not slapped is later than every slapper."""
        if self.window is w:
            self.decide(w, t_ns)

    def slap_out_winner(self, w: Window, loser: int) -> int | None:
        """slap-out: the earliest card-less slapper who is not last wins."""
        if not self.slap_out():
            return None
        cardless = sorted((t, s) for s, t in w.slaps.items() if s != loser and not self.hands[s])
        return cardless[0][1] if cardless else None

    def pick_up(self, seat: int, t_ns: int, reason: str, evidence: dict[str, Any] | None = None,
                **fields: Any) -> None:
        cards = self.take_pile(seat)
        self.window = None
        say = {"last": f"{self.name(seat)} was last and picks up {cards}",
               "false_slap": f"{self.name(seat)} picks up {cards}",
               "flinch": f"Flinch! {self.name(seat)} picks up {cards}",
               "stalled": f"Nobody can play: {self.name(seat)} takes the pile back"}.get(reason, "")
        if reason == "last":
            say += self.margin_say(fields.get("margin_us", 0) * 1000 if fields.get("margin_us") is not None else None)
            if fields.get("tie"):
                say += ", a dead heat settled by turn order"
        ruling = self.emit("picks_up", seat, t_ns, say, cards=cards, reason=reason, **fields)
        ruling.evidence = evidence or {}
        if self.status[seat] == FINISHED and self.hands[seat]:
            self.status[seat] = IN
        self.restart(seat, t_ns)
        self.check_end(t_ns)

    def restart(self, picker: int, t_ns: int) -> None:
        """Irish snap: play restarts left of the picker, calling Ace."""
        self.call_index = 0
        self.turn = self.first_layer_from(self.seat_after(picker, 1))

    def on_stall(self, t_ns: int) -> None:
        self.pick_up(self.pile[-1].seat, t_ns, "stalled")

    # ---- ending ---------------------------------------------------------------
    def check_end(self, t_ns: int) -> None:
        if self.over or self.window is not None or self.slap_out():
            return
        holders = [s for s in self.holders() if self.status[s] == IN]
        if len(holders) <= 1:
            loser = holders[0] if holders else None
            self.finish(t_ns, winner=self.first_out if self.reports_winner() else None, loser=loser,
                        say=f"{self.name(loser)} is the only one with cards and loses")

    def reports_winner(self) -> bool:
        return False

    def standings(self) -> list[int]:
        """A shedding game: fewest cards is best."""
        seats = self.clockwise_from((self.dealer + 1) % self.n)
        return sorted(seats, key=lambda s: len(self.hands[s]))

    def slap_is_right(self, seat: int) -> bool:
        return self.expects_slap_from(seat)

    def final(self) -> dict[str, Any]:
        out = super().final()
        out["call"] = RANKS[self.call_index]
        return out

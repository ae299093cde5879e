"""Slap windows: who slapped a trigger when, when the outcome is certain, first and last, dead heats."""
from __future__ import annotations

from typing import Any, Sequence

from ..cards import Card
from ..events import MS
from ..rulings import spoken_margin
from .state import Window
from .table import Table


class SlapWindows(Table):
    """The open slap window, and the arbitration of the slaps in it."""

    def __init__(self, players: int, hands: Sequence[Sequence[Card | None]], options: dict[str, Any], *,
                 deck: Sequence[Card], dealer: int = 0, names: list[str] | None = None) -> None:
        super().__init__(players, hands, deck=deck, dealer=dealer, names=names)
        self.window: Window | None = None
        self.tie = options["tie"]
        self._tie_us = options["tie_us"]
        self.window_ns = int(options["slap_window_ms"]) * MS
        self.margin_wait_ns = int(options["margin_wait_ms"]) * MS

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

"""Rulings as values: what the referee decided, when, about whom, and why.

A ruling is data first (kind, seat, fields) and a sentence second (`say`), so
the journal, the dashboard and `referee replay` all show the same decision.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KINDS: frozenset[str] = frozenset({
    "wins_pile", "picks_up", "false_slap", "pays", "waiting", "back_in", "out",
    "sits_out", "dead_card", "target", "reverse", "round_end", "game_over",
    # the referee's own additions (docs/rules.md, "Everywhere")
    "ignored", "slap_again", "check_table",
})

PICKUP_REASONS: frozenset[str] = frozenset({
    "last", "false_slap", "flinch", "match_first", "match_prev", "match_other",
    "joker", "chicken", "flush", "straight", "glide", "ten_string", "stalled",
})


@dataclass(slots=True)
class Ruling:
    """One decision. `t_ns` is the moment of the event it rests on (e.g. the
    winning slap), not when software reached it."""

    kind: str
    seat: int | None
    t_ns: int
    say: str = ""
    fields: dict[str, Any] = field(default_factory=dict)
    # what the ruling rests on, for disputes (not part of the replay output):
    # {"card_t_ns": trigger card time, "slaps": {seat: first-contact t_ns}, "close_ns": window close}
    evidence: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown ruling kind {self.kind!r}")

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t_us": self.t_ns // 1000, "kind": self.kind, "seat": self.seat}
        out.update(self.fields)
        out["say"] = self.say
        return out


def seat_name(seat: int | None, names: list[str] | None = None) -> str:
    """Seats are 0-based in data and 1-based when spoken."""
    if seat is None:
        return "nobody"
    if names and 0 <= seat < len(names):
        return names[seat]
    return f"Player {seat + 1}"


def spoken_margin(margin_ns: int | None) -> str:
    """'by 65 microseconds' / 'by 12 milliseconds' for the announcer."""
    if margin_ns is None:
        return ""
    us = margin_ns // 1000
    if us < 1000:
        return f", by {us} microsecond{'s' if us != 1 else ''}"
    ms = round(us / 1000)
    return f", by {ms} millisecond{'s' if ms != 1 else ''}"

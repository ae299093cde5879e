"""What each light pattern looks like, and which patterns a ruling lights.

Pure data and functions (no gpiozero), so the runtime, the dashboard, tests
and hardware/README.md all read the same table.
"""
from __future__ import annotations

from dataclasses import dataclass

from referee.table.ports import PATTERNS
from referee.core.rulings import Ruling

Color = tuple[float, float, float]

OFF: Color = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class LightPattern:
    """How one pattern is drawn on an RGB LED: a solid colour, a blink between
    two colours, or a pulse (fade in and out). Times are in seconds."""

    name: str
    effect: str                 # "solid" | "blink" | "pulse"
    on_color: Color
    off_color: Color = OFF
    on_time: float = 0.0        # blink: time on each colour
    off_time: float = 0.0
    fade_time: float = 0.0      # pulse: fade in, and again out
    meaning: str = ""


LIGHT_PATTERNS: dict[str, LightPattern] = {p.name: p for p in (
    LightPattern("off", "solid", OFF, meaning="nothing to show"),
    LightPattern("ready", "solid", (0.15, 0.15, 0.15), meaning="in the game (dim white)"),
    LightPattern("turn", "solid", (0.0, 0.0, 1.0), meaning="your turn to lay a card (blue)"),
    LightPattern("won", "blink", (0.0, 1.0, 0.0), on_time=0.15, off_time=0.15,
                 meaning="your slap won the pile (fast green blink)"),
    LightPattern("false_slap", "blink", (1.0, 0.0, 0.0), on_time=0.1, off_time=0.1,
                 meaning="false slap or dead card (fast red blink)"),
    LightPattern("pick_up", "blink", (0.6, 0.0, 1.0), on_time=0.4, off_time=0.4,
                 meaning="pick up the pile (slow purple blink)"),
    LightPattern("waiting", "pulse", (1.0, 0.7, 0.0), fade_time=1.0,
                 meaning="out of cards, may still slap back in (yellow pulse)"),
    LightPattern("out", "solid", (0.25, 0.0, 0.0), meaning="out of the game (dim red)"),
    LightPattern("winner", "blink", (0.0, 1.0, 0.0), (1.0, 1.0, 1.0), on_time=0.5, off_time=0.5,
                 meaning="won the game (green / white)"),
    LightPattern("check_table", "blink", (1.0, 0.35, 0.0), on_time=0.5, off_time=0.5,
                 meaning="operator: check the table (amber blink)"),
)}

assert set(LIGHT_PATTERNS) == set(PATTERNS), "every port pattern needs a look, and only those"

# Ruling kinds that light nothing: the ones before or after them already did
# (pays follows false_slap; slapstick's transfers are spoken), or they concern
# the whole table and are spoken (target, reverse), or nothing happened (ignored).
NO_LIGHT: frozenset[str] = frozenset({"ignored", "pays", "target", "reverse"})

_SEAT_PATTERN: dict[str, str] = {
    "wins_pile": "won",
    "picks_up": "pick_up",
    "false_slap": "false_slap",
    "dead_card": "false_slap",
    "waiting": "waiting",
    "back_in": "ready",
    "out": "out",
    "sits_out": "out",
}

def patterns_for(ruling: Ruling, players: int = 0) -> list[tuple[int | None, str]]:
    """The (seat or None for the status light, pattern) pairs a ruling shows, in order.

    `players` (optional) lets whole-table rulings reach every seat: a new round
    sets every seat "ready", game over sets the losers "off". Every ruling
    kind maps (possibly to nothing); patterns persist until the next show().
    """
    kind, seat = ruling.kind, ruling.seat
    if kind in NO_LIGHT:
        return []
    if kind in _SEAT_PATTERN:
        return [] if seat is None else [(seat, _SEAT_PATTERN[kind])]
    if kind == "check_table":
        return [(None, "check_table")]
    if kind == "slap_again":
        return [(s, "ready") for s in ruling.get("seats", ())] + [(None, "ready")]
    if kind == "round_end":
        return [(s, "ready") for s in range(players)] + [(None, "ready")]
    if kind == "game_over":
        winner = ruling.get("winner", seat)
        loser = ruling.get("loser")
        steps: list[tuple[int | None, str]] = [
            (s, "off") for s in range(players) if s != winner and s != loser]
        if loser is not None:
            steps.append((loser, "out"))
        if winner is not None:
            steps.append((winner, "winner"))
        steps.append((None, "winner"))
        return steps
    return []

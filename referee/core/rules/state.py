"""The values a game in progress is made of: player statuses, a laid card, a slap window, the errors."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ..cards import Card
from ..rulings import Ruling

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

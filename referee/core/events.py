"""What the sensors report: timestamped events in integer nanoseconds.

Every event carries `t_ns`, the moment it *happened* on CLOCK_MONOTONIC (the
clock of camera frames and kernel GPIO edges), never the moment software got
to it. The referee orders and judges by `t_ns` alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .cards import Card


@dataclass(frozen=True, slots=True)
class CardSeen:
    """The camera saw `card` land on the pile (first frame that showed it).
    `by` is the seat the camera thinks laid it, when it can tell."""

    card: Card
    t_ns: int
    confidence: float = 1.0
    by: int | None = None


@dataclass(frozen=True, slots=True)
class Play:
    """The player on turn laid the top card of their tracked hand (replay and
    simulation, where the hands are known)."""

    t_ns: int
    by: int | None = None


@dataclass(frozen=True, slots=True)
class Slap:
    """A pad's first contact edge."""

    seat: int
    t_ns: int


@dataclass(frozen=True, slots=True)
class Flinch:
    """A hand went towards the pile and pulled back without touching."""

    seat: int
    t_ns: int


@dataclass(frozen=True, slots=True)
class Press:
    """A deliberate pad press that is not a slap (slapstick: chicken out, stop, done)."""

    seat: int
    t_ns: int


@dataclass(frozen=True, slots=True)
class TimeUp:
    """The game's time limit passed."""

    t_ns: int


@dataclass(frozen=True, slots=True)
class PileCleared:
    """The camera saw the pile taken away (evidence only; rulings decide who took it)."""

    t_ns: int


@dataclass(frozen=True, slots=True)
class CardUnreadable:
    """Something card-like landed but could not be named with confidence."""

    t_ns: int
    confidence: float = 0.0


Event = Union[CardSeen, Play, Slap, Flinch, Press, TimeUp, PileCleared, CardUnreadable]
SeatEvent = Union[Slap, Flinch, Press]

# At one instant, a card lands before anything done to it: "a slap earlier than
# the card belongs to the previous top", and one at the same nanosecond to the new.
_KIND_ORDER: dict[type, int] = {
    TimeUp: 0, CardSeen: 1, Play: 1, CardUnreadable: 1, PileCleared: 2,
    Slap: 3, Flinch: 4, Press: 5,
}


def order_key(event: Event) -> tuple[int, int, int, str]:
    """Total order on events that depends only on what happened, never on arrival."""
    seat = getattr(event, "seat", -1)
    card = str(getattr(event, "card", ""))
    return (event.t_ns, _KIND_ORDER[type(event)], seat, card)


US = 1_000
MS = 1_000_000
S = 1_000_000_000

"""What pad sources deliver: the referee's event plus its timing uncertainty, and notices for people."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Union

from referee.core.events import Flinch, Press, Slap

PadSeatEvent = Union[Slap, Flinch, Press]
NoticeKind = Literal["stuck", "unstuck", "lost_edges", "overcurrent"]


@dataclass(frozen=True, slots=True)
class PadEvent:
    """A referee event from a pad, with the timing facts the arbiter needs.

    `event.t_ns` is already corrected by the pad's calibrated latency offset;
    `raw_t_ns` is the stamp as the backend gave it. Two events closer than
    the larger of their `tie_us` cannot be told apart by this hardware.
    """

    event: PadSeatEvent
    tie_us: int
    raw_t_ns: int
    source: str

    @property
    def seat(self) -> int:
        return self.event.seat

    @property
    def t_ns(self) -> int:
        return self.event.t_ns


@dataclass(frozen=True, slots=True)
class PadNotice:
    """Something about a pad a person should hear ("pad 3 is stuck"); not a game event."""

    kind: NoticeKind
    seat: int | None
    t_ns: int
    message: str


def spoken_pad(seat: int) -> str:
    """Seats are 0-based inside the program, 1-based when spoken."""
    return f"pad {seat + 1}"

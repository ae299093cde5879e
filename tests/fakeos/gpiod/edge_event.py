"""`gpiod.EdgeEvent`, shaped like libgpiod v2's bindings/python/gpiod/edge_event.py."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["EdgeEvent"]


@dataclass(frozen=True, init=False)
class EdgeEvent:
    """One edge event: kernel stamp, line, and the request's and the line's sequence numbers."""

    class Type(Enum):
        """Possible edge event types."""

        RISING_EDGE = 1
        FALLING_EDGE = 2

    event_type: Type
    timestamp_ns: int
    line_offset: int
    global_seqno: int
    line_seqno: int

    def __init__(self, event_type: int, timestamp_ns: int, line_offset: int, global_seqno: int,
                 line_seqno: int) -> None:
        object.__setattr__(self, "event_type", EdgeEvent.Type(event_type))
        object.__setattr__(self, "timestamp_ns", timestamp_ns)
        object.__setattr__(self, "line_offset", line_offset)
        object.__setattr__(self, "global_seqno", global_seqno)
        object.__setattr__(self, "line_seqno", line_seqno)

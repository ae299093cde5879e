"""The ports the table runtime talks through. Adapters (real or simulated)
implement them; the runtime never knows which one it has.

Each is a small Protocol, so a hand-written fake in a test is as good as the
real adapter, and `referee/` never imports `hardware/`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Protocol, runtime_checkable

from ..core.events import Event
from ..core.rulings import Ruling


class Clock(Protocol):
    """CLOCK_MONOTONIC in integer nanoseconds (camera frames and pad edges share it)."""

    def now_ns(self) -> int: ...


@dataclass(frozen=True)
class Notice:
    """Something the table must hear about that is not a game event
    (a stuck pad, the camera lost or back, a card that cannot be read)."""

    kind: str                      # pad_stuck, pad_ok, camera_lost, camera_back, unreadable, check_table
    message: str
    seat: int | None = None
    t_ns: int = 0


@dataclass(frozen=True)
class Watermark:
    """A source's promise: every event it will still report happened after `t_ns`.
    The camera sends one after each frame (the frame's stamp, or just before a landing it is still
    reading), so the referee holds slaps only while a card may still be on its way. `looked_ns` is the
    stamp of the newest frame it has read: a camera behind the table (a busy CPU) has not yet looked at
    what came after it, so a slap after it waits for the camera, not only for the hold-back."""

    t_ns: int
    looked_ns: int | None = None


@runtime_checkable
class EventSource(Protocol):
    """Something that reports timestamped events: pads, the camera pipeline, a keyboard."""

    name: str

    def poll(self, timeout_s: float) -> list[Event | Notice]:
        """Events (and notices) that arrived since the last call; waits at most `timeout_s` for one."""
        ...

    def close(self) -> None: ...


# The patterns a seat's light (and the status light) can show.
PATTERNS = ("off", "turn", "won", "false_slap", "pick_up", "waiting", "out", "winner", "check_table", "ready")


class Lights(Protocol):
    def show(self, seat: int | None, pattern: str) -> None:
        """Show `pattern` on `seat`'s light (None: the status light)."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Utterance:
    """Something to say. `kind` "count" may be cut by a newer ruling; rulings are never cut."""

    text: str
    kind: str = "ruling"          # "ruling", "count", "chime", "alert"
    t_ns: int = 0


class Announcer(Protocol):
    def say(self, utterance: Utterance) -> None:
        """Queue speech; never blocks the caller, never overlaps, may drop a stale count."""
        ...

    def close(self) -> None: ...


class RecordNotKept(Exception):
    """The ruling log could not keep a record: judging pauses until it can; `reason` names why
    ("disk full", ...) and `announcement` is the sentence to say at the table."""

    reason: str

    @property
    def announcement(self) -> str:
        return f"Check the table: the journal cannot be written ({self.reason})"


class RulingLog(Protocol):
    """Where events and rulings are kept (the journal); a write that fails raises RecordNotKept."""

    def record_event(self, event: Event, source: str, arrival_ns: int) -> int: ...

    def record_ruling(self, ruling: Ruling, event_ids: Iterable[int] = ()) -> int: ...

    def record_evidence(self, ruling_id: int, kind: str, t_ns: int, jpeg: bytes) -> None: ...


class NullLights:
    """Lights that do nothing (no LEDs wired)."""

    def show(self, seat: int | None, pattern: str) -> None:
        return None

    def close(self) -> None:
        return None

    def __repr__(self) -> str:
        return "<NullLights: no LEDs>"


SILENT_KEEP = 500  # lines a silent table keeps (MemoryAnnouncer's `keep`) when nobody reads them back


class MemoryAnnouncer:
    """Keeps what would be said, in order (tests, headless runs); with `keep`, only the newest `keep` lines (a
    silent table or kiosk that runs for days must not grow with every line it would have said)."""

    def __init__(self, keep: int | None = None) -> None:
        self.said: list[Utterance] = []
        self.keep = keep

    def say(self, utterance: Utterance) -> None:
        self.said.append(utterance)
        if self.keep is not None and len(self.said) > self.keep:
            del self.said[:len(self.said) - self.keep]

    def close(self) -> None:
        return None

    def __repr__(self) -> str:
        return f"<MemoryAnnouncer silent, {len(self.said)} utterances>"


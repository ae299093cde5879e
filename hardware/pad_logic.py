"""The pad state machine shared by every backend: first-edge debounce, stuck pads, timing.

Pure and single-threaded: backends feed it raw edges `(channel, t_ns, active)`
and it returns what to deliver. An edge after the debounce window changes the
pad's state whatever direction it reports: on an idle pad it is the first
contact (a slap, stamped with that edge's time), on a pressed pad the start of
the release. Kernel GPIO events are stamped at the last hard IRQ before the IRQ
thread ran and say the level the thread read later (gpiolib-cdev.c), so under
bounce the first event of a touch may well say "released". Edges inside the
window are bounce; when it ends the level settles the state: the level the
last event reported, checked against the level read from the hardware (a
disagreement that outlasts a poll means edges were lost, and the read level
wins). With `debounce_ns` 0 (calibration) every edge is taken at its word.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Literal, NamedTuple, Union

from referee.core.events import Flinch, Press, Slap

from .pad_errors import PadConfigError
from .pad_events import PadEvent, PadNotice, spoken_pad
from .pad_timing import PadTiming

Kind = Literal["slap", "press"]
Output = Union[PadEvent, PadNotice]
LevelReader = Callable[["Channel"], Union[bool, None]]


class Channel(NamedTuple):
    """One physical input: a seat's slap pad or its press button."""

    seat: int
    kind: Kind = "slap"


@dataclass
class _State:
    active: bool = False          # debounced level
    raw_active: bool = False      # level after the latest raw edge
    raw_t_ns: int = 0
    window_end_ns: int = -1       # edges before this are bounce
    pressed_at_ns: int | None = None
    dirty: bool = False           # an edge was ignored: the level may have moved
    stuck: bool = False
    doubt: tuple[int, int] | None = None   # (poll time, raw_t_ns) when the read level disagreed


class PadLogic:
    """Debounce, stuck detection and timing for a set of channels (not thread safe)."""

    def __init__(self, channels: Iterable[Channel], *, source: str, debounce_ns: int,
                 stuck_after_ns: int, backend_tie_us: int, timing: PadTiming | None = None) -> None:
        if debounce_ns < 0 or stuck_after_ns <= debounce_ns:
            raise PadConfigError("need 0 <= debounce < stuck_after")
        self.source = source
        self.debounce_ns = debounce_ns
        self.stuck_after_ns = stuck_after_ns
        self.backend_tie_us = backend_tie_us
        self.timing = timing or PadTiming()
        self._states: dict[Channel, _State] = {ch: _State() for ch in channels}
        if not self._states:
            raise PadConfigError("no pads configured")

    @property
    def channels(self) -> tuple[Channel, ...]:
        return tuple(self._states)

    def stuck(self) -> frozenset[int]:
        """Seats with a stuck input right now."""
        return frozenset(ch.seat for ch, st in self._states.items() if st.stuck)

    def is_active(self, channel: Channel) -> bool:
        return self._states[channel].active

    def state(self, channel: Channel) -> str:
        """'up', 'down' or 'stuck', for reprs and status pages."""
        st = self._states[channel]
        return "stuck" if st.stuck else ("down" if st.active else "up")

    def start(self, channel: Channel, t_ns: int, active: bool) -> None:
        """Set the level found at start-up; a pad held from the start can become stuck."""
        st = self._states[channel]
        st.active = st.raw_active = active
        st.raw_t_ns = t_ns
        st.pressed_at_ns = t_ns if active else None

    def edge(self, channel: Channel, t_ns: int, active: bool, tie_us: int | None = None) -> list[Output]:
        """A raw edge at `t_ns`; `active` is the level it reports (pressed), trusted only when settling."""
        st = self._states[channel]
        before = st.raw_active
        if t_ns >= st.raw_t_ns:
            st.raw_active, st.raw_t_ns = active, t_ns
        if t_ns < st.window_end_ns:
            st.dirty = True
            return []
        if st.dirty:  # the window closed before any poll: the last event's level is the settled one
            self._apply(st, before, st.raw_t_ns)
        st.dirty, st.doubt = False, None
        if st.stuck:
            return [] if active else self._unstick(channel, st, t_ns)
        if self.debounce_ns == 0:          # no window to settle in (calibration): every edge at its word
            if not active:
                st.active, st.pressed_at_ns = False, None
                return []
        elif st.active:                    # any edge on a pressed pad starts its release
            st.active, st.pressed_at_ns = False, None
            st.window_end_ns = t_ns + self.debounce_ns
            return []
        st.active, st.pressed_at_ns = True, t_ns   # any edge on an idle pad is the first contact
        st.window_end_ns = t_ns + self.debounce_ns
        cls = Slap if channel.kind == "slap" else Press
        return [self._event(cls, channel.seat, t_ns, tie_us)]

    def flinch(self, seat: int, t_ns: int, tie_us: int | None = None) -> list[Output]:
        """A hand approached and withdrew without touching (stamped at the approach)."""
        if seat in self.stuck():
            return []
        return [self._event(Flinch, seat, t_ns, tie_us)]

    def poll(self, now_ns: int, read_level: LevelReader | None = None) -> list[Output]:
        """Settle levels after bounce windows and announce pads held past `stuck_after_ns`."""
        out: list[Output] = []
        for channel, st in self._states.items():
            if now_ns >= st.window_end_ns and not st.stuck and (st.dirty or read_level is not None):
                self._settle(channel, st, read_level, now_ns)
            if st.stuck and not self._level(channel, st, read_level):
                out += self._unstick(channel, st, now_ns)
            elif (st.active and not st.stuck and st.pressed_at_ns is not None
                    and now_ns - st.pressed_at_ns >= self.stuck_after_ns):
                if self._level(channel, st, read_level):
                    st.stuck = True
                    out.append(PadNotice("stuck", channel.seat, now_ns,
                                         f"{spoken_pad(channel.seat)} is stuck"))
                # else its release is on its way (or was lost, and _settle gives up on it next poll)
        return out

    def _level(self, channel: Channel, st: _State, read_level: LevelReader | None) -> bool:
        level = read_level(channel) if read_level is not None else None
        return st.raw_active if level is None else level

    def _settle(self, channel: Channel, st: _State, read_level: LevelReader | None, now_ns: int) -> None:
        """After the window the state follows the level: the one the last event reported, once the
        hardware agrees; if the hardware still disagrees a poll later with no event between, edges
        were lost and the hardware is right."""
        level = read_level(channel) if read_level is not None else None
        expected = st.raw_active if st.dirty else st.active
        if level is None or level == expected:
            if st.dirty:
                self._apply(st, st.raw_active, st.raw_t_ns)
            st.dirty, st.doubt = False, None
        elif st.doubt is None or st.doubt[1] != st.raw_t_ns:
            st.doubt = (now_ns, st.raw_t_ns)   # events may still be on their way: ask again next poll
        elif now_ns - st.doubt[0] >= self.debounce_ns:
            st.dirty, st.doubt, st.raw_active = False, None, level
            self._apply(st, level, now_ns)

    @staticmethod
    def _apply(st: _State, level: bool, pressed_at_ns: int) -> None:
        """Take a settled level without an event: a change is too close to an accepted edge to be a slap."""
        if level != st.active:
            st.active = level
            st.pressed_at_ns = pressed_at_ns if level else None

    def _unstick(self, channel: Channel, st: _State, t_ns: int) -> list[Output]:
        st.stuck = st.active = False
        st.pressed_at_ns = None
        st.window_end_ns = t_ns + self.debounce_ns
        return [PadNotice("unstuck", channel.seat, t_ns, f"{spoken_pad(channel.seat)} is working again")]

    def _event(self, cls: type, seat: int, raw_t_ns: int, tie_us: int | None) -> PadEvent:
        t_ns, tie = self.timing.apply(seat, raw_t_ns, self.backend_tie_us if tie_us is None else tie_us)
        return PadEvent(cls(seat, t_ns), tie, raw_t_ns, self.source)

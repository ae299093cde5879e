"""Simulated and keyboard pads share the same logic as the real ones."""
from __future__ import annotations

import os

import pytest

from hardware.pad_errors import PadConfigError
from hardware.pad_timing import PadTiming
from hardware.pads_keyboard import KeyboardPads
from hardware.pads_sim import SimPads
from referee.core.events import MS, S, US, Flinch, Press, Slap, order_key

T0 = 10 * S


def test_sim_injected_slaps_keep_their_stamps_and_order() -> None:
    with SimPads(3) as pads:
        pads.slap(2, T0 + 1 * US)
        pads.slap(0, T0)
        pads.press(1, T0 + 5 * MS)
        pads.flinch(1, T0 + 9 * MS)
        events = [e.event for e in pads.drain()]
        assert events == [Slap(2, T0 + 1 * US), Slap(0, T0), Press(1, T0 + 5 * MS), Flinch(1, T0 + 9 * MS)]
        assert [e.seat for e in sorted(events, key=order_key)] == [0, 2, 1, 1]


def test_sim_double_slap_inside_debounce_is_one() -> None:
    with SimPads(1, debounce_ms=10) as pads:
        pads.slap(0, T0, hold_ns=2 * MS)
        pads.slap(0, T0 + 4 * MS, hold_ns=2 * MS)
        pads.slap(0, T0 + 30 * MS)
        assert [e.t_ns for e in pads.drain()] == [T0, T0 + 30 * MS]


def test_sim_applies_calibration_and_iterates_until_closed() -> None:
    pads = SimPads(2, tie_us=7, timing=PadTiming(offset_ns={1: 1 * MS}, tie_margin_us={1: 3}))
    pads.slap(1, T0)
    pads.close()
    (event,) = list(pads)
    assert event.event == Slap(1, T0 - 1 * MS) and event.tie_us == 10 and event.source == "sim"


def test_keyboard_keys_are_stamped_at_read_time() -> None:
    now = [T0]
    with KeyboardPads({"a": 0, "l": 1}, start_reader=False, clock=lambda: now[0], watchdog_s=None) as pads:
        assert pads.feed("a") == 1
        now[0] += 50 * MS
        assert pads.feed("xL") == 1
        now[0] += 50 * MS
        pads.feed("a")
        events = pads.drain()
        assert [e.event for e in events] == [Slap(0, T0), Press(1, T0 + 50 * MS), Slap(0, T0 + 100 * MS)]
        assert events[0].tie_us == 20_000
        pads.poll(T0 + 10 * S)
        assert pads.stuck == frozenset()  # key release is immediate: never stuck


def test_keyboard_reads_a_stream_in_a_thread() -> None:
    r, w = os.pipe()
    with os.fdopen(r) as stream:
        got: list[Slap] = []
        pads = KeyboardPads({"a": 0}, stream=stream, watchdog_s=None)
        pads.on_slap = got.append
        os.write(w, b"a")
        event = pads.get(timeout=5)
        os.close(w)
        pads.close()
    assert event.event.seat == 0 and got == [event.event]


def test_keyboard_refuses_bad_keys() -> None:
    with pytest.raises(PadConfigError):
        KeyboardPads({"A": 0}, start_reader=False)

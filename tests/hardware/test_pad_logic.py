"""PadLogic alone: the rules every backend inherits."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.pad_errors import PadConfigError
from hardware.pad_events import PadEvent, PadNotice
from hardware.pad_logic import Channel, PadLogic
from hardware.pad_timing import PadTiming
from referee.events import MS, S, Slap

SLAP0 = Channel(0)


def logic(**kw: object) -> PadLogic:
    args: dict[str, object] = dict(source="t", debounce_ns=10 * MS, stuck_after_ns=3 * S, backend_tie_us=5)
    args.update(kw)
    return PadLogic([SLAP0, Channel(1)], **args)  # type: ignore[arg-type]


def test_lost_release_inside_window_then_press_after_it_is_a_new_slap() -> None:
    lg = logic()
    assert lg.edge(SLAP0, 0, True)
    assert lg.edge(SLAP0, 5 * MS, False) == []        # real release, inside the window
    out = lg.edge(SLAP0, 50 * MS, True)               # next edge agrees with the remembered level
    assert [e.event for e in out if isinstance(e, PadEvent)] == [Slap(0, 50 * MS)]


def test_stuck_is_said_once_and_cleared_by_release() -> None:
    lg = logic()
    lg.edge(SLAP0, 0, True)
    (notice,) = lg.poll(3 * S)
    assert isinstance(notice, PadNotice) and notice.message == "pad 1 is stuck" and lg.stuck() == {0}
    assert lg.poll(4 * S) == [] and lg.edge(SLAP0, 4 * S, True) == []
    (back,) = lg.edge(SLAP0, 5 * S, False)
    assert isinstance(back, PadNotice) and back.kind == "unstuck" and lg.stuck() == frozenset()
    assert lg.flinch(0, 6 * S)


def test_flinch_from_a_stuck_seat_is_dropped() -> None:
    lg = logic()
    lg.edge(SLAP0, 0, True)
    lg.poll(3 * S)
    assert lg.flinch(0, 4 * S) == [] and lg.flinch(1, 4 * S)


def test_bad_settings_and_timing_files() -> None:
    with pytest.raises(PadConfigError):
        logic(stuck_after_ns=5 * MS)
    with pytest.raises(PadConfigError):
        PadLogic([], source="t", debounce_ns=0, stuck_after_ns=1, backend_tie_us=0)
    with pytest.raises(PadConfigError):
        PadTiming.from_mapping({"offset_ns": {}, "tie_margins": {}})
    timing = PadTiming.from_mapping({"offset_ns": {"2": 1500}, "tie_margin_us": {"2": 4}})
    assert timing.apply(2, 10_000, 50) == (8_500, 54) and timing.apply(0, 10_000, 50) == (10_000, 50)
    with pytest.raises(PadConfigError):
        PadTiming(tie_margin_us={0: -1})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40 * MS), min_size=1, max_size=60))
def test_slaps_are_first_edges_at_least_a_window_apart(gaps: list[int]) -> None:
    lg = logic()
    t, level, edges, slaps = 0, False, [], []
    for gap in gaps:
        t += gap
        level = not level
        edges.append((t, level))
        slaps += [o.event.t_ns for o in lg.edge(SLAP0, t, level) if isinstance(o, PadEvent)]
    presses = [t for t, lv in edges if lv]
    assert slaps and slaps[0] == presses[0]
    assert set(slaps) <= set(presses)
    assert all(b - a >= 10 * MS for a, b in zip(slaps, slaps[1:]))

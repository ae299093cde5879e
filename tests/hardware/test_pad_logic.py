"""PadLogic alone: the rules every backend inherits."""
from __future__ import annotations

from typing import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.pad_errors import PadConfigError
from hardware.pad_events import PadEvent, PadNotice
from hardware.pad_logic import Channel, PadLogic
from hardware.pad_timing import PadTiming
from referee.core.events import MS, S, Slap

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


def slaps(out: Sequence[object]) -> list[int]:
    return [o.event.t_ns for o in out if isinstance(o, PadEvent)]


def test_first_event_saying_released_still_starts_the_slap_at_its_stamp() -> None:
    lg = logic()
    assert slaps(lg.edge(SLAP0, 1_000, False)) == [1_000]   # the IRQ thread read the bounce open
    assert lg.edge(SLAP0, 1_200, True) == []                  # bounce, inside the window
    assert lg.poll(20 * MS, lambda ch: True) == [] and lg.is_active(SLAP0)


def test_release_bounce_read_as_pressed_is_no_second_slap() -> None:
    lg = logic()
    lg.edge(SLAP0, 0, True)
    lg.poll(20 * MS, lambda ch: True)
    assert lg.edge(SLAP0, 80 * MS, True) == []                # the release's first event says "pressed"
    assert lg.edge(SLAP0, 80 * MS + 50_000, False) == []
    assert lg.poll(100 * MS, lambda ch: False) == [] and not lg.is_active(SLAP0)
    assert slaps(lg.edge(SLAP0, 300 * MS, False)) == [300 * MS]   # the next touch counts again


def test_window_settles_to_the_last_events_level_once_the_pin_agrees() -> None:
    lg = logic()
    lg.edge(SLAP0, 0, True)
    lg.edge(SLAP0, 2 * MS, False)                             # a tap shorter than the window
    assert lg.poll(11 * MS, lambda ch: True) == [] and lg.is_active(SLAP0)   # the pin disagrees: wait
    assert lg.poll(12 * MS, lambda ch: False) == [] and not lg.is_active(SLAP0)


def test_a_disagreement_that_outlasts_a_poll_means_lost_edges_and_the_pin_wins() -> None:
    lg = logic()
    lg.poll(1 * S, lambda ch: ch == SLAP0)                    # pressed, but no event came (yet)
    assert not lg.is_active(SLAP0)
    lg.poll(1 * S + 5 * MS, lambda ch: ch == SLAP0)           # too soon to give up on the event
    assert not lg.is_active(SLAP0)
    lg.poll(1 * S + 20 * MS, lambda ch: ch == SLAP0)
    assert lg.is_active(SLAP0)                                # taken, without inventing a slap
    assert lg.edge(SLAP0, 2 * S, False) == []                 # so its release is no phantom slap


def test_no_debounce_takes_every_edge_at_its_word() -> None:
    lg = logic(debounce_ns=0)
    out = lg.edge(SLAP0, 0, True) + lg.edge(SLAP0, 100, False) + lg.edge(SLAP0, 200, True) + lg.edge(SLAP0, 300, True)
    assert slaps(out) == [0, 200, 300]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40 * MS), min_size=1, max_size=60),
       st.lists(st.booleans(), min_size=60, max_size=60))
def test_slaps_are_first_edges_at_least_a_window_apart(gaps: list[int], says: list[bool]) -> None:
    """Whatever level each edge reports, a slap is an edge's own stamp, the first is the first edge,
    and slaps are a window apart (bounce shorter than the window is never a second slap)."""
    lg = logic()
    t, got = 0, []
    edges = []
    for gap, level in zip(gaps, says):
        t += gap
        edges.append(t)
        got += slaps(lg.edge(SLAP0, t, level))
    assert got and got[0] == edges[0]
    assert set(got) <= set(edges)
    assert all(b - a >= 10 * MS for a, b in zip(got, got[1:]))

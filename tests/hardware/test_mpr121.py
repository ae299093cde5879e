"""The MPR121 driver and Mpr121Pads with default arguments, over the fakes of tests/fakeos.

Bus 1 opens through the smbus2 fake (an MPR121 that follows the datasheet in
real time), the IRQ line reaches gpiozero through the lgpio fake (kernel
stamps); the world's timeline says where the hands are. Every stamp is checked
against the timeline's true first contact.
"""
from __future__ import annotations

import time
from typing import Any, Iterator

import pytest

from hardware.mpr121 import MPR121, MPR121Config
from hardware.pad_errors import PadConfigError
from hardware.pad_events import PadEvent
from hardware.pads_mpr121 import Mpr121Pads
from referee.core.events import Flinch, Press, Slap

from .fake_mpr121 import fakeos, go, table, table_spec, wait_until

MARGIN_US = 4078          # ESI 1 ms x SFI 4, + the 78 µs scan that ends an update: the default tie margin
FAINT_US = 7078           # ... for a change that barely crosses its threshold (hovers): + 3 scans


@pytest.fixture
def world() -> Iterator[Any]:
    with fakeos() as module:
        yield module


def slap(seat: int, t_ms: float, hold_ms: float = 60) -> dict[str, Any]:
    return {"seat": seat, "t_us": t_ms * 1000, "hold_us": hold_ms * 1000}


def run_table(world: Any, contacts: list[dict[str, Any]], *, hovers: list[dict[str, Any]] | None = None,
              until_ms: float | None = None, **pads_kw: Any) -> tuple[Any, list[PadEvent], Mpr121Pads]:
    """Default-argument pads on a fresh table; the timeline runs to `until_ms`; returns (world, events, pads)."""
    w = table(world, table_spec(contacts=contacts, hovers=hovers))
    pads = Mpr121Pads({s: s for s in range(6)}, **pads_kw)
    go(w)
    ends = [(c["t_us"] + c["hold_us"]) / 1000 for c in contacts] + [h["until_us"] / 1000 for h in hovers or []]
    wait_until(w, until_ms if until_ms is not None else max(ends, default=0) + 30)
    return w, pads.drain(), pads


def error_us(w: Any, event: PadEvent, t_ms: float) -> float:
    return (event.t_ns - w.ns(t_ms * 1000)) / 1000


# -- the driver -----------------------------------------------------------------------------------
def test_configuration_is_written_in_stop_mode_and_read_back(world: Any) -> None:
    table(world, table_spec())
    import smbus2
    chip = MPR121(smbus2.SMBus(1), config=MPR121Config(touch_threshold=20, release_threshold=9))
    regs = smbus2.chip(1, 0x5A).regs
    assert regs[0x5D] & 0x07 == 0 and regs[0x5D] >> 3 & 3 == 0      # ESI 1 ms, SFI 4
    assert regs[0x5C] & 0x3F == 16 and regs[0x5B] == 0               # 16 µA, no debounce
    assert [chip.thresholds(e) for e in (0, 11)] == [(20, 9), (20, 9)]
    assert regs[0x5E] == 0xC0 | 0x30 | 12                            # CL 11, prox on ELE0-11, 12 electrodes
    assert chip.running() and "1 ms x 4" in repr(chip)
    chip.set_thresholds(30, 15, electrodes=[3])                       # stop, write, run again
    assert chip.thresholds(3) == (30, 15) and chip.thresholds(2) == (20, 9) and chip.running()
    chip.close()
    assert not chip.running() and repr(chip).endswith("closed>")


def test_no_chip_at_the_address_fails_like_i2c_dev(world: Any) -> None:
    table(world, table_spec())
    import smbus2
    with pytest.raises(OSError) as excinfo:
        MPR121(smbus2.SMBus(1), address=0x5B)
    assert excinfo.value.errno == 121
    with pytest.raises(FileNotFoundError):
        smbus2.SMBus(0)


def test_tie_margin_is_the_status_update_period_computed_from_the_configuration() -> None:
    assert MPR121Config().tie_margin_us == MARGIN_US and MPR121Config().faint_tie_margin_us == FAINT_US
    assert MPR121Config(sample_period_ms=2, second_filter=10).tie_margin_us == 20_078
    assert MPR121Config(proximity="off", electrodes=6).tie_margin_us == 4036        # 6 x 6 x 1 µs scans
    debounced = MPR121Config(touch_debounce=2)
    assert debounced.tie_margin_us == MARGIN_US and debounced.touch_delay_us == 8000
    slow_scan = MPR121Config(sample_period_ms=16, first_filter=34, charge_time_code=7)   # 34 x 64 µs x 13
    assert slow_scan.sample_period_us == 28_288 and slow_scan.tie_margin_us == 5 * 28_288
    with pytest.raises(PadConfigError):
        MPR121Config(sample_period_ms=3)


# -- stamps against the timeline --------------------------------------------------------------------
def honest(err_us: float, event: PadEvent, margin_us: int = MARGIN_US) -> bool:
    """Within the margin after the hand, and before it only by what the event's widened tie admits
    (a status read later than one update: later changes may share an earlier edge)."""
    return -(event.tie_us - margin_us) <= err_us < margin_us


def test_slaps_are_stamped_within_the_tie_margin_of_the_first_contact(world: Any) -> None:
    times = [60 + 7.3 * i for i in range(9)]                         # every phase of the 4 ms updates
    w, events, pads = run_table(world, [slap(i % 6, t, 30) for i, t in enumerate(times)])
    with pads:
        assert pads.tie_us(0) == MARGIN_US and "irq-timed 4000 µs" in repr(pads)
        slaps = [e for e in events if isinstance(e.event, Slap)]
        assert [e.seat for e in slaps] == [i % 6 for i in range(9)]
        errors = [error_us(w, e, t) for e, t in zip(slaps, times)]
        assert all(honest(err, e) for err, e in zip(errors, slaps)), errors


def test_touches_within_the_margin_tie_and_farther_apart_are_ordered(world: Any) -> None:
    pairs = [(50.0, 1.5), (130.3, 0.7), (210.9, 3.2), (300.0, 12.0), (380.6, 9.1)]   # (first, gap) in ms
    contacts = [c for t, gap in pairs for c in (slap(1, t, 40), slap(4, t + gap, 40))]
    w, events, pads = run_table(world, contacts)
    with pads:
        slaps = [e for e in events if isinstance(e.event, Slap)]
        assert len(slaps) == 10
        for (t, gap), (a, b) in zip(pairs, zip(slaps[::2], slaps[1::2])):
            first, second = sorted((a, b), key=lambda e: e.seat)        # seat 1 touched first
            apart_us = (second.t_ns - first.t_ns) / 1000
            tie = max(a.tie_us, b.tie_us)                                # wider only after a late read
            if gap * 1000 < MARGIN_US:
                assert abs(apart_us) <= tie, (t, gap, apart_us)          # a dead heat for the referee
            else:                                                        # told apart, in the right order
                assert apart_us > tie or (tie > MARGIN_US and abs(apart_us) <= tie), (t, gap, apart_us)
            assert abs(apart_us - gap * 1000) < tie


def test_a_missed_irq_edge_is_never_a_tie_seconds_wide(world: Any) -> None:
    from gpiozero import Device
    w = table(world, table_spec(contacts=[slap(2, 100, 900), slap(3, 1200, 50)]))
    pads = Mpr121Pads({s: s for s in range(6)})
    with pads:
        irq = Device.pin_factory.pin(4)
        handler = irq.when_changed
        irq.when_changed = None                  # Python misses the chip's edge...
        go(w)
        wait_until(w, 110)
        irq.when_changed = handler               # ...and listens again: the line stays low, unread
        wait_until(w, 1300)
        events = pads.drain()
        assert all(e.tie_us < 100_000 for e in events)
        assert [e.event.seat for e in events] == [3]                 # seat 2's touch was not judged
        assert honest(error_us(w, events[0], 1200), events[0])      # and the next one is timed again
        lost = [n for n in pads.notices if n.kind == "lost_edges"]
        assert [n.seat for n in lost] == [2] and "check the table" in lost[0].message


# -- flinches ---------------------------------------------------------------------------------------
def test_a_hover_without_a_touch_is_a_flinch_of_that_seat_stamped_at_the_approach(world: Any) -> None:
    hovers = [{"seat": 3, "t_us": 80_000, "until_us": 200_000},
              {"seat": 1, "t_us": 300_000, "until_us": 420_000}]      # seat 1 slaps during its hover
    w, events, pads = run_table(world, [slap(1, 350, 30)], hovers=hovers)
    with pads:
        assert [type(e.event) for e in events] == [Flinch, Slap]
        flinch, hit = events
        assert flinch.seat == 3 and honest(error_us(w, flinch, 80), flinch, FAINT_US)
        assert hit.seat == 1 and honest(error_us(w, hit, 350), hit)


def test_flinches_are_per_seat_while_the_proximity_channel_stays_up(world: Any) -> None:
    hovers = [{"seat": 0, "t_us": 60_000, "until_us": 260_000},
              {"seat": 4, "t_us": 120_000, "until_us": 200_000},      # starts while seat 0 hovers
              {"seat": 2, "t_us": 320_000, "until_us": 450_000}]      # seat 5 slaps meanwhile
    w, events, pads = run_table(world, [slap(5, 360, 40)], hovers=hovers, until_ms=500)
    with pads:
        flinches = {e.seat: e for e in events if isinstance(e.event, Flinch)}
        assert sorted(flinches) == [0, 2, 4]
        for seat, t in ((0, 60), (2, 320)):                            # each at its own approach
            assert honest(error_us(w, flinches[seat], t), flinches[seat], FAINT_US), seat
        late = flinches[4]                                             # found by a look, 10 ms apart:
        assert abs(error_us(w, late, 120)) < late.tie_us <= FAINT_US + 30_000    # its tie says so
        assert [e.seat for e in events if isinstance(e.event, Slap)] == [5]


# -- the rest of the pad ---------------------------------------------------------------------------
def test_a_held_pad_is_stuck_and_a_press_electrode_presses(world: Any) -> None:
    w_contacts = [slap(0, 50, 800), {"seat": 0, "kind": "press", "t_us": 60_000, "hold_us": 30_000}]
    w = table(world, {**table_spec(), "contacts": w_contacts, "mpr121": {"1:0x5a": {"electrodes": {
        "0": {"seat": 0}, "11": {"seat": 0, "kind": "press"}}}}})
    pads = Mpr121Pads({0: 0}, press_electrodes={0: 11}, stuck_after_s=0.3)
    with pads:
        go(w)
        wait_until(w, 700)
        assert [type(e.event) for e in pads.drain()] == [Slap, Press]
        assert [n.message for n in pads.notices] == ["pad 1 is stuck"]


def test_over_current_stops_the_chip_and_is_told(world: Any) -> None:
    w = go(table(world, table_spec()))
    pads = Mpr121Pads({s: s for s in range(6)}, watchdog_s=0.05)
    with pads:
        import smbus2
        smbus2.chip(1, 0x5A).short_rext()
        deadline = time.monotonic() + 1
        while not pads.notices and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [n.kind for n in pads.notices] == ["overcurrent"]
        assert w.now_us() is not None


def test_thresholds_by_seat_and_the_repr(world: Any) -> None:
    table(world, table_spec())
    pads = Mpr121Pads({s: s for s in range(6)})
    pads.set_thresholds(25, 10, seats=[2])
    assert pads.chip.thresholds(2) == (25, 10) and pads.chip.thresholds(0) == (12, 6)
    pads.close()
    import smbus2
    assert repr(pads) == "<Mpr121Pads closed>" and smbus2.chip(1, 0x5A).regs[0x5E] == 0   # stop mode

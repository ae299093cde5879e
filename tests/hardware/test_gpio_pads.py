"""GpioPads with default arguments on gpiozero's real LGPIOFactory, over the fake lgpio and kernel (tests/fakeos):
slaps stamped with the first contact to the ns, no phantom slaps under bounce, stuck pads, the header chip by label."""
from __future__ import annotations

import time
import warnings
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import HealthCheck, given, settings

from hardware.edge_clock import EdgeClock, TickKind, classify_factory
from hardware.mock_pins import TimedMockPin
from hardware.pad_errors import PadClockWarning, PadClosed, PadError, UntimedPadsWarning, UntimedPinFactory
from hardware.pad_timing import PadTiming
from hardware.pads import GpioPads
from referee.core.events import MS, US, Press, Slap, order_key

from .conftest import FakeOS, KernelTap, bouncing_contacts, check_slaps

PINS = {0: 17, 1: 27, 2: 22}
FAST_BOUNCE_IRQ = {"irq_thread_us": [20, 120]}


def run_until(fakeos: FakeOS, w: Any, pads: Any, end_us: float) -> list[Any]:
    """Let the timeline play to `end_us` (plus lgpio's delivery), settle the pads, return their events."""
    fakeos.wait(w, end_us)
    time.sleep(0.004)
    pads.poll()
    return pads.drain()


def end_of(contacts: list[dict[str, Any]]) -> float:
    return max(c["t_us"] + c["hold_us"] + sum(c.get("release_bounce_us", [])) for c in contacts) + 15_000


def test_default_arguments_build_gpiozeros_lgpio_factory_and_stamp_to_the_ns(fakeos: FakeOS) -> None:
    # seat 2 touches first, seat 0 last, 1 µs apart: lgpio delivers them sorted, stamps exact
    contacts: list[dict[str, Any]] = [{"seat": s, "t_us": 1_000 + (2 - s), "hold_us": 20_000} for s in PINS]
    w = fakeos.table(contacts, pins=PINS)
    with GpioPads(PINS) as pads:
        assert repr(pads).startswith("<GpioPads LGPIOFactory kernel-timed 0=up 1=up 2=up")
        t0 = fakeos.go(w)
        events = run_until(fakeos, w, pads, end_of(contacts))
    stamps = {2: t0 + 1_000 * US, 1: t0 + 1_001 * US, 0: t0 + 1_002 * US}
    assert [e.event for e in events] == [Slap(s, stamps[s]) for s in (2, 1, 0)]
    assert [e.tie_us for e in events] == [50, 50, 50]
    assert [s.seat for s in sorted((e.event for e in events), key=order_key)] == [2, 1, 0]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bouncing_contacts(seats=2, per_seat=2))
def test_bouncing_contacts_give_one_slap_each_at_the_first_contact(fakeos: FakeOS,
                                                                   contacts: list[dict[str, Any]]) -> None:
    pins = {0: 17, 1: 27}
    w = fakeos.table(contacts, pins=pins)
    with KernelTap() as kernel, GpioPads(pins, watchdog_s=0.05) as pads:
        t0 = fakeos.go(w)
        events = run_until(fakeos, w, pads, end_of(contacts))
        assert repr(pads).endswith("0=up 1=up>")
    check_slaps(events, contacts, kernel.first_stamps(contacts, pins, t0), t0)
    assert all(isinstance(e.event, Slap) for e in events)
    assert pads.notices == []          # global_seqno skips under bounce: no false "dropped edges"


def test_bounce_faster_than_the_irq_thread_is_stamped_as_the_kernel_stamped_it(fakeos: FakeOS) -> None:
    """Software adds nothing: the slap carries the kernel's first event stamp (the last hard IRQ
    before the IRQ thread ran), and the level that event reports does not matter."""
    contacts: list[dict[str, Any]] = [
        {"seat": 0, "t_us": 2_000 + 40_000 * i, "hold_us": 15_000, "bounce_us": [5 + 7 * i, 40, 15, 300],
         "release_bounce_us": [10, 25 + 9 * i]} for i in range(4)]
    w = fakeos.table(contacts, pins={0: 17}, kernel=FAST_BOUNCE_IRQ)
    with KernelTap() as kernel, GpioPads({0: 17}) as pads:
        t0 = fakeos.go(w)
        events = run_until(fakeos, w, pads, end_of(contacts))
    firsts = kernel.first_stamps(contacts, {0: 17}, t0)
    assert [e.raw_t_ns for e in events] == firsts
    assert any(f > t0 + c["t_us"] * 1000 for f, c in zip(firsts, contacts))   # the kernel's own error


@pytest.mark.parametrize("board, chip", [("pi5-old-kernel", 4), ("pi5", 0), ("pi4", 0)])
def test_the_lgpio_factory_opens_the_header_chip_found_by_label(fakeos: FakeOS, board: str, chip: int) -> None:
    contacts: list[dict[str, Any]] = [{"seat": 0, "t_us": 1_000, "hold_us": 10_000, "bounce_us": [200, 300]}]
    w = fakeos.table(contacts, board=board, pins={0: 17})
    with GpioPads({0: 17}) as pads:
        assert pads.pin_factory.chip == chip
        t0 = fakeos.go(w)
        assert [e.event for e in run_until(fakeos, w, pads, end_of(contacts))] == [Slap(0, t0 + 1_000 * US)]


def test_stuck_pad_is_announced_ignored_and_recovers(fakeos: FakeOS) -> None:
    contacts: list[dict[str, Any]] = [{"seat": 1, "t_us": 1_000, "hold_us": 400_000},
                                      {"seat": 1, "t_us": 500_000, "hold_us": 20_000}]
    w = fakeos.table(contacts, pins=PINS)
    with GpioPads(PINS, stuck_after_s=0.2, watchdog_s=0.05) as pads:
        heard: list[str] = []
        pads.on_notice = lambda n: heard.append(n.message)
        t0 = fakeos.go(w)
        fakeos.wait(w, 300_000)
        assert heard == ["pad 2 is stuck"] and pads.stuck == {1} and "1=stuck" in repr(pads)
        events = run_until(fakeos, w, pads, 560_000)
    assert heard == ["pad 2 is stuck", "pad 2 is working again"] and pads.stuck == frozenset()
    assert [e.event for e in events] == [Slap(1, t0 + 1_000 * US), Slap(1, t0 + 500_000 * US)]


def test_a_tap_shorter_than_the_window_is_one_slap_and_settles_up(fakeos: FakeOS) -> None:
    contacts: list[dict[str, Any]] = [{"seat": 0, "t_us": 1_000, "hold_us": 3_000},
                                      {"seat": 0, "t_us": 90_000, "hold_us": 5_000}]
    w = fakeos.table(contacts, pins={0: 17})
    with GpioPads({0: 17}, watchdog_s=0.02) as pads:
        t0 = fakeos.go(w)
        fakeos.wait(w, 70_000)              # two watchdog polls after the window
        assert repr(pads).endswith("0=up>")
        events = run_until(fakeos, w, pads, 110_000)
    assert [e.event for e in events] == [Slap(0, t0 + 1_000 * US), Slap(0, t0 + 90_000 * US)]


def test_press_pins_give_press_and_offsets_apply_once(fakeos: FakeOS) -> None:
    contacts: list[dict[str, Any]] = [{"seat": 0, "kind": "press", "t_us": 1_000, "hold_us": 10_000},
                {"seat": 0, "t_us": 2_000, "hold_us": 10_000}]
    w = fakeos.table(contacts, pins={0: 17}, press_pins={0: 5})
    timing = PadTiming(offset_ns={0: 300 * US}, tie_margin_us={0: 20})
    with GpioPads({0: 17}, press_pins={0: 5}, timing=timing) as pads:
        presses: list[Press] = []
        pads.on_press = presses.append
        t0 = fakeos.go(w)
        press, slap = run_until(fakeos, w, pads, 30_000)
        assert pads.tie_us(0) == 50 + 20
    assert presses == [Press(0, t0 + 1_000 * US - 300 * US)]
    assert slap.event == Slap(0, t0 + 2_000 * US - 300 * US) and slap.raw_t_ns == t0 + 2_000 * US
    assert slap.tie_us == 70


def test_active_high_pads(fakeos: FakeOS) -> None:
    contacts: list[dict[str, Any]] = [{"seat": 1, "t_us": 1_000, "hold_us": 10_000, "bounce_us": [150, 150]}]
    w = fakeos.table(contacts, pins={1: 17}, idle=0)         # switch to 3V3, pull-down
    with GpioPads({1: 17}, active_high=True) as pads:
        assert pads._pins[next(iter(pads._pins))].pull == "down"
        t0 = fakeos.go(w)
        assert [e.event for e in run_until(fakeos, w, pads, 30_000)] == [Slap(1, t0 + 1_000 * US)]


def test_consumer_exception_does_not_break_the_pads(fakeos: FakeOS) -> None:
    contacts: list[dict[str, Any]] = [{"seat": 0, "t_us": 1_000, "hold_us": 5_000},
                                      {"seat": 1, "t_us": 1_001, "hold_us": 5_000}]
    w = fakeos.table(contacts, pins=PINS)
    with GpioPads(PINS) as pads:
        def boom(_: Slap) -> None:
            raise RuntimeError("consumer bug")
        pads.on_slap = boom
        fakeos.go(w)
        assert len(run_until(fakeos, w, pads, 20_000)) == 2


def test_close_releases_pins_and_repr_says_closed(fakeos: FakeOS) -> None:
    fakeos.table(pins=PINS)
    pads = GpioPads(PINS)
    pads.close()
    pads.close()
    assert pads.closed and repr(pads) == "<GpioPads closed>"
    with pytest.raises(PadClosed):
        pads.get(timeout=0)
    assert list(pads) == []
    again = GpioPads(PINS)                   # the pins were released
    again.close()
    with pytest.raises(Exception):
        GpioPads({0: 17, 1: 17})


def test_factories_are_classified_by_what_their_ticks_mean() -> None:
    class MyMock(MockFactory):
        pass

    class Unknown:
        pass

    assert classify_factory(MyMock()) is TickKind.MOCK
    assert classify_factory(Unknown()) is TickKind.CALLBACK


def test_rpigpio_style_factory_is_refused_unless_allowed(mock_factory: MockFactory) -> None:
    from gpiozero.pins.local import LocalPiFactory

    class FakeRPiGPIO(LocalPiFactory):
        """Like RPiGPIOFactory: pins come from a mock, ticks are callback time."""

        def __init__(self) -> None:
            super().__init__()
            self.pin_class = TimedMockPin

        def _get_revision(self) -> int:
            return 0xA02082

    factory = FakeRPiGPIO()
    with pytest.raises(UntimedPinFactory) as excinfo:
        GpioPads({0: 17}, pin_factory=factory, watchdog_s=None)
    assert isinstance(excinfo.value, ValueError) and isinstance(excinfo.value, PadError)
    with pytest.warns(UntimedPadsWarning):
        pads = GpioPads({0: 17}, pin_factory=factory, allow_untimed=True, watchdog_s=None)
    with pads:
        assert not pads.kernel_timestamps and "UNTIMED" in repr(pads)
        t = 1_000 * 10**9
        factory.pin(17).drive(False, t)  # the stamp given is ignored: callback time is used
        (event,) = pads.drain()
        assert event.t_ns != t and event.tie_us == 10_000


def test_realtime_stamps_are_converted_to_monotonic() -> None:
    clock = EdgeClock(TickKind.KERNEL)
    with pytest.warns(PadClockWarning):
        before = time.monotonic_ns()
        t = clock.stamp(time.time())
        after = time.monotonic_ns()
    assert before - 5 * MS <= t <= after + 5 * MS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert clock.stamp(12.000001) == 12_000_001_000
        assert clock.stamp(950_400_123_456_789 / 1e9) == 950_400_123_456_789  # 11 days up: still to the ns

"""GpioPads on gpiozero's MockFactory: kernel stamps survive to the µs, first-edge debounce, stuck pads."""
from __future__ import annotations

import gc
import warnings

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.edge_clock import EdgeClock, TickKind, classify_factory
from hardware.mock_pins import TimedMockPin
from hardware.pad_errors import PadClockWarning, PadClosed, PadError, UntimedPadsWarning, UntimedPinFactory
from hardware.pad_timing import PadTiming
from hardware.pads import GpioPads
from referee.events import MS, S, US, Press, Slap, order_key

T0 = 1_234 * S + 567_891_000  # an uptime-like monotonic stamp


def make_pads(factory: MockFactory, pins: dict[int, int], **kw: object) -> GpioPads:
    kw.setdefault("watchdog_s", None)
    return GpioPads(pins, pin_factory=factory, **kw)  # type: ignore[arg-type]


def pin(factory: MockFactory, gpio: int) -> TimedMockPin:
    p = factory.pin(gpio)
    assert isinstance(p, TimedMockPin)
    return p


def test_slaps_one_us_apart_in_reverse_with_slow_callbacks_keep_their_stamps(mock_factory: MockFactory) -> None:
    with make_pads(mock_factory, {0: 17, 1: 27, 2: 22}) as pads:
        got: list[Slap] = []
        pads.on_slap = got.append
        # seat 2 touched first, seat 0 last; the callbacks arrive last-first, each 2 ms late
        stamps = {2: T0, 1: T0 + 1 * US, 0: T0 + 2 * US}
        for seat, gpio in ((0, 17), (1, 27), (2, 22)):
            pin(mock_factory, gpio).drive(False, stamps[seat], callback_delay_s=0.002)
        assert [s.seat for s in got] == [0, 1, 2]  # arrival order
        assert {s.seat: s.t_ns for s in got} == stamps  # exact, not merely "to the µs"
        judged = sorted(got, key=order_key)
        assert [s.seat for s in judged] == [2, 1, 0]
        assert [e.event for e in pads.drain()] == got


def test_contact_bouncing_5ms_gives_one_slap_stamped_with_first_edge(mock_factory: MockFactory) -> None:
    with make_pads(mock_factory, {0: 17}, debounce_ms=10) as pads:
        p = pin(mock_factory, 17)
        edges = p.drive_bouncing(False, T0, bounce_ns=5 * MS, every_ns=250 * US)
        assert edges > 10
        events = pads.drain()
        assert [e.event for e in events] == [Slap(0, T0)]
        pads.poll(T0 + 20 * MS)
        assert repr(pads).endswith("0=down>")
        # release bounces too, and the next slap after it counts again
        p.drive_bouncing(True, T0 + 300 * MS, bounce_ns=5 * MS, every_ns=250 * US)
        p.drive(False, T0 + 600 * MS)
        assert [e.event for e in pads.drain()] == [Slap(0, T0 + 600 * MS)]


def test_a_tap_shorter_than_the_window_is_settled_not_stuck(mock_factory: MockFactory) -> None:
    with make_pads(mock_factory, {0: 17}, debounce_ms=10, stuck_after_s=3) as pads:
        p = pin(mock_factory, 17)
        p.drive(False, T0)
        p.drive(True, T0 + 3 * MS)  # released inside the window: ignored as an edge
        pads.poll(T0 + 5 * S)
        assert pads.stuck == frozenset() and pads.notices == []
        p.drive(False, T0 + 6 * S)
        assert [e.event for e in pads.drain()] == [Slap(0, T0), Slap(0, T0 + 6 * S)]


def test_stuck_pad_is_announced_ignored_and_recovers(mock_factory: MockFactory) -> None:
    with make_pads(mock_factory, {0: 17, 3: 23}, stuck_after_s=3) as pads:
        heard: list[str] = []
        pads.on_notice = lambda n: heard.append(n.message)
        p = pin(mock_factory, 23)
        p.drive(False, T0)
        pads.poll(T0 + 2 * S)
        assert heard == []
        pads.poll(T0 + 3 * S)
        assert heard == ["pad 4 is stuck"] and pads.stuck == {3}
        assert "3=stuck" in repr(pads)
        pads.poll(T0 + 4 * S)
        assert heard == ["pad 4 is stuck"]  # said once
        p.drive(True, T0 + 5 * S)
        assert heard[-1] == "pad 4 is working again" and pads.stuck == frozenset()
        p.drive(False, T0 + 6 * S)
        assert [e.event for e in pads.drain()] == [Slap(3, T0), Slap(3, T0 + 6 * S)]


class HeldDownPin(TimedMockPin):
    """A pin whose switch is already closed at start-up: enabling the pull-up cannot raise it."""

    def _set_pull(self, value: str) -> None:
        self._pull = value


def test_pad_held_at_startup_becomes_stuck(mock_factory: MockFactory) -> None:
    held = mock_factory.pin(22, pin_class=HeldDownPin)
    assert held.state is False
    with make_pads(mock_factory, {0: 22}, clock=lambda: T0) as pads:
        assert "0=down" in repr(pads)
        pads.poll(T0 + 3 * S)
        assert pads.stuck == {0} and pads.notices[0].message == "pad 1 is stuck"
        assert pads.drain() == []  # no slap invented for a pad that was down before we looked


def test_press_pins_give_press_and_offsets_apply_once(mock_factory: MockFactory) -> None:
    timing = PadTiming(offset_ns={0: 300 * US}, tie_margin_us={0: 20})
    with make_pads(mock_factory, {0: 17}, press_pins={0: 5}, timing=timing) as pads:
        presses: list[Press] = []
        pads.on_press = presses.append
        pin(mock_factory, 5).drive(False, T0)
        pin(mock_factory, 17).drive(False, T0 + 1 * MS)
        press, slap = pads.drain()
        assert presses == [Press(0, T0 - 300 * US)]
        assert slap.event == Slap(0, T0 + 1 * MS - 300 * US) and slap.raw_t_ns == T0 + 1 * MS
        assert slap.tie_us == 50 + 20 == pads.tie_us(0)


def test_active_high_pads(mock_factory: MockFactory) -> None:
    with make_pads(mock_factory, {1: 17}, active_high=True) as pads:
        p = pin(mock_factory, 17)
        assert p.pull == "down"
        p.drive(True, T0)
        assert [e.event for e in pads.drain()] == [Slap(1, T0)]


def test_callback_is_held_strongly(mock_factory: MockFactory) -> None:
    with make_pads(mock_factory, {0: 17}) as pads:
        gc.collect()
        assert pin(mock_factory, 17).when_changed is not None
        pin(mock_factory, 17).drive(False, T0)
        assert len(pads.drain()) == 1


def test_consumer_exception_does_not_break_the_pads(mock_factory: MockFactory) -> None:
    with make_pads(mock_factory, {0: 17, 1: 27}) as pads:
        def boom(_: Slap) -> None:
            raise RuntimeError("consumer bug")
        pads.on_slap = boom
        pin(mock_factory, 17).drive(False, T0)
        pin(mock_factory, 27).drive(False, T0 + 1)
        assert len(pads.drain()) == 2


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
        factory.pin(17).drive(False, T0)  # the stamp given is ignored: callback time is used
        (event,) = pads.drain()
        assert event.t_ns != T0 and event.tie_us == 10_000


def test_realtime_stamps_are_converted_to_monotonic() -> None:
    import time

    clock = EdgeClock(TickKind.KERNEL)
    with pytest.warns(PadClockWarning):
        before = time.monotonic_ns()
        t = clock.stamp(time.time())
        after = time.monotonic_ns()
    assert before - 5 * MS <= t <= after + 5 * MS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert clock.stamp(12.000001) == 12_000_001_000


def test_close_releases_pins_and_repr_says_closed(mock_factory: MockFactory) -> None:
    pads = make_pads(mock_factory, {0: 17})
    assert repr(pads).startswith("<GpioPads MockFactory kernel-timed 0=up")
    pads.close()
    pads.close()
    assert pads.closed and repr(pads) == "<GpioPads closed>"
    assert pin(mock_factory, 17).when_changed is None
    with pytest.raises(PadClosed):
        pads.get(timeout=0)
    assert list(pads) == []
    again = make_pads(mock_factory, {0: 17})  # the pin was released
    again.close()


def test_same_pin_twice_is_refused(mock_factory: MockFactory) -> None:
    with pytest.raises(Exception):
        make_pads(mock_factory, {0: 17, 1: 17})

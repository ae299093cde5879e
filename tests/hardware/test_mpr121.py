"""MPR121 driver and pads against a fake bus that follows the datasheet register map."""
from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.mock_pins import TimedMockPin
from hardware.mpr121 import MPR121, MPR121Config
from hardware.pad_errors import MPR121Error, PadConfigError, PadError
from hardware.pads_mpr121 import Mpr121Pads
from referee.events import MS, S, US, Flinch, Press, Slap

from .fake_mpr121 import FakeMPR121Bus

T0 = 77 * S
IRQ = 4


def test_configuration_is_written_in_stop_mode_with_a_1ms_sample_period() -> None:
    bus = FakeMPR121Bus()
    chip = MPR121(bus, config=MPR121Config(touch_threshold=20, release_threshold=9))
    assert bus.ignored_writes == []
    assert bus.regs[0x5D] & 0x07 == 0            # ESI = 1 ms
    assert bus.regs[0x5D] >> 3 & 0x03 == 0       # SFI = 4 samples
    assert bus.regs[0x5C] & 0x3F == 16           # 16 µA
    assert bus.regs[0x5B] == 0                   # report on the first sample
    assert [bus.regs[0x41 + 2 * e] for e in range(12)] == [20] * 12
    assert [bus.regs[0x42 + 2 * e] for e in range(12)] == [9] * 12
    assert bus.regs[0x5E] == 0x80 | 0x30 | 12    # baseline tracking, prox on ELE0-11, 12 electrodes
    assert chip.sample_period_us == 1000
    assert "1 ms" in repr(chip)
    chip.close()
    assert bus.regs[0x5E] == 0 and repr(chip).endswith("closed>")


def test_thresholds_can_be_recalibrated_while_running() -> None:
    bus = FakeMPR121Bus()
    chip = MPR121(bus)
    chip.set_thresholds(30, 15, electrodes=[3])
    assert chip.thresholds(3) == (30, 15) and chip.thresholds(2) == (12, 6)
    assert chip.config.per_electrode == {3: (30, 15)}
    assert bus.ignored_writes == [] and bus.running
    with pytest.raises(PadConfigError):
        chip.set_thresholds(5, 6)


def test_slower_sample_period_and_bad_settings() -> None:
    bus = FakeMPR121Bus()
    MPR121(bus, config=MPR121Config(sample_period_ms=4, proximity="off"))
    assert bus.regs[0x5D] & 0x07 == 2 and bus.regs[0x5E] & 0x30 == 0
    with pytest.raises(PadConfigError):
        MPR121Config(sample_period_ms=3)


def test_no_chip_at_the_address() -> None:
    with pytest.raises(OSError):
        MPR121(FakeMPR121Bus(address=0x5B), address=0x5A)
    bus = FakeMPR121Bus()
    bus.regs[0x5D] = 0  # answers, but is not an MPR121 after reset
    bus._reset = lambda: None  # type: ignore[method-assign]
    with pytest.raises(MPR121Error) as excinfo:
        MPR121(bus)
    assert isinstance(excinfo.value, PadError)


def test_filtered_data_and_baseline() -> None:
    bus = FakeMPR121Bus()
    chip = MPR121(bus)
    bus.set_reading(5, filtered=600, baseline=720)
    assert chip.filtered(5) == 600 and chip.baseline(5) == 720
    assert chip.deltas([5]) == {5: 120}


class Table:
    """An MPR121 on the fake bus with its IRQ on a TimedMockPin; the test plays the chip."""

    def __init__(self, factory: MockFactory, **kw: object) -> None:
        self.bus = FakeMPR121Bus()
        self.irq = factory.pin(IRQ)
        assert isinstance(self.irq, TimedMockPin)
        self.now = T0
        kw.setdefault("watchdog_s", None)
        self.pads = Mpr121Pads({0: 0, 1: 1, 2: 2}, bus=self.bus, irq_pin=IRQ, pin_factory=factory,
                               clock=lambda: self.now, **kw)  # type: ignore[arg-type]
        self.bus.on_status_read = self._release_irq

    def _release_irq(self) -> None:
        self.irq.drive(True, self.now)

    def change(self, t_ns: int, touched: set[int], *, prox: bool = False, read_lag_ns: int = 200 * US) -> None:
        """The chip's status changes at sample time t_ns; Python reads it read_lag_ns later."""
        self.bus.set_touched(touched, prox=prox)
        self.now = t_ns + read_lag_ns
        self.irq.drive(False, t_ns)


def test_touch_is_stamped_by_the_irq_edge(mock_factory: MockFactory) -> None:
    t = Table(mock_factory)
    with t.pads as pads:
        t.change(T0 + 5 * MS, {1})
        t.change(T0 + 90 * MS, set())
        t.change(T0 + 400 * MS, {1})
        events = pads.drain()
        assert [e.event for e in events] == [Slap(1, T0 + 5 * MS), Slap(1, T0 + 400 * MS)]
        assert {e.tie_us for e in events} == {1000}
        assert t.irq.state  # each read released the IRQ


def test_electrodes_changed_in_one_read_are_a_tie(mock_factory: MockFactory) -> None:
    t = Table(mock_factory)
    with t.pads as pads:
        t.change(T0, {0, 2}, read_lag_ns=0)
        a, b = pads.drain()
        assert a.t_ns == b.t_ns == T0 and {a.seat, b.seat} == {0, 2}
        assert a.tie_us == b.tie_us == 1000  # one sample period
        # one change alone stays one period even when read late: it made the IRQ edge
        t.change(T0 + 1 * S, {0, 1, 2}, read_lag_ns=3 * MS)
        (c,) = pads.drain()
        assert c.event == Slap(1, T0 + 1 * S) and c.tie_us == 1000


def test_late_read_of_several_changes_widens_the_tie(mock_factory: MockFactory) -> None:
    t = Table(mock_factory)
    with t.pads as pads:
        t.change(T0, {0, 1}, read_lag_ns=3 * MS)
        assert [e.tie_us for e in pads.drain()] == [4000, 4000]


def test_hover_without_touch_is_a_flinch_for_the_nearest_seat(mock_factory: MockFactory) -> None:
    t = Table(mock_factory)
    with t.pads as pads:
        flinches: list[Flinch] = []
        pads.on_flinch = flinches.append
        for e, (f, b) in {0: (700, 712), 1: (640, 720), 2: (705, 708)}.items():
            t.bus.set_reading(e, filtered=f, baseline=b)
        t.change(T0, set(), prox=True)
        t.change(T0 + 150 * MS, set(), prox=False)
        assert flinches == [Flinch(1, T0)]
        # approach followed by a touch is a slap, not a flinch
        t.change(T0 + 1 * S, set(), prox=True)
        t.change(T0 + 1 * S + 40 * MS, {1}, prox=True)
        t.change(T0 + 1 * S + 200 * MS, set(), prox=False)
        assert flinches == [Flinch(1, T0)]
        assert [e.event for e in pads.drain()] == [Flinch(1, T0), Slap(1, T0 + 1 * S + 40 * MS)]


def test_stuck_electrode_and_press_electrode(mock_factory: MockFactory) -> None:
    bus = FakeMPR121Bus()
    pads = Mpr121Pads({0: 0}, press_electrodes={0: 11}, bus=bus, irq_pin=IRQ, pin_factory=mock_factory,
                      clock=lambda: T0, stuck_after_s=2, watchdog_s=None)
    irq = mock_factory.pin(IRQ)
    bus.on_status_read = lambda: irq.drive(True, T0)
    with pads:
        bus.set_touched({0, 11})
        irq.drive(False, T0)
        pads.poll(T0 + 2 * S)
        assert [e.event for e in pads.drain()] == [Slap(0, T0), Press(0, T0)]
        assert pads.notices[0].message == "pad 1 is stuck"


def test_missed_irq_edge_is_recovered_by_poll(mock_factory: MockFactory) -> None:
    t = Table(mock_factory)
    with t.pads as pads:
        t.bus.on_status_read = None  # the IRQ is never released...
        t.change(T0, {0})
        t.bus.set_touched({0, 2})     # ...so this change makes no new edge
        t.now = T0 + 30 * MS
        pads.poll()
        events = pads.drain()
        assert [e.event for e in events] == [Slap(0, T0), Slap(2, T0 + 30 * MS)]
        assert events[1].tie_us == 1000 + (30 * MS - 200 * US) // US  # since the previous read


def test_thresholds_by_seat_and_repr(mock_factory: MockFactory) -> None:
    t = Table(mock_factory)
    t.pads.set_thresholds(25, 10, seats=[2])
    assert t.pads.chip.thresholds(2) == (25, 10) and t.pads.chip.thresholds(0) == (12, 6)
    assert "irq-timed 1000 µs" in repr(t.pads)
    t.pads.close()
    assert repr(t.pads) == "<Mpr121Pads closed>" and t.bus.regs[0x5E] == 0

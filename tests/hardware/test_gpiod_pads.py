"""GpiodPads against a fake shaped like libgpiod v2: kernel stamps pass through, sequence gaps are told."""
from __future__ import annotations

import pytest

from hardware.pads_gpiod import GpiodPads
from referee.events import MS, S, US, Press, Slap

from .fake_gpiod import make_module

T0 = 500 * S


def make(**kw: object) -> tuple[GpiodPads, object]:
    gpiod = make_module()
    kw.setdefault("watchdog_s", None)
    pads = GpiodPads({0: 17, 1: 27}, press_lines={0: 5}, reader_thread=False, gpiod_module=gpiod, **kw)  # type: ignore[arg-type]
    return pads, gpiod


def test_requests_monotonic_clock_both_edges_active_low_without_kernel_debounce() -> None:
    pads, gpiod = make()
    with pads:
        (req,) = gpiod.requests  # type: ignore[attr-defined]
        ((offsets, settings),) = req.config.items()
        assert sorted(offsets) == [5, 17, 27]
        assert settings.event_clock is gpiod.line.Clock.MONOTONIC  # type: ignore[attr-defined]
        assert settings.edge_detection is gpiod.line.Edge.BOTH  # type: ignore[attr-defined]
        assert settings.bias is gpiod.line.Bias.PULL_UP  # type: ignore[attr-defined]
        assert settings.active_low and settings.debounce_period.total_seconds() == 0
    assert req.released and repr(pads) == "<GpiodPads closed>"


def test_events_keep_kernel_stamps_and_bounce_is_ignored() -> None:
    pads, gpiod = make()
    with pads:
        (req,) = gpiod.requests  # type: ignore[attr-defined]
        req.emit(27, True, T0 + 1 * US)
        req.emit(17, True, T0)        # earlier touch, later in the FIFO
        req.emit(27, False, T0 + 2 * MS)  # bounce
        req.emit(27, True, T0 + 3 * MS)   # bounce
        req.emit(5, True, T0 + 5 * MS)
        assert pads.read_pending() == 5
        assert [e.event for e in pads.drain()] == [Slap(1, T0 + 1 * US), Slap(0, T0), Press(0, T0 + 5 * MS)]
        assert pads.read_pending() == 0


def test_sequence_gap_is_announced() -> None:
    pads, gpiod = make()
    with pads:
        (req,) = gpiod.requests  # type: ignore[attr-defined]
        req.emit(17, True, T0)
        req.emit(17, False, T0 + 50 * MS, skip=2)
        pads.read_pending()
        (notice,) = pads.notices
        assert notice.kind == "lost_edges" and notice.seat == 0 and "2" in notice.message


def test_stuck_uses_the_line_value() -> None:
    pads, gpiod = make(stuck_after_s=2)
    with pads:
        (req,) = gpiod.requests  # type: ignore[attr-defined]
        req.emit(27, True, T0)
        pads.read_pending()
        pads.poll(T0 + 2 * S)
        assert pads.stuck == {1} and pads.notices[-1].message == "pad 2 is stuck"


def test_missing_gpiod_package_is_an_import_error() -> None:
    try:
        import gpiod  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            GpiodPads({0: 17}, reader_thread=False, watchdog_s=None)
    else:
        pytest.skip("gpiod is installed here")

"""GpiodPads with default arguments over the fake libgpiod v2 bindings and kernel (tests/fakeos): first-contact
stamps under bounce, lost edges announced only for a real FIFO overflow, the header chip found by its label."""
from __future__ import annotations

import sys
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from hardware.pads_gpiod import GpiodPads
from referee.core.events import MS, US, Press, Slap

from .conftest import FakeOS, KernelTap, bouncing_contacts, check_slaps

LINES = {0: 17, 1: 27}


def run_until(fakeos: FakeOS, w: Any, pads: Any, end_us: float) -> list[Any]:
    """Let the timeline play to `end_us`, then collect the pads' events until 50 ms pass with none new: the
    reader thread delivers them asynchronously, and a busy machine can hold it past a single short wait."""
    fakeos.wait(w, end_us)
    events: list[Any] = []
    quiet_until = time.monotonic() + 0.05
    while time.monotonic() < quiet_until:
        time.sleep(0.003)
        pads.poll()
        new = pads.drain()
        if new:
            events += new
            quiet_until = time.monotonic() + 0.05
    return events


def end_of(contacts: list[dict[str, Any]]) -> float:
    return max(c["t_us"] + c["hold_us"] + sum(c.get("release_bounce_us", [])) for c in contacts) + 15_000


def test_requests_monotonic_clock_both_edges_active_low_without_kernel_debounce(fakeos: FakeOS) -> None:
    fakeos.table(pins=LINES, press_pins={0: 5})
    with GpiodPads(LINES, press_lines={0: 5}) as pads:
        kernel_request = pads._request._req
        assert sorted(kernel_request.lines) == [5, 17, 27] and pads.chip == "/dev/gpiochip0"
        cfg = kernel_request.lines[17].cfg
        assert cfg.rising and cfg.falling and cfg.active_low and cfg.bias == "pull-up" and not cfg.realtime
        assert repr(pads) == "<GpiodPads /dev/gpiochip0 kernel-timed 0=up 1=up 0/press=up>"
    assert kernel_request.released and repr(pads) == "<GpiodPads closed>"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bouncing_contacts(seats=2, per_seat=2))
def test_bouncing_contacts_give_one_slap_each_at_the_first_contact(fakeos: FakeOS,
                                                                   contacts: list[dict[str, Any]]) -> None:
    pins = LINES
    w = fakeos.table(contacts, pins=pins)
    with KernelTap() as kernel, GpiodPads(pins, watchdog_s=0.05) as pads:
        t0 = fakeos.go(w)
        events = run_until(fakeos, w, pads, end_of(contacts))
        assert repr(pads).endswith("0=up 1=up>")
    check_slaps(events, contacts, kernel.first_stamps(contacts, pins, t0), t0)
    assert all(isinstance(e.event, Slap) for e in events)
    assert pads.notices == []          # global_seqno skips under bounce: no false "dropped edges"


def test_fast_bounce_on_several_lines_skips_global_seqnos_but_is_no_lost_edge(fakeos: FakeOS) -> None:
    from gpiod import _kernel
    contacts: list[dict[str, Any]] = [
        {"seat": s, "t_us": 1_000 + 3 * s, "hold_us": 10_000, "bounce_us": [10, 15, 20, 400],
         "release_bounce_us": [12, 30]} for s in LINES]
    w = fakeos.table(contacts, pins=LINES)
    seqnos: list[int] = []
    _kernel.TAPS.append(lambda path, ev: seqnos.append(ev.seqno))
    try:
        with GpiodPads(LINES) as pads:
            fakeos.go(w)
            events = run_until(fakeos, w, pads, end_of(contacts))
    finally:
        _kernel.TAPS.clear()
    assert any(b - a > 1 for a, b in zip(seqnos, seqnos[1:]))     # the kernel folded hard IRQs
    assert [e.seat for e in events] == [0, 1] and pads.notices == []


def test_a_real_fifo_overflow_is_announced(fakeos: FakeOS) -> None:
    chatter = [300] * 20                                # 21 edges while nobody reads; the FIFO holds 4
    contacts: list[dict[str, Any]] = [{"seat": 1, "t_us": 1_000, "hold_us": 20_000, "bounce_us": chatter}]
    w = fakeos.table(contacts, pins=LINES, kernel={"irq_thread_us": [20, 120], "event_fifo": 4})
    with GpiodPads(LINES, reader_thread=False, debounce_ms=30, watchdog_s=None) as pads:
        heard: list[str] = []
        pads.on_notice = lambda n: heard.append(n.message)
        fakeos.go(w)
        fakeos.wait(w, 12_000)
        assert pads.read_pending() == 4
    (notice,) = pads.notices
    assert notice.kind == "lost_edges" and notice.seat == 1
    assert heard == ["the kernel dropped 17 pad edge(s); check for a chattering pad"]


@pytest.mark.parametrize("board, path", [("pi5-old-kernel", "/dev/gpiochip4"), ("pi5", "/dev/gpiochip0"),
                                         ("pi4", "/dev/gpiochip0")])
def test_chip_auto_is_the_header_chip_by_label(fakeos: FakeOS, board: str, path: str) -> None:
    contacts: list[dict[str, Any]] = [{"seat": 0, "t_us": 1_000, "hold_us": 10_000, "bounce_us": [200, 300]}]
    w = fakeos.table(contacts, board=board, pins=LINES)
    with GpiodPads(LINES) as pads:
        assert pads.chip == path
        t0 = fakeos.go(w)
        assert [e.event for e in run_until(fakeos, w, pads, end_of(contacts))] == [Slap(0, t0 + 1_000 * US)]


def test_press_lines_and_stuck_pads(fakeos: FakeOS) -> None:
    contacts: list[dict[str, Any]] = [{"seat": 0, "kind": "press", "t_us": 1_000, "hold_us": 5_000},
                {"seat": 1, "t_us": 2_000, "hold_us": 400_000}]
    w = fakeos.table(contacts, pins=LINES, press_pins={0: 5})
    with GpiodPads(LINES, press_lines={0: 5}, stuck_after_s=0.2, watchdog_s=0.05) as pads:
        t0 = fakeos.go(w)
        fakeos.wait(w, 300_000)
        assert pads.stuck == {1} and pads.notices[-1].message == "pad 2 is stuck"
        events = run_until(fakeos, w, pads, 450_000)
    assert [e.event for e in events] == [Press(0, t0 + 1_000 * US), Slap(1, t0 + 2_000 * US)]
    assert pads.notices[-1].message == "pad 2 is working again" and pads.stuck == frozenset()


def test_an_explicit_chip_path_is_used_as_given(fakeos: FakeOS) -> None:
    fakeos.table(board="pi5-old-kernel", pins=LINES)
    with pytest.raises(OSError):
        GpiodPads({0: 17}, chip="/dev/gpiochip9", watchdog_s=None)
    with GpiodPads({0: 3}, chip="/dev/gpiochip1", watchdog_s=None) as pads:
        assert pads.chip == "/dev/gpiochip1"


def test_missing_gpiod_package_is_an_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gpiod", None)      # as on a machine without python3-libgpiod
    with pytest.raises(ImportError):
        GpiodPads({0: 17}, reader_thread=False, watchdog_s=None)
    assert MS  # the events module's units stay importable without gpiod

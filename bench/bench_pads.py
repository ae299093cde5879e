"""Bench: pad edge -> event delivered -> referee ruling, through the real software path on mock pins.

`run()` returns markdown lines. An edge is driven on a gpiozero MockFactory
pin (TimedMockPin) stamped with `time.monotonic_ns()` at that moment, as the
kernel would stamp it; latency is measured from that stamp to (a) the
consumer's `on_slap` callback, (b) `PadSource.get()` returning in another
thread, and (c) `referee.session.Session.submit()` returning the ruling
(holdback 0, slapjack, every slap judged). What it leaves out: the real IRQ
-> lgpio thread -> Python hop (tens of µs to ms on a loaded Pi).
"""
from __future__ import annotations

import statistics
import threading
import time

from gpiozero.pins.mock import MockFactory

from hardware.mock_pins import TimedMockPin
from hardware.pads import GpioPads

SAMPLES = 20_000
QUEUE_SAMPLES = 5_000
SEATS = {0: 17, 1: 27}


def _stats(name: str, samples_ns: list[int]) -> str:
    ordered = sorted(samples_ns)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"| {name} | {len(ordered)} | {statistics.median(ordered) / 1000:.1f} | "
            f"{p99 / 1000:.1f} | {ordered[-1] / 1000:.1f} |")


def _pads() -> tuple[GpioPads, dict[int, TimedMockPin]]:
    factory = MockFactory(pin_class=TimedMockPin)
    # debounce 0: edges here are µs apart in real time; the window test is one comparison either way
    pads = GpioPads(SEATS, pin_factory=factory, debounce_ms=0, watchdog_s=None)
    pins = {seat: factory.pin(gpio) for seat, gpio in SEATS.items()}
    return pads, pins  # type: ignore[return-value]


def _slap(pin: TimedMockPin) -> int:
    pin.drive(True, time.monotonic_ns())   # lift (not judged)
    t = time.monotonic_ns()
    pin.drive(False, t)                    # touch: the edge under test
    return t


def _callback_path() -> list[int]:
    pads, pins = _pads()
    out: list[int] = []
    edge = [0]
    pads.on_slap = lambda slap: out.append(time.monotonic_ns() - edge[0])
    with pads:
        for i in range(SAMPLES):
            pin = pins[i % 2]
            pin.drive(True, time.monotonic_ns())
            edge[0] = time.monotonic_ns()
            pin.drive(False, edge[0])
    return out


def _queue_path() -> list[int]:
    pads, pins = _pads()
    out: list[int] = []
    got = threading.Event()

    def consumer() -> None:
        for event in pads:
            out.append(time.monotonic_ns() - event.raw_t_ns)
            got.set()

    thread = threading.Thread(target=consumer)
    thread.start()
    with pads:
        for i in range(QUEUE_SAMPLES):
            got.clear()
            _slap(pins[i % 2])
            got.wait(5)
    thread.join(5)
    return out


def _ruling_path() -> tuple[list[int], int] | None:
    try:
        from referee.session import Session
    except ImportError:
        return None
    pads, pins = _pads()
    out: list[int] = []
    unjudged = 0
    state: dict[str, object] = {}

    def new_session() -> None:
        state["session"] = Session.create("slapjack", 2, holdback_ns=0)

    def judge(slap: object) -> None:
        nonlocal unjudged
        session = state["session"]
        rulings = session.submit(slap, now_ns=time.monotonic_ns())  # type: ignore[attr-defined]
        if rulings:
            out.append(time.monotonic_ns() - state["edge"])  # type: ignore[operator]
        else:
            unjudged += 1

    pads.on_slap = judge
    with pads:
        for i in range(SAMPLES):
            if i % 10 == 0:  # false slaps cost cards: start a fresh game before anyone runs out
                new_session()
            pin = pins[i % 2]
            pin.drive(True, time.monotonic_ns())
            state["edge"] = time.monotonic_ns()
            pin.drive(False, state["edge"])  # type: ignore[arg-type]
    return out, unjudged


def run() -> list[str]:
    """Markdown lines: latency (µs) from a pad edge's stamp to each consumer."""
    lines = ["## Slap pads: edge stamp -> consumer (mock pins, this machine)", "",
             "| path | samples | median µs | p99 µs | max µs |", "|---|---|---|---|---|"]
    lines.append(_stats("edge -> on_slap callback", _callback_path()))
    lines.append(_stats("edge -> get() in a consumer thread", _queue_path()))
    ruled = _ruling_path()
    if ruled is None:
        lines += ["", "(referee.session not importable: stopped at event delivery)"]
    else:
        samples, unjudged = ruled
        if samples:
            lines.append(_stats("edge -> Session.submit ruling (slapjack, holdback 0)", samples))
        if unjudged:
            lines += ["", f"{unjudged} slaps produced no immediate ruling (not counted)."]
    lines += ["", "Excludes the kernel IRQ -> lgpio thread -> Python hop; stamps are exact regardless."]
    return lines


if __name__ == "__main__":
    print("\n".join(run()))

"""Fixtures: the OS-boundary fakes (tests/fakeos) with a world of slap pads, and a gpiozero MockFactory.

`fakeos` puts tests/fakeos first on the import path with fresh fake modules
(world, lgpio, gpiod), makes gpiozero read the world's board revision and use
GPIOZERO_PIN_FACTORY=lgpio, and undoes all of it afterwards, so the project's
pads run with default arguments exactly as on a Pi. `mock_factory` is a plain
gpiozero MockFactory of TimedMockPins (for factory classification only).
"""
from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Iterable, Iterator, Mapping, Sequence

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from hardware.mock_pins import TimedMockPin
from hardware.pins import DEFAULT_PAD_PINS

FAKEOS = Path(__file__).resolve().parents[1] / "fakeos"
_FAKES = ("world", "lgpio", "gpiod", "smbus2", "gpiozero.pins.lgpio")

#: Boards as their gpiochips show them (label and number): Pi 4, and Pi 5 before and from kernel 6.6.45.
BOARDS: dict[str, dict[str, Any]] = {
    "pi4": {"revision": "c03114", "chips": [
        {"path": "/dev/gpiochip0", "label": "pinctrl-bcm2711", "lines": 58},
        {"path": "/dev/gpiochip1", "label": "raspberrypi-exp-gpio", "lines": 8}]},
    "pi5-old-kernel": {"revision": "d04170", "chips": [
        {"path": "/dev/gpiochip0", "label": "gpio-brcmstb@107d508500", "lines": 32},
        {"path": "/dev/gpiochip1", "label": "gpio-brcmstb@107d508520", "lines": 4},
        {"path": "/dev/gpiochip2", "label": "gpio-brcmstb@107d517c00", "lines": 17},
        {"path": "/dev/gpiochip3", "label": "gpio-brcmstb@107d517c20", "lines": 6},
        {"path": "/dev/gpiochip4", "label": "pinctrl-rp1", "lines": 54}]},
    "pi5": {"revision": "d04170", "chips": [
        {"path": "/dev/gpiochip0", "label": "pinctrl-rp1", "lines": 54},
        {"path": "/dev/gpiochip10", "label": "gpio-brcmstb@107d508500", "lines": 32},
        {"path": "/dev/gpiochip11", "label": "gpio-brcmstb@107d508520", "lines": 4},
        {"path": "/dev/gpiochip12", "label": "gpio-brcmstb@107d517c00", "lines": 17},
        {"path": "/dev/gpiochip13", "label": "gpio-brcmstb@107d517c20", "lines": 6}]},
}
HEADER_CHIP = {"pi4": "gpiochip0", "pi5-old-kernel": "gpiochip4", "pi5": "gpiochip0"}


def _is_fake(name: str) -> bool:
    return name in _FAKES or name.startswith("gpiod.")


class FakeOS:
    """The fakes loaded for one test: build pad worlds, start them, and reset gpiozero between examples."""

    def __init__(self, world: ModuleType) -> None:
        self.world = world

    def table(self, contacts: Iterable[Mapping[str, Any]] = (), *, board: str = "pi4",
              kernel: Mapping[str, Any] | None = None, pins: Mapping[int, int] = DEFAULT_PAD_PINS,
              press_pins: Mapping[int, int] | None = None, seed: int = 1, idle: int = 1) -> Any:
        """Install (not start) a world whose seat s slaps GPIO pins[s] on the board's header chip."""
        chip = HEADER_CHIP[board]
        lines: dict[str, dict[str, Any]] = {f"{chip}:{gpio}": {"seat": seat, "idle": idle}
                                            for seat, gpio in pins.items()}
        lines.update({f"{chip}:{gpio}": {"seat": seat, "kind": "press", "idle": idle}
                      for seat, gpio in (press_pins or {}).items()})
        spec: dict[str, Any] = {"seed": seed, "board": BOARDS[board], "lines": lines,
                                "contacts": [dict(c) for c in contacts]}
        if kernel is not None:
            spec["kernel"] = dict(kernel)
        self.reset()
        w = self.world.World(spec)
        self.world.install(w)
        return w

    @staticmethod
    def go(w: Any, lead_ms: float = 30.0) -> int:
        """Start the timeline `lead_ms` from now; returns t0 (monotonic ns)."""
        t0 = time.monotonic_ns() + round(lead_ms * 1e6)
        w.start(t0)
        return t0

    @staticmethod
    def wait(w: Any, t_us: float) -> None:
        """Sleep until the timeline reaches `t_us`."""
        w.wait_until(w.ns(t_us))

    def reset(self) -> None:
        """Close gpiozero's factory and the world (between Hypothesis examples)."""
        if Device.pin_factory is not None:
            Device.pin_factory.close()
            Device.pin_factory = None
        self.world.install(None)


def stretches(low_us: int, high_us: int, pairs: int = 3) -> Any:
    """Hypothesis: an even-length bounce list (it ends where it began), 0 to `pairs` pairs."""
    from hypothesis import strategies as st
    return st.lists(st.tuples(st.integers(low_us, high_us), st.integers(low_us, high_us)), max_size=pairs).map(
        lambda ps: [v for p in ps for v in p])


#: The slowest IRQ thread of the default world (kernel.irq_thread_us): a first bounce stretch longer than
#: this leaves the first contact's hard-IRQ stamp in place.
IRQ_THREAD_MAX_US = 120


def bouncing_contacts(seats: int = 2, per_seat: int = 2, *, low_us: int = 5, high_us: int = 1500) -> Any:
    """Hypothesis: contacts laid out in time, each seat's `per_seat` touches apart by more than a window.

    Bounce stretches from `low_us` to `high_us` (a contact bounces for at most 6 of them): shorter
    than the IRQ thread's latency they fold into one kernel event, longer they are events of their own.
    """
    from hypothesis import strategies as st
    one = st.tuples(stretches(low_us, high_us), stretches(low_us, high_us), st.integers(15_000, 40_000),
                    st.integers(0, 3_000))
    return st.lists(one, min_size=seats * per_seat, max_size=seats * per_seat).map(
        lambda plans: _layout(plans, seats))


def _layout(plans: list[tuple[list[int], list[int], int, int]], seats: int) -> list[dict[str, Any]]:
    out, free = [], [5_000 + 700 * s for s in range(seats)]
    for i, (bounce, release, hold, gap) in enumerate(plans):
        seat = i % seats
        hold = max(hold, sum(bounce) + 1_000)
        t = free[seat] + gap
        out.append({"seat": seat, "t_us": t, "hold_us": hold, "bounce_us": bounce, "release_bounce_us": release})
        free[seat] = t + hold + sum(release) + 25_000      # more than the 10 ms window after the release
    return sorted(out, key=lambda c: c["t_us"])


class KernelTap:
    """Every event the fake kernel queues, to tell its stamps from what the pads made of them."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def __enter__(self) -> "KernelTap":
        from gpiod import _kernel
        _kernel.TAPS.append(self._heard)
        return self

    def __exit__(self, *exc: object) -> None:
        from gpiod import _kernel
        _kernel.TAPS.remove(self._heard)

    def _heard(self, path: str, event: Any) -> None:
        self.events.append(event)

    def first_stamps(self, contacts: Iterable[Mapping[str, Any]], pins: Mapping[int, int], t0: int) -> list[int]:
        """Per contact, the stamp of the kernel's first event on its pin while it is held."""
        out = []
        for c in contacts:
            start, end = t0 + round(c["t_us"] * 1000), t0 + round((c["t_us"] + c["hold_us"]) * 1000)
            out.append(min(e.timestamp_ns for e in self.events
                           if e.offset == pins[c["seat"]] and start <= e.timestamp_ns < end))
        return out


def check_slaps(events: Sequence[Any], contacts: Sequence[Mapping[str, Any]], firsts: Sequence[int],
                t0: int) -> None:
    """One slap per contact, stamped as the kernel stamped its first event (software adds 0 ns), which
    is the true first contact whenever the first bounce stretch outlasts the IRQ thread."""
    got = sorted((e.seat, e.raw_t_ns) for e in events)
    assert got == sorted((c["seat"], f) for c, f in zip(contacts, firsts)), "a phantom, lost or moved slap"
    for c, f in zip(contacts, firsts):
        if not c["bounce_us"] or c["bounce_us"][0] > IRQ_THREAD_MAX_US:
            assert f == t0 + round(c["t_us"] * 1000)


@pytest.fixture
def fakeos() -> Iterator[FakeOS]:
    saved_modules = {name: mod for name, mod in sys.modules.items() if _is_fake(name)}
    for name in saved_modules:
        del sys.modules[name]
    saved_factory, saved_env = Device.pin_factory, os.environ.get("GPIOZERO_PIN_FACTORY")
    sys.path.insert(0, str(FAKEOS))
    spec = importlib.util.spec_from_file_location("fakeos_sitecustomize", FAKEOS / "sitecustomize.py")
    assert spec is not None and spec.loader is not None
    board = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(board)
    board.install()
    os.environ["GPIOZERO_PIN_FACTORY"] = "lgpio"
    Device.pin_factory = None
    import world
    fakes = FakeOS(world)
    try:
        yield fakes
    finally:
        fakes.reset()
        Device.pin_factory = saved_factory
        if saved_env is None:
            os.environ.pop("GPIOZERO_PIN_FACTORY", None)
        else:
            os.environ["GPIOZERO_PIN_FACTORY"] = saved_env
        sys.path.remove(str(FAKEOS))
        for name in [n for n in sys.modules if _is_fake(n)]:
            del sys.modules[name]
        sys.modules.update(saved_modules)


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    saved = Device.pin_factory
    factory = MockFactory(pin_class=TimedMockPin)
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved

"""An MPR121 table at the operating system's boundary, for in-process tests and the bench.

tests/fakeos goes first on the import path (as PYTHONPATH on a test Pi), so
the project's own `import smbus2` and gpiozero's `import lgpio` find the fakes;
gpiozero builds its default factory from GPIOZERO_PIN_FACTORY=lgpio. The world
(tests/fakeos/README.md) has one MPR121 at 0x5A on I2C bus 1, its IRQ on GPIO 4
of gpiochip0 and one electrode per seat; the test adds contacts and hovers.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

FAKEOS = Path(__file__).resolve().parents[1] / "fakeos"
IRQ_LINE = "gpiochip0:4"
CHIP = "1:0x5a"
_FAKE_MODULES = ("world", "smbus2", "lgpio", "gpiod", "gpiozero.pins.lgpio")


def _is_fake(name: str) -> bool:
    return name in _FAKE_MODULES or name.startswith(("gpiod.", "smbus2."))


@contextmanager
def fakeos() -> Iterator[Any]:
    """The fakes on the import path and gpiozero on lgpio, for one test; yields the `world` module.

    Fresh fake modules for the test (lgpio, smbus2 and gpiozero's lgpio pins share
    one `world`); afterwards the process's modules, path and factory are as before.
    """
    from gpiozero import Device

    saved_modules = {name: mod for name, mod in sys.modules.items() if _is_fake(name)}
    for name in saved_modules:
        del sys.modules[name]
    saved_factory, saved_env = Device.pin_factory, os.environ.get("GPIOZERO_PIN_FACTORY")
    sys.path.insert(0, str(FAKEOS))
    spec = importlib.util.spec_from_file_location("fakeos_sitecustomize", FAKEOS / "sitecustomize.py")
    assert spec is not None and spec.loader is not None
    board = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(board)
    board.install()                                   # gpiozero reads the world's board revision
    os.environ["GPIOZERO_PIN_FACTORY"] = "lgpio"
    Device.pin_factory = None
    import world
    try:
        yield world
    finally:
        if Device.pin_factory is not None:
            Device.pin_factory.close()
        Device.pin_factory = saved_factory
        if saved_env is None:
            os.environ.pop("GPIOZERO_PIN_FACTORY", None)
        else:
            os.environ["GPIOZERO_PIN_FACTORY"] = saved_env
        smbus2 = sys.modules.get("smbus2")
        if smbus2 is not None and hasattr(smbus2, "close_chips"):
            smbus2.close_chips()
        world.install(None)
        sys.path.remove(str(FAKEOS))
        for name in [n for n in sys.modules if _is_fake(n)]:
            del sys.modules[name]
        sys.modules.update(saved_modules)


def table_spec(seats: int = 6, *, contacts: list[dict[str, Any]] | None = None,
               hovers: list[dict[str, Any]] | None = None, seed: int = 1) -> dict[str, Any]:
    """world.json for a table whose seat s slaps electrode s of the MPR121 (times in µs)."""
    return {"seed": seed,
            "lines": {IRQ_LINE: {"mpr121_irq": CHIP}},
            "mpr121": {CHIP: {"electrodes": {str(s): {"seat": s, "kind": "slap"} for s in range(seats)}}},
            "contacts": contacts or [], "hovers": hovers or []}


def table(world: Any, spec: dict[str, Any]) -> Any:
    """Install the world (at rest until `go`); returns the World."""
    return world.install(world.World(spec))


def go(w: Any, lead_ms: float = 20.0) -> Any:
    """Start the world's timeline `lead_ms` from now; returns the World."""
    w.start(time.monotonic_ns() + round(lead_ms * 1e6))
    return w


def wait_until(w: Any, t_ms: float) -> None:
    """Sleep until the world's timeline reaches `t_ms` (milliseconds from t0)."""
    w.wait_until(w.ns(t_ms * 1000))

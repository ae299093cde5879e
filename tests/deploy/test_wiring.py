"""The wiring table, camera coverage and schematic in the docs equal what deploy/wiring.py makes from the code."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import xml.etree.ElementTree as ET
from types import ModuleType

from hardware import pins
from tests.conftest import ROOT

FIX = "out of date: run `python deploy/wiring.py --write-readme --svg docs/wiring.svg` and commit"


def wiring() -> ModuleType:
    spec = importlib.util.spec_from_file_location("deploy_wiring", ROOT / "deploy" / "wiring.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_contains_exactly_the_generated_block() -> None:
    w = wiring()
    readme = (ROOT / "hardware" / "README.md").read_text()
    block = w.markdown()
    assert block in readme, "hardware/README.md wiring block " + FIX
    assert readme.count(w.BEGIN) == 1 and readme.count(w.END) == 1


def test_script_prints_the_block() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "deploy" / "wiring.py")], capture_output=True, text=True,
                         timeout=60, cwd=ROOT / "deploy")
    assert out.returncode == 0, out.stderr
    assert out.stdout == wiring().markdown() + "\n"


def test_svg_is_up_to_date_and_well_formed() -> None:
    committed = (ROOT / "docs" / "wiring.svg").read_text()
    assert committed == wiring().svg(), "docs/wiring.svg " + FIX
    root = ET.fromstring(committed)
    assert root.tag.endswith("svg")


def test_table_rows_follow_hardware_pins() -> None:
    w = wiring()
    table = w.wiring_table()
    for seat, gpio in pins.DEFAULT_PAD_PINS.items():
        press = pins.DEFAULT_PRESS_PINS[seat]
        row = f"| {seat} ({seat + 1}) | GPIO {gpio} (pin {w.HEADER_PIN[gpio]}) | GPIO {press} (pin {w.HEADER_PIN[press]}) |"
        assert row in table
    assert f"GPIO {pins.DEFAULT_MPR121_IRQ_PIN} (pin 7)" in table
    assert f"0x{pins.DEFAULT_MPR121_ADDRESS:02X}" in table


def test_header_map_is_a_bijection_onto_the_gpio_pins() -> None:
    w = wiring()
    assert sorted(w.HEADER_PIN) == list(range(28))
    assert len(set(w.HEADER_PIN.values())) == 28
    assert not set(w.HEADER_PIN.values()) & set(w.POWER_PINS)
    assert set(w.HEADER_PIN.values()) | set(w.POWER_PINS) <= set(range(1, 41))


def test_svg_labels_every_used_pin() -> None:
    svg = wiring().svg()
    for seat in pins.DEFAULT_PAD_PINS:
        assert f"seat {seat + 1} slap pad" in svg and f"seat {seat + 1} press button" in svg
    assert "MPR121 IRQ" in svg


def test_led_constants_are_picked_up(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(pins, "DEFAULT_SEAT_LED_PINS", {0: (18, 19, 20)}, raising=False)
    monkeypatch.setattr(pins, "DEFAULT_STATUS_LED_PINS", (9, 10, 11), raising=False)
    w = wiring()
    table = w.wiring_table()
    assert "seat led" in table and "GPIO 18 (pin 12), GPIO 19 (pin 35), GPIO 20 (pin 38)" in table
    assert "| status led | GPIO 9 (pin 21)" in table
    assert "seat 1 LED R" in w.svg()

"""deploy/table.example.toml: valid for referee.config.load, lists every key, matches the code's defaults."""
from __future__ import annotations

import tomllib
from dataclasses import fields

from hardware.pins import DEFAULT_PAD_PINS
from referee.config import SECTIONS, TableConfig, load
from tests.conftest import ROOT

EXAMPLE = ROOT / "deploy" / "table.example.toml"
#: Keys the example sets for a Pi table; every other key must equal the code's default.
PI_CHOICES = {("pads", "backend"), ("pads", "pins"), ("camera", "source"), ("audio", "backend"),
              ("journal", "path"), ("kiosk", "mode")}


def test_example_loads() -> None:
    config = load(EXAMPLE)
    assert config.pads.backend == "gpio" and config.camera.source == "picamera2"
    assert config.kiosk.mode == "demo"


def test_example_lists_every_key() -> None:
    raw = tomllib.loads(EXAMPLE.read_text())
    for name, cls in SECTIONS.items():
        assert set(raw[name]) == {f.name for f in fields(cls)}, name


def test_example_is_the_code_defaults_except_pi_choices() -> None:
    config, defaults = load(EXAMPLE), TableConfig()
    for name in SECTIONS:
        for f in fields(SECTIONS[name]):
            if (name, f.name) not in PI_CHOICES:
                assert getattr(getattr(config, name), f.name) == getattr(getattr(defaults, name), f.name), (name, f.name)


def test_example_pins_are_the_default_wiring() -> None:
    config = load(EXAMPLE)
    assert config.pads.pins == [DEFAULT_PAD_PINS[s] for s in range(config.game.players)]

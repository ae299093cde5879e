"""The table config (TOML): what game, which pads, camera, lights, voice, journal.

Strict by design: an unknown key or an impossible value is refused with one
line that names the key (`[pads] pins: ...`), because a typo that silently
falls back to a default is a wrong ruling at the table later.
"""
from __future__ import annotations

import ipaddress
import math
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from . import strict_toml
from .strict_toml import spec, spec_of
from .core.options import OptionError, validate
from .core.rules import SetupError, UnknownGame, find_game


class ConfigError(ValueError):
    """A config that cannot be used; `str()` is one line naming the key."""


GPIO = {"lo": 0, "hi": 27, "means": "a GPIO number on the 40-pin header"}
HOST_NAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*")
SEAT_US = 1_000_000              # a per-seat timing figure beyond a second is a unit mistake


@dataclass(frozen=True)
class GameConfig:
    id: str = field(default="slapjack", metadata=spec(max_chars=40))
    players: int = field(default=4, metadata=spec(lo=1, hi=99))
    dealer: int = field(default=0, metadata=spec(lo=0))
    options: dict[str, Any] = field(default_factory=dict)
    names: list[str] = field(default_factory=list, metadata=spec(item=str, per_seat=True, max_chars=40))


@dataclass(frozen=True)
class PadsConfig:
    backend: str = "sim"                 # gpio | gpiod | mpr121 | keyboard | sim | bots
    # slap pad per seat (gpio, gpiod lines); optional press button per seat
    pins: list[int] = field(default_factory=list, metadata=spec(item=int, per_seat=True, gpio=True, **GPIO))
    press_pins: list[int] = field(default_factory=list, metadata=spec(item=int, per_seat=True, gpio=True, **GPIO))
    chip: str = "auto"                   # gpiod: the header's chip found by its label, or a path
    debounce_ms: float = field(default=10.0, metadata=spec(lo=0, hi=1000))
    stuck_after_s: float = field(default=3.0, metadata=spec(above=0, hi=3600))
    # per-seat latency offsets (calibration, signed: measured against a reference pad), tie margins
    offsets_us: list[int] = field(default_factory=list,
                                  metadata=spec(item=int, per_seat=True, lo=-SEAT_US, hi=SEAT_US))
    tie_margin_us: list[int] = field(default_factory=list, metadata=spec(item=int, per_seat=True, lo=0, hi=SEAT_US))
    i2c_bus: int = field(default=1, metadata=spec(lo=0, hi=255))
    i2c_address: int = field(default=0x5A, metadata=spec(lo=0x5A, hi=0x5D, means="an MPR121 answers at 0x5A-0x5D"))
    irq_pin: int = field(default=4, metadata=spec(gpio=True, **GPIO))
    electrodes: list[int] = field(default_factory=list, metadata=spec(item=int, per_seat=True, distinct=True, lo=0,
                                                                       hi=11, means="an MPR121 has electrodes 0-11"))
    keys: str = field(default="alzmqp", metadata=spec(max_chars=26))


@dataclass(frozen=True)
class CameraConfig:
    source: str = "sim"                  # picamera2 | opencv | folder | rendered | sim | none
    device: int = field(default=0, metadata=spec(lo=0, hi=63))
    path: str = field(default="", metadata=spec(max_chars=4096))
    # x, y, w, h in the vision frame; [] = whole frame
    pile: list[int] = field(default_factory=list, metadata=spec(item=int, length=4, lo=0, hi=100_000))
    latency_ms: float = field(default=120.0, metadata=spec(lo=0, hi=2000))   # worst capture->event latency
    fps: float = field(default=30.0, metadata=spec(above=0, hi=240))
    frozen_after_s: float = field(default=2.0, metadata=spec(above=0, hi=3600))


@dataclass(frozen=True)
class LightsConfig:
    backend: str = "none"                # gpio | none
    # [r, g, b] GPIO per seat; the status LED's [r, g, b]
    seats: list[list[int]] = field(default_factory=list,
                                   metadata=spec(item=int, size=3, per_seat=True, gpio=True, **GPIO))
    status: list[int] = field(default_factory=list, metadata=spec(item=int, length=3, gpio=True, **GPIO))


@dataclass(frozen=True)
class AudioConfig:
    backend: str = "silent"              # espeak | files | silent
    device: str = "default"
    voice: str = field(default="en", metadata=spec(max_chars=40))
    volume: int = field(default=80, metadata=spec(lo=0, hi=100))
    dir: str = field(default="", metadata=spec(max_chars=4096))


@dataclass(frozen=True)
class JournalConfig:
    path: str = field(default="journal.db", metadata=spec(max_chars=4096))
    keep_games: int = field(default=0, metadata=spec(lo=0, hi=1_000_000))   # 0 = keep all; the demo prunes


@dataclass(frozen=True)
class KioskConfig:
    mode: str = "table"                  # table | demo
    port: int = field(default=8080, metadata=spec(lo=1, hi=65535))
    bind: str = field(default="127.0.0.1", metadata=spec(max_chars=253))
    operator_pin: str = field(default="", metadata=spec(max_chars=64))
    # demo mode: table seconds per real second
    speed: float = field(default=1.0, metadata=spec(lo=0.1, hi=100))


@dataclass(frozen=True)
class TableConfig:
    game: GameConfig = field(default_factory=GameConfig)
    pads: PadsConfig = field(default_factory=PadsConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    lights: LightsConfig = field(default_factory=LightsConfig)
    audio: AudioConfig = field(default_factory=AudioConfig)
    journal: JournalConfig = field(default_factory=JournalConfig)
    kiosk: KioskConfig = field(default_factory=KioskConfig)
    source: str = "<defaults>"


SECTIONS: dict[str, type] = {"game": GameConfig, "pads": PadsConfig, "camera": CameraConfig,
                             "lights": LightsConfig, "audio": AudioConfig, "journal": JournalConfig,
                             "kiosk": KioskConfig}
CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("pads", "backend"): ("gpio", "gpiod", "mpr121", "keyboard", "sim", "bots"),
    ("camera", "source"): ("picamera2", "opencv", "folder", "rendered", "sim", "none"),
    ("lights", "backend"): ("gpio", "none"),
    ("audio", "backend"): ("espeak", "files", "silent"),
    ("kiosk", "mode"): ("table", "demo"),
}


def _finite(where: str, value: Any) -> None:
    """Refuse NaN and infinities anywhere in a game's options (lists and tables too): the game's own
    option checks say which numbers may be negative."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{where}: must be a finite number, not {value}")
    if isinstance(value, list):
        for item in value:
            _finite(where, item)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _finite(f"{where}: {key}", item)


def _section(name: str, raw: Any) -> Any:
    def choose(key: str, value: Any) -> Any:
        allowed = CHOICES.get((name, key))
        if allowed and value not in allowed:
            raise ConfigError(f"[{name}] {key}: must be one of {', '.join(allowed)}, not {value!r}")
        if (name, key) == ("game", "options"):
            _finite(f"[{name}] {key}", value)
        return value
    return strict_toml.section(name, SECTIONS[name], raw, ConfigError, check=choose)


def parse(data: Mapping[str, Any], source: str = "<config>") -> TableConfig:
    """Build and validate a TableConfig; ConfigError names the first bad key."""
    for key in data:
        if key not in SECTIONS:
            raise ConfigError(f"{strict_toml.key_text(key)}: unknown section (known: {', '.join(SECTIONS)})")
    sections = {name: _section(name, data.get(name, {})) for name in SECTIONS}
    config = TableConfig(**sections, source=source)
    _check_meaning(config)
    return config


def _check_meaning(config: TableConfig) -> None:
    game = config.game
    try:
        rules = find_game(game.id)
        opts = validate(rules.OPTIONS, game.options)
        rules.check_players(game.players, opts)
    except UnknownGame as exc:
        raise ConfigError(f"[game] id: {exc}") from None
    except OptionError as exc:
        raise ConfigError(f"[game] options: {exc}") from None
    except SetupError as exc:
        raise ConfigError(f"[game] players: {exc}") from None
    if not 0 <= game.dealer < game.players:
        raise ConfigError(f"[game] dealer: must be a seat from 0 to {game.players - 1}")
    if any(not name.strip() for name in game.names):
        raise ConfigError("[game] names: a name cannot be blank")
    tie_us = opts.get("tie_us")
    if isinstance(tie_us, (list, tuple)) and len(tie_us) != game.players:
        raise ConfigError(f"[game] options: tie_us: one value, or one per seat ({game.players}), got {len(tie_us)}")
    _check_per_seat(config)
    _check_pins(config)
    pads = config.pads
    if pads.backend in ("gpio", "gpiod"):
        if len(pads.pins) != game.players:
            raise ConfigError(f"[pads] pins: one pin per seat needed ({game.players}), got {len(pads.pins)}")
    if pads.chip != "auto" and not pads.chip.startswith("/dev/gpiochip"):
        raise ConfigError(f'[pads] chip: "auto" (found by its label) or a /dev/gpiochipN path, not {pads.chip!r}')
    if pads.backend == "keyboard" and len(pads.keys) < game.players:
        raise ConfigError(f"[pads] keys: one key per seat needed ({game.players})")
    if pads.backend == "keyboard" and (len(set(pads.keys)) != len(pads.keys)
                                       or not all(k.isalpha() and k.islower() for k in pads.keys)):
        raise ConfigError("[pads] keys: distinct lower-case letters, one per seat (shift+key is the press)")
    if pads.debounce_ms < 0 or pads.stuck_after_s <= 0:
        raise ConfigError("[pads] debounce_ms / stuck_after_s: must be positive")
    camera = config.camera
    if camera.pile and (len(camera.pile) != 4 or any(v < 0 for v in camera.pile) or camera.pile[2] <= 0 or camera.pile[3] <= 0):
        raise ConfigError("[camera] pile: must be [x, y, width, height] with positive size")
    if camera.latency_ms < 0 or camera.latency_ms > 2000:
        raise ConfigError("[camera] latency_ms: must be between 0 and 2000")
    if camera.source == "folder" and not camera.path:
        raise ConfigError("[camera] path: a folder source needs a path")
    if camera.fps <= 0 or camera.frozen_after_s <= 0:
        raise ConfigError("[camera] fps / frozen_after_s: must be positive")
    if camera.source == "rendered" and pads.backend != "bots":
        raise ConfigError('[camera] source: "rendered" draws the bots\' simulated table: it needs [pads] backend = "bots"')
    if pads.backend == "bots" and camera.source not in ("rendered", "sim"):
        raise ConfigError('[camera] source: a bots table is seen by the "rendered" camera or named by the "sim" one, '
                          f'not {camera.source!r}')
    lights = config.lights
    if lights.backend == "gpio":
        if len(lights.seats) != game.players:
            raise ConfigError(f"[lights] seats: one [r, g, b] pin triple per seat needed ({game.players})")
    if not 0 <= config.audio.volume <= 100:
        raise ConfigError("[audio] volume: must be 0..100")
    if config.audio.backend == "files" and not config.audio.dir:
        raise ConfigError("[audio] dir: the files backend needs a folder")
    if not _host(config.kiosk.bind):
        raise ConfigError(f"[kiosk] bind: an IP address or a host name, not {config.kiosk.bind!r}")
    if not config.journal.path.strip():
        raise ConfigError("[journal] path: must name the journal file")
    if not 0.1 <= config.kiosk.speed <= 100:
        raise ConfigError("[kiosk] speed: table seconds per real second, from 0.1 to 100")
    if config.kiosk.speed != 1.0 and pads.backend != "bots" and config.kiosk.mode != "demo":
        raise ConfigError('[kiosk] speed: only a simulated table (mode = "demo", or [pads] backend = "bots") '
                          "runs faster than real time")


def _host(text: str) -> bool:
    """An IP address ("0.0.0.0", "::1") or a host name ("localhost", "table.local")."""
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return bool(HOST_NAME.fullmatch(text))


def _check_per_seat(config: TableConfig) -> None:
    """Every list declared per seat holds one entry per seat, or none."""
    seats = config.game.players
    for name, cls in SECTIONS.items():
        part = getattr(config, name)
        for f in fields(cls):
            values = getattr(part, f.name)
            if spec_of(cls, f.name).per_seat and values and len(values) != seats:
                raise ConfigError(f"[{name}] {f.name}: one per seat needed ({seats}), got {len(values)}")


def pins_in_use(config: TableConfig) -> list[tuple[str, int]]:
    """Every GPIO the config drives or reads, with the key that names it (`[pads] pins[2]`)."""
    used: list[tuple[str, int]] = []
    pads, lights = config.pads, config.lights
    if pads.backend in ("gpio", "gpiod"):
        used += [(f"[pads] pins[{i}]", p) for i, p in enumerate(pads.pins)]
        used += [(f"[pads] press_pins[{i}]", p) for i, p in enumerate(pads.press_pins)]
    if pads.backend == "mpr121":
        used.append(("[pads] irq_pin", pads.irq_pin))
    if lights.backend == "gpio":
        used += [(f"[lights] seats[{i}]", p) for i, rgb in enumerate(lights.seats) for p in rgb]
        used += [("[lights] status", p) for p in lights.status]
    return used


def _check_pins(config: TableConfig) -> None:
    """Each GPIO used once across pads, press buttons, the MPR121's IRQ and the LEDs."""
    first: dict[int, str] = {}
    for where, pin in pins_in_use(config):
        if pin in first:
            raise ConfigError(f"{where}: GPIO {pin} is already {first[pin]}")
        first[pin] = where


def load(path: str | Path) -> TableConfig:
    return strict_toml.load(path, parse, ConfigError)

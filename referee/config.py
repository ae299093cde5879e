"""The table config (TOML): what game, which pads, camera, lights, voice, journal.

Strict by design: an unknown key or an impossible value is refused with one
line that names the key (`[pads] pins: ...`), because a typo that silently
falls back to a default is a wrong ruling at the table later.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from . import strict_toml
from .options import OptionError, validate
from .rules import SetupError, UnknownGame, find_game


class ConfigError(ValueError):
    """A config that cannot be used; `str()` is one line naming the key."""


@dataclass(frozen=True)
class GameConfig:
    id: str = "slapjack"
    players: int = 4
    dealer: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PadsConfig:
    backend: str = "sim"                 # gpio | gpiod | mpr121 | keyboard | sim | bots
    pins: list[int] = field(default_factory=list)          # slap pad per seat (gpio, gpiod lines)
    press_pins: list[int] = field(default_factory=list)    # optional press button per seat
    chip: str = "auto"                   # gpiod: the header's chip found by its label, or a path
    debounce_ms: float = 10.0
    stuck_after_s: float = 3.0
    offsets_us: list[int] = field(default_factory=list)    # per-seat latency offsets (calibration)
    tie_margin_us: list[int] = field(default_factory=list)
    i2c_bus: int = 1
    i2c_address: int = 0x5A
    irq_pin: int = 4
    electrodes: list[int] = field(default_factory=list)
    keys: str = "alzmqp"


@dataclass(frozen=True)
class CameraConfig:
    source: str = "sim"                  # picamera2 | opencv | folder | rendered | sim | none
    device: int = 0
    path: str = ""
    pile: list[int] = field(default_factory=list)          # x, y, w, h in the vision frame; [] = whole frame
    latency_ms: float = 120.0            # worst capture->event latency: the arbiter's hold-back
    fps: float = 30.0
    frozen_after_s: float = 2.0


@dataclass(frozen=True)
class LightsConfig:
    backend: str = "none"                # gpio | none
    seats: list[list[int]] = field(default_factory=list)   # [r, g, b] GPIO per seat
    status: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class AudioConfig:
    backend: str = "silent"              # espeak | files | silent
    device: str = "default"
    voice: str = "en"
    volume: int = 80
    dir: str = ""


@dataclass(frozen=True)
class JournalConfig:
    path: str = "journal.db"
    keep_games: int = 0                  # 0 = keep all; the demo prunes old games


@dataclass(frozen=True)
class KioskConfig:
    mode: str = "table"                  # table | demo
    port: int = 8080
    bind: str = "127.0.0.1"
    operator_pin: str = ""
    speed: float = 1.0                   # demo mode: table seconds per real second


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
#: Numbers that may be negative (a pad's calibrated offset is measured against a reference pad).
SIGNED: frozenset[tuple[str, str]] = frozenset({("pads", "offsets_us")})


def _finite(where: str, value: Any, *, signed: bool) -> None:
    """Refuse NaN and infinities anywhere in `value` (lists and tables too), and negative numbers unless `signed`."""
    if isinstance(value, bool):
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{where}: must be a finite number, not {value}")
    if isinstance(value, (int, float)) and value < 0 and not signed:
        raise ConfigError(f"{where}: must not be negative, not {value}")
    if isinstance(value, list):
        for item in value:
            _finite(where, item, signed=signed)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _finite(f"{where}: {key}", item, signed=signed)


def _section(name: str, raw: Any) -> Any:
    def choose(key: str, value: Any) -> Any:
        allowed = CHOICES.get((name, key))
        if allowed and value not in allowed:
            raise ConfigError(f"[{name}] {key}: must be one of {', '.join(allowed)}, not {value!r}")
        # game options may be negative where a game allows it (its own checks say); never NaN or infinite
        _finite(f"[{name}] {key}", value, signed=(name, key) in SIGNED or (name, key) == ("game", "options"))
        return value
    return strict_toml.section(name, SECTIONS[name], raw, ConfigError, check=choose)


def parse(data: Mapping[str, Any], source: str = "<config>") -> TableConfig:
    """Build and validate a TableConfig; ConfigError names the first bad key."""
    for key in data:
        if key not in SECTIONS:
            raise ConfigError(f"{key}: unknown section (known: {', '.join(SECTIONS)})")
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
    if game.names and len(game.names) != game.players:
        raise ConfigError(f"[game] names: {len(game.names)} names for {game.players} players")
    pads = config.pads
    if pads.backend in ("gpio", "gpiod"):
        if len(pads.pins) != game.players:
            raise ConfigError(f"[pads] pins: one pin per seat needed ({game.players}), got {len(pads.pins)}")
        used = list(pads.pins) + list(pads.press_pins)
        if len(set(used)) != len(used):
            raise ConfigError("[pads] pins: a GPIO pin is used twice")
        if any(not 0 <= p <= 27 for p in used):
            raise ConfigError("[pads] pins: GPIO numbers run from 0 to 27")
    if pads.chip != "auto" and not pads.chip.startswith("/dev/gpiochip"):
        raise ConfigError(f'[pads] chip: "auto" (found by its label) or a /dev/gpiochipN path, not {pads.chip!r}')
    if pads.press_pins and len(pads.press_pins) != game.players:
        raise ConfigError(f"[pads] press_pins: one per seat needed ({game.players}), or none")
    if pads.backend == "mpr121" and pads.electrodes and len(pads.electrodes) != game.players:
        raise ConfigError(f"[pads] electrodes: one per seat needed ({game.players})")
    if pads.backend == "keyboard" and len(pads.keys) < game.players:
        raise ConfigError(f"[pads] keys: one key per seat needed ({game.players})")
    if pads.backend == "keyboard" and (len(set(pads.keys)) != len(pads.keys)
                                       or not all(k.isalpha() and k.islower() for k in pads.keys)):
        raise ConfigError("[pads] keys: distinct lower-case letters, one per seat (shift+key is the press)")
    for key in ("offsets_us", "tie_margin_us"):
        values = getattr(pads, key)
        if values and len(values) != game.players:
            raise ConfigError(f"[pads] {key}: one value per seat needed ({game.players})")
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
        if len(lights.seats) != game.players or any(len(rgb) != 3 for rgb in lights.seats):
            raise ConfigError(f"[lights] seats: one [r, g, b] pin triple per seat needed ({game.players})")
        if lights.status and len(lights.status) != 3:
            raise ConfigError("[lights] status: must be [r, g, b]")
        light_pins = [p for rgb in lights.seats for p in rgb] + list(lights.status)
        clash = set(light_pins) & set(list(pads.pins) + list(pads.press_pins))
        if len(set(light_pins)) != len(light_pins) or clash:
            raise ConfigError(f"[lights] seats: GPIO pins used twice{' (' + str(sorted(clash)) + ' also pads)' if clash else ''}")
    if not 0 <= config.audio.volume <= 100:
        raise ConfigError("[audio] volume: must be 0..100")
    if config.audio.backend == "files" and not config.audio.dir:
        raise ConfigError("[audio] dir: the files backend needs a folder")
    if not 1 <= config.kiosk.port <= 65535:
        raise ConfigError("[kiosk] port: must be 1..65535")
    if not 0.1 <= config.kiosk.speed <= 100:
        raise ConfigError("[kiosk] speed: table seconds per real second, from 0.1 to 100")
    if config.kiosk.speed != 1.0 and pads.backend != "bots" and config.kiosk.mode != "demo":
        raise ConfigError('[kiosk] speed: only a simulated table (mode = "demo", or [pads] backend = "bots") '
                          "runs faster than real time")


def load(path: str | Path) -> TableConfig:
    return strict_toml.load(path, parse, ConfigError)

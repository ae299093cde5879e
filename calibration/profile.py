"""Calibration profiles: one versioned TOML file per table, validated strictly on load.

A profile holds what calibration measured (pile region, capture latency, the
deck's learned model, pad offsets and tie margins, volume); `apply.py` turns it
into config values. Loading refuses unknown keys, wrong types and versions this
code does not know, with one line naming the key: a misread profile would make
wrong rulings silently.

Where profiles live (first that applies): `--profile-dir`, then
`/var/lib/tabletop/profiles/` when it exists (the installed service), else
`~/.config/tabletop/profiles/`. Files are `<table>.toml`; a learned deck is
stored beside it as `<table>.deck.npz` and named in the profile with its hash.
"""
from __future__ import annotations

import os
import re
import tomllib
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from referee import strict_toml

from . import tomlw

VERSION = 1
SYSTEM_DIR = Path("/var/lib/tabletop/profiles")
USER_DIR = Path("~/.config/tabletop/profiles")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class ProfileError(ValueError):
    """A profile that cannot be used; `str()` is one line naming the key."""


@dataclass(frozen=True)
class CameraProfile:
    """What `calibrate camera` measured."""

    source: str = ""
    frame_size: list[int] = field(default_factory=list)     # [w, h] of the vision frame
    pile: list[int] = field(default_factory=list)           # [x, y, w, h]
    card: list[int] = field(default_factory=list)           # [x, y, w, h] of the card dropped to find it
    fps: float = 0.0
    latency_ms: float = 0.0          # hold-back: a high percentile of capture->delivery latency
    latency_p50_ms: float = 0.0
    latency_percentile: float = 99.0
    latency_measured: bool = False   # False when the source cannot show it (a recording)
    controls: dict[str, Any] = field(default_factory=dict)  # picamera2 controls locked by calibration


@dataclass(frozen=True)
class DeckProfile:
    """What `calibrate deck` learned and how well it named held-out shots."""

    name: str = ""
    cards: list[str] = field(default_factory=list)          # the deck's own list
    model: str = ""                  # file beside the profile
    sha256: str = ""
    usable: bool = False             # every card seen and named right on held-out shots
    learn_shots: int = 0
    held_out_shots: int = 0
    held_out_accuracy: float = 0.0
    baseline_accuracy: float = 0.0   # the stock recognizer on the same held-out shots
    confused: list[str] = field(default_factory=list)       # "QH as JH" on held-out shots
    missing: list[str] = field(default_factory=list)        # deck cards never shown or never checked
    confidence: dict[str, float] = field(default_factory=dict)  # card -> lowest held-out confidence


@dataclass(frozen=True)
class PadsProfile:
    """What `calibrate pads` measured, per seat (0-based)."""

    backend: str = ""
    wiring: list[int] = field(default_factory=list)         # seat -> the input that answered it
    offsets_us: list[int] = field(default_factory=list)
    tie_margin_us: list[int] = field(default_factory=list)
    bounce_ms: list[float] = field(default_factory=list)
    debounce_ms: float = 0.0
    table_tie_us: int = 0            # two seats' slaps closer than this cannot be ordered
    reference: str = "none"          # pad | camera | none
    trials: int = 0
    touch_threshold: list[int] = field(default_factory=list)   # MPR121 only
    release_threshold: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class AudioProfile:
    """What `calibrate audio` set."""

    backend: str = ""
    device: str = ""
    voice: str = ""
    volume: int = 80
    confirmed: bool = False          # a person said they heard the phrase


@dataclass(frozen=True)
class Profile:
    """One table's calibration; sections not yet calibrated are None."""

    table: str
    version: int = VERSION
    created: str = ""
    updated: str = ""
    camera: CameraProfile | None = None
    deck: DeckProfile | None = None
    pads: PadsProfile | None = None
    audio: AudioProfile | None = None


SECTIONS: dict[str, type] = {"camera": CameraProfile, "deck": DeckProfile, "pads": PadsProfile,
                             "audio": AudioProfile}
_LIST_ITEM: dict[tuple[str, str], type] = {
    ("camera", "frame_size"): int, ("camera", "pile"): int, ("camera", "card"): int,
    ("deck", "cards"): str, ("deck", "confused"): str, ("deck", "missing"): str,
    ("pads", "wiring"): int, ("pads", "offsets_us"): int, ("pads", "tie_margin_us"): int,
    ("pads", "bounce_ms"): float, ("pads", "touch_threshold"): int, ("pads", "release_threshold"): int,
}
#: picamera2 controls a profile may lock, and their value types.
CAMERA_CONTROLS: dict[str, type] = {"AeEnable": bool, "AwbEnable": bool, "ExposureTime": int,
                                    "AnalogueGain": float, "ColourGains": list, "AfMode": int,
                                    "LensPosition": float, "FrameRate": float}


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def default_dir() -> Path:
    """The system directory when the service is installed, else the user's."""
    return SYSTEM_DIR if SYSTEM_DIR.is_dir() else USER_DIR.expanduser()


def profile_dir(override: str | Path | None = None) -> Path:
    return Path(override).expanduser() if override else default_dir()


def path_for(table: str, directory: str | Path | None = None) -> Path:
    check_table_name(table)
    return profile_dir(directory) / f"{table}.toml"


def check_table_name(table: str) -> str:
    if not _NAME.match(table):
        raise ProfileError(f"table: {table!r} is not a usable name (letters, digits, _ . -)")
    return table


# -- validation -----------------------------------------------------------------
def _section(name: str, raw: Any) -> Any:
    section = strict_toml.section(name, SECTIONS[name], raw, ProfileError,
                                  items={key: t for (sec, key), t in _LIST_ITEM.items() if sec == name})
    _check_section(name, section)
    return section


def _check_section(name: str, s: Any) -> None:
    if name == "camera":
        for key in ("pile", "card"):
            box = getattr(s, key)
            if box and (len(box) != 4 or min(box) < 0 or box[2] <= 0 or box[3] <= 0):
                raise ProfileError(f"[camera] {key}: must be [x, y, width, height] with positive size")
        if s.frame_size and (len(s.frame_size) != 2 or min(s.frame_size) <= 0):
            raise ProfileError("[camera] frame_size: must be [width, height]")
        if not 0 <= s.latency_ms <= 2000:
            raise ProfileError("[camera] latency_ms: must be between 0 and 2000")
        if s.fps < 0:
            raise ProfileError("[camera] fps: must not be negative")
        for key, value in s.controls.items():
            want = CAMERA_CONTROLS.get(key)
            if want is None:
                raise ProfileError(f"[camera.controls] {key}: unknown control (known: {', '.join(CAMERA_CONTROLS)})")
            ok = (isinstance(value, (int, float)) and not isinstance(value, bool)) if want is float else \
                isinstance(value, want) and (want is bool or not isinstance(value, bool))
            if not ok:
                raise ProfileError(f"[camera.controls] {key}: expected {want.__name__}, got {value!r}")
    elif name == "deck":
        if s.usable and (not s.cards or not s.model or not s.sha256):
            raise ProfileError("[deck] usable: a usable deck needs cards, model and sha256")
        if s.model and (Path(s.model).name != s.model):
            raise ProfileError("[deck] model: must be a file name beside the profile, not a path")
        for card, conf in s.confidence.items():
            if not isinstance(conf, (int, float)) or isinstance(conf, bool) or not 0 <= conf <= 1:
                raise ProfileError(f"[deck.confidence] {card}: must be a number 0..1")
    elif name == "pads":
        n = len(s.offsets_us)
        for key in ("wiring", "tie_margin_us", "bounce_ms"):
            if getattr(s, key) and len(getattr(s, key)) != n:
                raise ProfileError(f"[pads] {key}: one value per seat needed ({n})")
        if any(v < 0 for v in s.tie_margin_us) or s.table_tie_us < 0 or s.debounce_ms < 0:
            raise ProfileError("[pads] tie_margin_us / table_tie_us / debounce_ms: must not be negative")
        if s.wiring and sorted(s.wiring) != sorted(set(s.wiring)):
            raise ProfileError("[pads] wiring: an input answers for two seats")
        if s.reference not in ("pad", "camera", "none"):
            raise ProfileError("[pads] reference: must be one of pad, camera, none")
        if len(s.touch_threshold) != len(s.release_threshold) or any(
                not 0 <= r < t <= 255 for t, r in zip(s.touch_threshold, s.release_threshold)):
            raise ProfileError("[pads] touch_threshold / release_threshold: need 0 <= release < touch <= 255 per seat")
    elif name == "audio":
        if not 0 <= s.volume <= 100:
            raise ProfileError("[audio] volume: must be 0..100")


TOP_KEYS = {"version", "table", "created", "updated", *SECTIONS}


def parse(data: Mapping[str, Any], source: str = "<profile>") -> Profile:
    """Build and validate a Profile; ProfileError names the first bad key."""
    for key in data:
        if key not in TOP_KEYS:
            raise ProfileError(f"{key}: unknown key (known: {', '.join(sorted(TOP_KEYS))})")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProfileError("version: missing or not an integer")
    if version != VERSION:
        raise ProfileError(f"version: {version} is not supported (this referee reads version {VERSION}); recalibrate")
    table = data.get("table")
    if not isinstance(table, str):
        raise ProfileError("table: missing or not a string")
    check_table_name(table)
    for key in ("created", "updated"):
        if not isinstance(data.get(key, ""), str):
            raise ProfileError(f"{key}: expected a string")
    sections = {name: _section(name, data[name]) for name in SECTIONS if name in data}
    return Profile(table=table, version=version, created=data.get("created", ""),
                   updated=data.get("updated", ""), **sections)


def load(path: str | Path) -> Profile:
    return strict_toml.load(path, parse, ProfileError)


def to_dict(profile: Profile) -> dict[str, Any]:
    out: dict[str, Any] = {"version": profile.version, "table": profile.table,
                           "created": profile.created, "updated": profile.updated}
    for name in SECTIONS:
        section = getattr(profile, name)
        if section is not None:
            out[name] = asdict(section)
    return out


def dumps(profile: Profile) -> str:
    header = (f"# Tabletop Referee calibration profile for table {profile.table!r}.\n"
              "# Written by `referee calibrate`; edit with care: unknown keys are refused on load.\n")
    return header + tomlw.dumps(to_dict(profile))


def save(profile: Profile, path: str | Path) -> Path:
    """Validate, then write atomically (a half-written profile must never be read)."""
    text = dumps(profile)
    parse(tomllib.loads(text))  # what is written must load back
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_or_new(table: str, directory: str | Path | None = None) -> tuple[Profile, Path]:
    """The table's profile, or a fresh one when none is saved yet."""
    path = path_for(table, directory)
    if path.exists():
        return load(path), path
    stamp = now_iso()
    return Profile(table=table, created=stamp, updated=stamp), path


def with_section(profile: Profile, **sections: Any) -> Profile:
    """A copy with sections replaced and `updated` stamped."""
    return replace(profile, updated=now_iso(), **sections)

"""Build a working table from a TableConfig: the composition root.

Each `build_*` returns a real adapter when the config names hardware and a
simulated or silent one otherwise, and every failure is a one-line TableSetupError
("[pads] cannot open GPIO 17: ...") rather than a traceback.
"""
from __future__ import annotations

import functools
import importlib
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from referee.config import TableConfig
from referee.events import MS
from referee.ports import SILENT_KEEP, MemoryAnnouncer, NullLights
from referee.rulings import Ruling
from referee.runtime import TableRuntime
from referee.session import Session, build_game

from .adapters import CameraEventSource, LightsObserver, PadEventSource
from .evidence import EvidenceKeeper


class TableSetupError(RuntimeError):
    """The table cannot start as configured; `str()` is one line naming the part."""


def build_pads(config: TableConfig, *, pin_factory: Any = None) -> Any:
    pads = config.pads
    seats = config.game.players
    try:
        from hardware.pad_timing import PadTiming
        timing = PadTiming(offset_ns={s: us * 1000 for s, us in enumerate(pads.offsets_us)},
                           tie_margin_us=dict(enumerate(pads.tie_margin_us)))
        common: dict[str, Any] = {"debounce_ms": pads.debounce_ms, "stuck_after_s": pads.stuck_after_s,
                                  "timing": timing}
        if pads.backend == "gpio":
            from hardware.pads import GpioPads
            return GpioPads(dict(enumerate(pads.pins)), press_pins=dict(enumerate(pads.press_pins)) or None,
                            pin_factory=pin_factory, **common)
        if pads.backend == "gpiod":
            from hardware.pads_gpiod import GpiodPads
            return GpiodPads(dict(enumerate(pads.pins)), press_lines=dict(enumerate(pads.press_pins)) or None,
                             chip=pads.chip, **common)
        if pads.backend == "mpr121":
            from hardware.pads_mpr121 import Mpr121Pads
            electrodes = pads.electrodes or list(range(seats))
            return Mpr121Pads(dict(enumerate(electrodes)), bus=pads.i2c_bus, address=pads.i2c_address,
                              irq_pin=pads.irq_pin, pin_factory=pin_factory, **common)
        if pads.backend == "keyboard":
            from hardware.pads_keyboard import KeyboardPads
            return KeyboardPads(pads.keys[:seats])
        from hardware.pads_sim import SimPads
        return SimPads(seats, debounce_ms=pads.debounce_ms, stuck_after_s=pads.stuck_after_s)
    except TableSetupError:
        raise
    except Exception as exc:
        raise TableSetupError(f"[pads] {pads.backend}: {type(exc).__name__}: {exc}") from None


def build_camera(config: TableConfig, recognizer: Any = None) -> tuple[Callable[[], Any], Any] | None:
    """(open the camera, the vision pipeline), or None when cards come from elsewhere.
    `recognizer`: a deck learned by `referee calibrate deck` (default: the stock recognizer)."""
    cam = config.camera
    if cam.source in ("sim", "none"):
        return None
    try:
        from referee.vision.pipeline import CardPipeline
        if recognizer is not None:
            pipeline = CardPipeline(cam.pile or None, recognizer=recognizer, min_conf=recognizer.min_conf)
        else:
            pipeline = CardPipeline(cam.pile or None)
        from hardware import camera
        if cam.source == "picamera2":
            return (lambda: camera.Picamera2Source()), pipeline
        if cam.source == "opencv":
            return (lambda: camera.VideoCaptureSource(cam.path or cam.device)), pipeline
        return (lambda: camera.FolderSource(cam.path, fps=cam.fps)), pipeline
    except Exception as exc:
        raise TableSetupError(f"[camera] {cam.source}: {type(exc).__name__}: {exc}") from None


def build_announcer(config: TableConfig) -> Any:
    audio = config.audio
    if audio.backend == "silent":
        return MemoryAnnouncer(keep=SILENT_KEEP)
    try:
        voice = importlib.import_module("hardware.voice")
        if audio.backend == "files":
            return voice.FileAnnouncer(audio.dir, voice=audio.voice, volume=audio.volume)
        return voice.EspeakAnnouncer(device=audio.device, voice=audio.voice, volume=audio.volume)
    except FileNotFoundError as exc:     # AudioUnavailable: no espeak-ng/aplay; the table still runs, silently
        print(f"referee: warning: [audio] {exc}; continuing silent", file=sys.stderr)
        return MemoryAnnouncer(keep=SILENT_KEEP)
    except Exception as exc:
        raise TableSetupError(f"[audio] {audio.backend}: {type(exc).__name__}: {exc}") from None


def build_lights(config: TableConfig, *, pin_factory: Any = None) -> tuple[Any, Callable[[Ruling], list[tuple[int | None, str]]]]:
    lights = config.lights
    try:
        patterns = importlib.import_module("hardware.light_patterns")
        patterns_for = functools.partial(patterns.patterns_for, players=config.game.players)
    except ImportError:
        def patterns_for(_ruling: Ruling) -> list[tuple[int | None, str]]:
            return []
    if lights.backend == "none":
        return NullLights(), patterns_for
    try:
        module = importlib.import_module("hardware.lights")
        return module.RgbLights([tuple(rgb) for rgb in lights.seats], tuple(lights.status) or None,
                                pin_factory=pin_factory), patterns_for
    except Exception as exc:
        raise TableSetupError(f"[lights] gpio: {type(exc).__name__}: {exc}") from None


def open_journal(config: TableConfig) -> Any:
    try:
        from referee.journal import Journal
    except ImportError as exc:
        raise TableSetupError(f"[journal] unavailable: {exc}") from None
    try:
        return Journal(config.journal.path, keep_games=config.journal.keep_games)
    except Exception as exc:
        raise TableSetupError(f"[journal] {config.journal.path}: {exc}") from None


@dataclass
class Table:
    """Everything a running table holds, so it can be closed in one call."""

    runtime: TableRuntime
    pads: Any
    lights: Any
    announcer: Any
    journal: Any = None
    game_no: int | None = None
    closers: list[Any] = field(default_factory=list)

    def close(self) -> None:
        self.runtime.stop()
        for part in (self.lights, self.announcer, self.journal, *self.closers):
            close = getattr(part, "close", None)
            if close is not None:
                try:
                    close()
                except Exception:
                    pass


def game_options(config: TableConfig, pads: Any) -> dict[str, Any]:
    """The game's options, with each seat's tie margin at least what its pad can resolve."""
    options = dict(config.game.options)
    given = options.get("tie_us", 0)
    per_seat = list(given) if isinstance(given, list) else [given] * config.game.players
    tie_us = getattr(pads, "tie_us", None)
    if callable(tie_us):
        per_seat = [max(int(per_seat[s] if s < len(per_seat) else 0), int(tie_us(s))) for s in range(config.game.players)]
    options["tie_us"] = per_seat
    options.setdefault("margin_wait_ms", 60)
    return options


def config_or_none(path: str, command: str) -> TableConfig | None:
    """The table config, or None after one line on stderr saying why not (the command exits 2)."""
    from referee.config import ConfigError, load
    try:
        return load(path)
    except ConfigError as exc:
        print(f"referee {command}: {exc}", file=sys.stderr)
        return None


def load_profile(config: TableConfig, path: str) -> tuple[TableConfig, Any]:
    """Apply a calibration profile: (the config with its measurements, the learned deck or None)."""
    try:
        from calibration.apply import apply_profile, deck_recognizer
        from calibration.profile import load as load_profile_file
        from pathlib import Path
        profile = load_profile_file(path)
        return apply_profile(config, profile), deck_recognizer(profile, Path(path).parent)
    except Exception as exc:
        raise TableSetupError(f"[profile] {path}: {exc}") from None


def build_table(config: TableConfig, *, pin_factory: Any = None, resume: bool = False, journal: bool = True,
                clock: Callable[[], int] = time.monotonic_ns, seed: int = 0, recognizer: Any = None) -> Table:
    pads = build_pads(config, pin_factory=pin_factory)
    parts: list[Any] = [pads]
    try:
        lights, patterns_for = build_lights(config, pin_factory=pin_factory)
        parts.append(lights)
        announcer = build_announcer(config)
        parts.append(announcer)
        book = open_journal(config) if journal else None
        holdback = int(config.camera.latency_ms * MS)
        game_cfg = config.game
        options = game_options(config, pads)
        recorder = None
        names = game_cfg.names or None
        # a real table: the referee knows how many cards each hand holds, not which
        blind = build_game(game_cfg.id, game_cfg.players, seed=seed, dealer=game_cfg.dealer, options=options,
                           names=names, faces_known=False)
        if book is not None:
            from referee.journal import Recorder
            if resume:
                unfinished = [g for g in book.games() if not g.ended]
                if not unfinished:
                    raise TableSetupError(f"[journal] {config.journal.path}: no unfinished game to resume")
                recorder = Recorder.resume(book, unfinished[-1].id)
            else:
                recorder = Recorder.start(book, game_cfg.id, game_cfg.players, config=config_summary(config),
                                          holdback_ns=holdback, strict=False, seed=seed, dealer=game_cfg.dealer,
                                          options=options, names=names, hands=[list(h) for h in blind.hands])
            session = recorder.session
        else:
            session = Session(blind, holdback_ns=holdback, strict=False)
        sources: list[Any] = [PadEventSource(pads)]
        observers: list[Any] = [LightsObserver(lights, patterns_for)]
        camera = build_camera(config, recognizer)
        if camera is not None:
            open_camera, pipeline = camera
            keeper = EvidenceKeeper(recorder) if recorder is not None else None
            if keeper is not None:
                observers.append(keeper)
            sources.append(CameraEventSource(open_camera, pipeline, frozen_after_s=config.camera.frozen_after_s,
                                             on_frame=None if keeper is None else keeper.add_frame))
        runtime = TableRuntime(session, sources=sources, clock=clock, announcer=announcer,
                               observers=observers, recorder=recorder)
        return Table(runtime, pads, lights, announcer, book, runtime.game_no)
    except Exception:
        for part in parts:
            try:
                part.close()
            except Exception:
                pass
        raise


def config_summary(config: TableConfig) -> dict[str, Any]:
    from dataclasses import asdict
    data = asdict(config)
    data.pop("source", None)
    data.get("kiosk", {}).pop("operator_pin", None)
    return data


def check(config: TableConfig, *, pin_factory: Any = None) -> list[tuple[bool, str]]:
    """`referee run --check`: open each part the config names, then close it."""
    lines: list[tuple[bool, str]] = [(True, f"config {config.source}: valid ({config.game.id}, {config.game.players} players)")]
    for name, build in (("pads", lambda: build_pads(config, pin_factory=pin_factory)),
                        ("lights", lambda: build_lights(config, pin_factory=pin_factory)[0]),
                        ("audio", lambda: build_announcer(config))):
        try:
            part = build()
            lines.append((True, f"{name}: {part!r}"))
            getattr(part, "close", lambda: None)()
        except TableSetupError as exc:
            lines.append((False, str(exc)))
    camera = build_camera_check(config)
    lines.append(camera)
    if config.audio.backend == "espeak" and shutil.which("espeak-ng") is None:
        lines.append((False, "[audio] espeak-ng not found: sudo apt install espeak-ng alsa-utils"))
    return lines


def build_camera_check(config: TableConfig) -> tuple[bool, str]:
    try:
        built = build_camera(config)
    except TableSetupError as exc:
        return False, str(exc)
    if built is None:
        return True, f"camera: {config.camera.source} (cards come from the simulator or the dashboard)"
    open_camera, _pipeline = built
    try:
        cam = open_camera()
        frame_t = next(iter(cam), None)
        cam.close()
    except Exception as exc:
        return False, f"[camera] {config.camera.source}: {type(exc).__name__}: {exc}"
    if frame_t is None:
        return False, f"[camera] {config.camera.source}: no frame"
    return True, f"camera: {config.camera.source} delivers frames ({frame_t[0].shape[1]}x{frame_t[0].shape[0]})"

"""Build a working table from a TableConfig: the composition root of every table, real or simulated.

Each `build_*` returns a real adapter when the config names hardware, a
simulated one when it names the bots' world (`[pads] backend = "bots"`,
`[camera] source = "rendered"` or "sim"), and a silent one otherwise; every
failure is a one-line TableSetupError ("[pads] cannot open GPIO 17: ...")
rather than a traceback. `build_table` wires them round one TableRuntime that
plays game after game (`Table.next_game`).
"""
from __future__ import annotations

import functools
import importlib
import shutil
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from referee.config import GameConfig, TableConfig
from referee.core.events import MS
from referee.table.ports import SILENT_KEEP, MemoryAnnouncer, NullLights
from referee.core.rulings import Ruling
from referee.table.runtime import TableRuntime

from .adapters import CameraEventSource, LightsObserver, PadEventSource
from .clock import TableClock
from .evidence import EvidenceKeeper
from .game_pipeline import GamePipeline
from .game_setup import config_summary, game_options, open_game, started_at  # noqa: F401  (re-exported)

__all__ = ["TableSetupError", "Table", "build_table", "build_pads", "build_camera", "build_announcer", "build_lights",
           "open_journal", "check", "config_or_none", "load_profile", "game_options", "config_summary"]


#: How long slaps wait when the camera vouches that no card is landing: the pads' worst delivery delay
#: (lgpio hands on kernel events at least 0.5 ms late, an MPR121 status update takes ~4 ms and a late
#: read up to 20 ms, and a busy Python thread adds more). The camera's `latency_ms` bounds the wait
#: while a landing is being read.
PAD_HOLDBACK_MS = 50.0


class TableSetupError(RuntimeError):
    """The table cannot start as configured; `str()` is one line naming the part."""


def build_pads(config: TableConfig, *, pin_factory: Any = None, world: Any = None,
               clock: TableClock | None = None) -> Any:
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
            return KeyboardPads(pads.keys[:seats], **common)
        if pads.backend == "bots":
            from .simulated import bots_pads
            if world is None:
                raise TableSetupError("[pads] bots: the bots play in a simulated world (build_table makes one)")
            return bots_pads(config, world, clock or TableClock(), timing)
        from hardware.pads_sim import SimPads
        return SimPads(seats, debounce_ms=pads.debounce_ms, stuck_after_s=pads.stuck_after_s)
    except TableSetupError:
        raise
    except Exception as exc:
        raise TableSetupError(f"[pads] {pads.backend}: {type(exc).__name__}: {exc}") from None


def build_camera(config: TableConfig, recognizer: Any = None, *, world: Any = None, clock: TableClock | None = None,
                 controls: dict[str, Any] | None = None) -> tuple[Callable[[], Any], Any] | None:
    """(open the camera, the vision pipeline), or None when cards come from elsewhere.
    `recognizer`: a deck learned by `referee calibrate deck` (default: the stock recognizer);
    `controls`: the picamera2 controls a calibration profile locked."""
    cam = config.camera
    if cam.source in ("sim", "none"):
        return None
    try:
        from referee.vision.pipeline import CardPipeline
        if recognizer is not None:
            pipeline = CardPipeline(cam.pile or None, recognizer=recognizer, min_conf=recognizer.min_conf)
        else:
            pipeline = CardPipeline(cam.pile or None)
        if cam.source == "rendered":
            from .simulated import rendered_camera
            if world is None:
                raise TableSetupError("[camera] rendered: draws a simulated world (build_table makes one)")
            return rendered_camera(config, world, clock or TableClock()), pipeline
        from hardware import camera
        if cam.source == "picamera2":
            return (lambda: camera.Picamera2Source(fps=cam.fps, controls=controls or None)), pipeline
        if cam.source == "opencv":
            return (lambda: camera.VideoCaptureSource(cam.path or cam.device)), pipeline
        return (lambda: camera.FolderSource(cam.path, fps=cam.fps)), pipeline
    except TableSetupError:
        raise
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
    patterns_for: Callable[[Ruling], list[tuple[int | None, str]]]
    try:
        patterns = importlib.import_module("hardware.light_patterns")
        patterns_for = functools.partial(patterns.patterns_for, players=config.game.players)
    except ImportError:
        patterns_for = lambda _ruling: []      # noqa: E731  (no patterns module: no lights to show)
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
    """Everything a running table holds: start it, play `next_game()` after each game, close it in one call."""

    config: TableConfig
    clock: TableClock
    runtime: TableRuntime
    pads: Any
    lights: Any
    announcer: Any
    journal: Any = None
    world: Any = None                   # the simulated world (a bots table), else None
    bots: Any = None
    pipeline: GamePipeline | None = None
    keeper: EvidenceKeeper | None = None
    closers: list[Any] = field(default_factory=list)

    @property
    def game_no(self) -> int | None:
        return self.runtime.game_no

    def start(self) -> "Table":
        self.runtime.start()
        if self.bots is not None:
            self.bots.start()
        return self

    def next_game(self, game: GameConfig, seed: int) -> None:
        """Start `game` with the same pads, camera, lights, voice and journal (a new journal game)."""
        now = self.clock()
        session, recorder = _opened(lambda: open_game(self.config, game, pads=self.pads, journal=self.journal,
                                                      seed=seed, started_ns=now), self.config)
        if self.bots is not None:
            self.bots.suspend()
        if self.world is not None:
            self.world.follow(session.game, now)
        if self.keeper is not None:
            self.keeper.recorder = recorder
        if self.pipeline is not None:
            self.pipeline.reset_from(now)
        self.runtime.new_game(session, recorder)
        if self.bots is not None:
            self.bots.new_game()
        for seat in range(min(game.players, getattr(self.lights, "seats", game.players))):
            self.lights.show(seat, "off")

    def close(self) -> None:
        if self.bots is not None:
            self.bots.stop()
        self.runtime.stop()
        for part in (self.lights, self.announcer, self.journal, *self.closers):
            close = getattr(part, "close", None)
            if close is not None:
                try:
                    close()
                except Exception:
                    pass


def build_table(config: TableConfig, *, pin_factory: Any = None, resume: bool = False, journal: bool = True,
                clock: TableClock | None = None, seed: int = 0, recognizer: Any = None,
                controls: dict[str, Any] | None = None, game: GameConfig | None = None) -> Table:
    """The table `config` describes, its first game (`game`, default the configured one, or the last unfinished
    one with `resume`) set up but not started: `Table.start()`. `clock`: a sped-up clock for a simulated table."""
    clock = clock or TableClock()
    world = None
    if config.pads.backend == "bots" or config.camera.source == "rendered":
        from .sim_world import SimWorld
        world = SimWorld(seed=seed)
    pads = build_pads(config, pin_factory=pin_factory, world=world, clock=clock)
    parts: list[Any] = [pads]
    try:
        lights, patterns_for = build_lights(config, pin_factory=pin_factory)
        parts.append(lights)
        announcer = build_announcer(config)
        parts.append(announcer)
        book = open_journal(config) if journal else None
        if book is not None:
            parts.append(book)
        session, recorder = _opened(lambda: open_game(config, game or config.game, pads=pads, journal=book,
                                                      seed=seed, started_ns=clock(), resume=resume), config)
        started = clock()
        if resume and recorder is not None and book is not None:
            started = started_at(book.game(recorder.game_no).started_ns, started)
        sources: list[Any] = [PadEventSource(pads)]
        observers: list[Any] = [LightsObserver(lights, patterns_for)]
        camera = build_camera(config, recognizer, world=world, clock=clock, controls=controls)
        pipeline = keeper = None
        if camera is not None:
            open_camera, vision = camera
            pipeline = GamePipeline(vision)
            if recorder is not None:
                keeper = EvidenceKeeper(recorder)
                observers.append(keeper)
                add_frame = keeper.add_frame
                pipeline.readers.append(lambda frame, t_ns, _events: add_frame(frame, t_ns))
            sources.append(CameraEventSource(open_camera, pipeline, frozen_after_s=config.camera.frozen_after_s))
        elif world is not None and config.camera.source == "sim":
            from .simulated import card_source
            sources.append(card_source(world, clock, seed=seed))
        parts.extend(sources)
        runtime = TableRuntime(session, sources=sources, clock=clock, announcer=announcer, observers=observers,
                               recorder=recorder, started_ns=started,
                               quick_holdback_ns=int(PAD_HOLDBACK_MS * MS) if pipeline is not None else None)
        if pipeline is not None:
            watch = pipeline
            runtime.observers.append(lambda ruling: watch(ruling, runtime.game))
        table = Table(config, clock, runtime, pads, lights, announcer, book, world=world, pipeline=pipeline,
                      keeper=keeper)
        if world is not None:
            from .bots import Bots
            world.follow(session.game, clock())
            table.bots = Bots(world, runtime, clock, seed=seed + 1, seats=max(6, config.game.players))
            runtime.observers.append(table.bots.on_ruling)
        return table
    except Exception:
        for part in parts:
            try:
                part.close()
            except Exception:
                pass
        raise


def _opened(open_it: Callable[[], tuple[Any, Any]], config: TableConfig) -> tuple[Any, Any]:
    """A game's session and recorder, or a one-line TableSetupError when the journal cannot take it
    (no unfinished game to resume, a resumed game that re-judges differently, no room on the disk)."""
    from referee.journal import JournalError
    try:
        return open_it()
    except (LookupError, JournalError) as exc:
        raise TableSetupError(f"[journal] {config.journal.path}: {exc}") from None


def config_or_none(path: str, command: str) -> TableConfig | None:
    """The table config, or None after one line on stderr saying why not (the command exits 2)."""
    from referee.config import ConfigError, load
    try:
        return load(path)
    except ConfigError as exc:
        print(f"referee {command}: {exc}", file=sys.stderr)
        return None


def load_profile(config: TableConfig, path: str) -> tuple[TableConfig, Any, dict[str, Any]]:
    """Apply a calibration profile: (the config with its measurements, the learned deck or None,
    the camera controls it locked)."""
    try:
        from pathlib import Path

        from calibration.apply import apply_profile, deck_recognizer
        from calibration.profile import load as load_profile_file
        profile = load_profile_file(path)
        controls = dict(profile.camera.controls) if profile.camera is not None else {}
        return apply_profile(config, profile), deck_recognizer(profile, Path(path).parent), controls
    except Exception as exc:
        raise TableSetupError(f"[profile] {path}: {exc}") from None


def check(config: TableConfig, *, pin_factory: Any = None) -> list[tuple[bool, str]]:
    """`referee run --check`: open each part the config names, then close it."""
    lines: list[tuple[bool, str]] = [(True, f"config {config.source}: valid ({config.game.id}, {config.game.players} players)")]
    world = clock = None
    if config.pads.backend == "bots":
        from .sim_world import SimWorld
        world, clock = SimWorld(), TableClock()
    for name, build in (("pads", lambda: build_pads(config, pin_factory=pin_factory, world=world, clock=clock)),
                        ("lights", lambda: build_lights(config, pin_factory=pin_factory)[0]),
                        ("audio", lambda: build_announcer(config))):
        try:
            part = build()
            lines.append((True, f"{name}: {part!r}"))
            getattr(part, "close", lambda: None)()
        except TableSetupError as exc:
            lines.append((False, str(exc)))
    lines.append(build_camera_check(config, world=world, clock=clock))
    if config.audio.backend == "espeak" and shutil.which("espeak-ng") is None:
        lines.append((False, "[audio] espeak-ng not found: sudo apt install espeak-ng alsa-utils"))
    return lines


def build_camera_check(config: TableConfig, *, world: Any = None, clock: TableClock | None = None) -> tuple[bool, str]:
    try:
        built = build_camera(config, world=world, clock=clock)
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

"""A whole table in simulation: bots, simulated pads (the real pad logic), the
real runtime, lights on gpiozero mock pins, voice to files, and the journal.

It runs on a virtual clock in one thread (the runtime's `step`), so whole
games finish in a fraction of a second yet go through every adapter a real
table uses, except the camera, whose card events arrive with a camera's latency.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from hardware.light_patterns import patterns_for
from hardware.lights import RgbLights
from hardware.pads_sim import SimPads
from hardware.pins import DEFAULT_LIGHT_PINS, DEFAULT_STATUS_PINS
from hardware.voice import FileAnnouncer
from referee.events import MS, Event, Flinch, Press, Slap
from referee.runtime import TableRuntime
from referee.session import Session
from referee.sim.table import GameResult, SimConfig, SimTable

from .adapters import LightsObserver


class HardwareSimTable:
    """Bots -> SimPads / camera events -> TableRuntime -> lights, voice files, journal."""

    def __init__(self, game: str, players: int, *, seed: int, folder: str | Path, pin_factory: Any,
                 journal: Any = None, options: dict[str, Any] | None = None, speak: bool = False) -> None:
        self.now = 0
        self.config = SimConfig()
        options = {"margin_wait_ms": 60, **(options or {})}   # as at the table: wait briefly to speak the margin
        holdback = int(self.config.holdback_ms * MS)
        self.recorder = None
        if journal is not None:
            from referee.journal import Recorder
            self.recorder = Recorder.start(journal, game, players, seed=seed, options=options, strict=False,
                                           holdback_ns=holdback, config={"simulated": True})
            session = self.recorder.session
        else:
            session = Session.create(game, players, seed=seed, options=options, strict=False, holdback_ns=holdback)
        self.pads = SimPads(players, debounce_ms=10.0, clock=lambda: self.now)
        self.lights = RgbLights([DEFAULT_LIGHT_PINS[s] for s in range(players)], DEFAULT_STATUS_PINS,
                                pin_factory=pin_factory)
        # speech rendering is slow; tones keep whole-game tests quick unless asked
        self.announcer = FileAnnouncer(folder, drop_counts=False,
                                       **({} if speak else {"speak_cmd": "no-such-espeak"}))
        self.journal = journal
        self.runtime = TableRuntime(session, clock=lambda: self.now, announcer=self.announcer,
                                    observers=[LightsObserver(self.lights, functools.partial(patterns_for, players=players))],
                                    recorder=self.recorder)
        self.sim = SimTable(game, players, seed=seed, session=session, config=self.config,
                            deliver=self._deliver, advance=self._advance)

    def _deliver(self, event: Event, arrival: int) -> None:
        self.now = max(self.now, arrival)
        if isinstance(event, Slap):
            self.pads.slap(event.seat, event.t_ns)
        elif isinstance(event, Press):
            self.pads.press(event.seat, event.t_ns)
        elif isinstance(event, Flinch):
            self.pads.flinch(event.seat, event.t_ns)
        else:
            self.runtime.step(event, "camera", arrival, now_ns=arrival)
            return
        for pad_event in self.pads.drain():
            self.runtime.step(pad_event.event, "pads", arrival, now_ns=arrival)

    def _advance(self, now: int) -> None:
        self.now = max(self.now, now)
        self.runtime.step(None, "", now, now_ns=now)

    def run(self) -> GameResult:
        result = self.sim.run()
        self._advance(self.now + int(self.config.holdback_ms * MS) + 1)
        self.announcer.flush(30.0)
        return result

    def close(self) -> None:
        self.lights.close()
        self.announcer.close()
        self.pads.close()

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
from referee.ports import NullLights
from referee.runtime import TableRuntime
from referee.session import Session
from referee.sim.table import GameResult, SimConfig, SimTable

from .adapters import LightsObserver


class HardwareSimTable:
    """Bots -> SimPads / camera events -> TableRuntime -> lights, voice files, journal."""

    def __init__(self, game: str, players: int, *, seed: int, folder: str | Path | None = None, pin_factory: Any = None,
                 journal: Any = None, options: dict[str, Any] | None = None, speak: bool = False,
                 announcer: Any = None, pace: Any = None, observers: Any = (), pad_factory: Any = None) -> None:
        """`pin_factory`: gpiozero factory for the LEDs (None: no LEDs). `pad_factory`: a MockFactory of
        `hardware.mock_pins.TimedMockPin` to run the real GPIO pad backend (default: SimPads)."""
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
        self.pad_pins: dict[int, Any] = {}
        if pad_factory is not None:
            from hardware.pads import GpioPads
            from hardware.pins import DEFAULT_PAD_PINS, DEFAULT_PRESS_PINS
            self.pads = GpioPads({s: DEFAULT_PAD_PINS[s] for s in range(players)},
                                 press_pins={s: DEFAULT_PRESS_PINS[s] for s in range(players)},
                                 pin_factory=pad_factory, debounce_ms=10.0, clock=lambda: self.now, watchdog_s=None)
            self.pad_pins = {("slap", s): pad_factory.pin(DEFAULT_PAD_PINS[s]) for s in range(players)}
            self.pad_pins.update({("press", s): pad_factory.pin(DEFAULT_PRESS_PINS[s]) for s in range(players)})
        else:
            self.pads = SimPads(players, debounce_ms=10.0, clock=lambda: self.now)
        self.lights: Any = NullLights()
        if pin_factory is not None:
            self.lights = RgbLights([DEFAULT_LIGHT_PINS[s] for s in range(players)], DEFAULT_STATUS_PINS,
                                    pin_factory=pin_factory)
        self._own_announcer = announcer is None
        if announcer is None:
            # speech rendering is slow; tones keep whole-game tests quick unless asked
            announcer = FileAnnouncer(folder, drop_counts=False, **({} if speak else {"speak_cmd": "no-such-espeak"}))
        self.announcer = announcer
        self.journal = journal
        self.operator_resumes = 0
        self.runtime = TableRuntime(session, clock=lambda: self.now, announcer=self.announcer,
                                    observers=[LightsObserver(self.lights, functools.partial(patterns_for, players=players)),
                                               *observers],
                                    recorder=self.recorder)
        self.sim = SimTable(game, players, seed=seed, session=session, config=self.config,
                            deliver=self._deliver, advance=self._advance, pace=pace)

    def _deliver(self, event: Event, arrival: int) -> None:
        self.now = max(self.now, arrival)
        if self.pad_pins and isinstance(event, (Slap, Press)):
            pin = self.pad_pins[("slap" if isinstance(event, Slap) else "press", event.seat)]
            pin.drive(False, event.t_ns)                        # a hand closes the switch (active low)...
            pin.drive(True, event.t_ns + 80 * MS)               # ...and lifts 80 ms later
        elif isinstance(event, Slap):
            self.pads.slap(event.seat, event.t_ns)
        elif isinstance(event, Press):
            self.pads.press(event.seat, event.t_ns)
        elif isinstance(event, Flinch):
            if self.pad_pins:                                   # switches cannot feel a hover: a flinch sensor can
                self.runtime.step(event, "flinch", arrival, now_ns=arrival)
                return
            self.pads.flinch(event.seat, event.t_ns)
        else:
            self.runtime.step(event, "camera", arrival, now_ns=arrival)
            return
        for pad_event in self.pads.drain():
            self.runtime.step(pad_event.event, "pads", arrival, now_ns=arrival)

    def _advance(self, now: int) -> None:
        self.now = max(self.now, now)
        if "operator" in self.runtime.paused:
            # the simulated operator checks the table and lets play go on
            self.operator_resumes += 1
            self.runtime.paused.discard("operator")
        self.runtime.step(None, "", now, now_ns=now)

    def run(self) -> GameResult:
        result = self.sim.run()
        self._advance(self.now + int(self.config.holdback_ms * MS) + 1)
        flush = getattr(self.announcer, "flush", None)
        if flush is not None:
            flush(30.0)
        return result

    def close(self) -> None:
        self.lights.close()
        if self._own_announcer:
            self.announcer.close()
        self.pads.close()


class VisionSimTable(HardwareSimTable):
    """As HardwareSimTable, but every card is rendered onto a simulated pile and
    named by the real vision pipeline: what the referee judges is what it saw."""

    def __init__(self, game: str, players: int, *, seed: int, on_frame: Any = None, **kwargs: Any) -> None:
        from referee.vision.pipeline import CardPipeline

        from .live_pile import LivePile
        super().__init__(game, players, seed=seed, **kwargs)
        self.pile = LivePile(seed=seed, row=game == "slapstick")
        self.pipeline = CardPipeline()
        self.on_frame = on_frame            # (frame, t_ns, events) -> None: the dashboard's camera view
        self.misread = 0
        self.unreadable = 0
        self.keeper = None
        if self.recorder is not None:
            from .evidence import EvidenceKeeper
            self.keeper = EvidenceKeeper(self.recorder)
            self.runtime.observers.append(self.keeper)
        self._camera(self.pile.frame(), 0)

    def _camera(self, frame: Any, t_ns: int) -> list[Event]:
        events = self.pipeline.feed(frame, t_ns)
        if self.keeper is not None:
            self.keeper.add_frame(frame, t_ns)
        if self.on_frame is not None:
            self.on_frame(frame, t_ns, events)
        return events

    def _deliver(self, event: Event, arrival: int) -> None:
        from referee.events import CardSeen, CardUnreadable, Play
        if not isinstance(event, Play):
            super()._deliver(event, arrival)
            return
        self.now = max(self.now, arrival)
        game = self.runtime.game
        seat = game.turn if game.turn is None else game.first_layer_from(game.turn)
        if seat is None or not game.hands[seat] or game.hands[seat][0] is None:
            super()._deliver(event, arrival)         # nothing to show: let the referee say what is wrong
            return
        truth = game.hands[seat][0]
        if not game.pile and self.pile.cards:
            self.pile.clear()                           # the pile (row) was taken since the last card
            for k in range(4):
                self._camera(self.pile.frame(), event.t_ns - (8 - k) * 33 * MS)
        seen: list[Event] = []
        for frame, t_ns in self.pile.frames_for_drop(truth, event.t_ns):
            seen += self._camera(frame, t_ns)
        cards = [e for e in seen if isinstance(e, CardSeen)]
        if not cards or any(isinstance(e, CardUnreadable) for e in seen):
            # the camera could not name it: at a real table, "please straighten the card";
            # the demo's simulated operator straightens it and the referee reads it again
            self.unreadable += 1
            cards = [CardSeen(truth, event.t_ns, 0.0)]
        for card_event in cards[-1:]:
            if card_event.card != truth:
                self.misread += 1
            self.runtime.step(card_event, "camera", arrival, now_ns=arrival)

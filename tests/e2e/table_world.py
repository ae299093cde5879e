"""Physical timelines for end-to-end tests: what the pads and the camera of a real table would feel.

Bots play a stretch of a game on the rules engine with every card known (the
simulated table of `referee.sim.table`); what they did becomes a world for the
OS-boundary fakes in tests/fakeos (see its README): cards landing on the pile,
hands reaching it, pad contacts that bounce like real switches. The rulings the
engine made from the true times are what the referee at the "real" table must
rule from what its fakes deliver.
"""
from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.events import MS, Event, Play, Press, Slap
from referee.core.rulings import Ruling
from referee.core.session import Session, build_game
from referee.sim.table import SimConfig, SimTable

#: Pad GPIO lines per seat, as in deploy/table.example.toml and hardware/pins.py.
PAD_LINES = (17, 27, 22, 23, 24, 25)
PRESS_LINES = (5, 6, 16, 26, 12, 13)
MPR121_IRQ_LINE = 4
BOARD = {"revision": "c03114", "chips": [
    {"path": "/dev/gpiochip0", "label": "pinctrl-bcm2711", "lines": 58},
    {"path": "/dev/gpiochip1", "label": "raspberrypi-exp-gpio", "lines": 8}]}


@dataclass
class ScriptedGame:
    """A stretch of play: the physical events (ns from the timeline's zero) and the rulings they call for."""

    game_id: str
    players: int
    cards: list[tuple[int, str]] = field(default_factory=list)          # (landed, card)
    contacts: list[tuple[int, int, str]] = field(default_factory=list)  # (first contact, seat, slap|press)
    rulings: list[Ruling] = field(default_factory=list)
    seconds: float = 0.0


def script_game(game_id: str, players: int, *, seed: int, seconds: float | None,
                options: dict[str, Any] | None = None) -> ScriptedGame:
    """Bots play `seconds` of table time (None: the whole game) with every card known; the plays, contacts
    and rulings, `game_over` last when the game ended."""
    script = ScriptedGame(game_id, players, seconds=seconds or 0.0)
    config = SimConfig(time_limit_s=seconds) if seconds else SimConfig()
    session = _Witness(build_game(game_id, players, seed=seed, options=options), script,
                       holdback_ns=int(config.holdback_ms * MS), strict=False)
    table = SimTable(game_id, players, seed=seed, options=options, config=config, session=session)
    table.run()
    script.rulings = [r for r in table.game.rulings if r.kind not in ("ignored", "time_up")]
    if not seconds:
        script.seconds = table.game.rulings[-1].t_ns / 1e9
    return script


class _Witness(Session):
    """A session that writes down each card as it is laid and each contact as it is judged."""

    def __init__(self, game: Any, script: ScriptedGame, **kwargs: Any) -> None:
        super().__init__(game, **kwargs)
        self.script = script

    def _handle(self, event: Event, tag: Any) -> None:
        before = self.game.cards_laid
        super()._handle(event, tag)
        if isinstance(event, Play) and self.game.cards_laid > before:
            self.script.cards.append((event.t_ns, str(self.game.pile[-1].card)))
        elif isinstance(event, (Slap, Press)):
            kind = "slap" if isinstance(event, Slap) else "press"
            self.script.contacts.append((event.t_ns, event.seat, kind))


def bounce(rng: random.Random, *, most: int = 8) -> list[float]:
    """Alternating open/closed stretches (µs) after a switch first closes or opens: real contacts chatter
    for a fraction of a millisecond to a few ms, and a first stretch shorter than the IRQ thread's
    latency makes the kernel report the first edge with the wrong direction."""
    count = rng.choice([0, 0, 2, 2, 4, 6, most])
    return [round(rng.choice([rng.uniform(5, 60), rng.uniform(60, 600)]), 1) for _ in range(count)]


def world_for(script: ScriptedGame, *, pads: str, seed: int, hands: bool = True,
              camera_faults: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The world.json for `script` on a table whose pads are `pads` (gpio | gpiod | mpr121)."""
    rng = random.Random(seed)
    world: dict[str, Any] = {"seed": seed, "board": BOARD,
                             "kernel": {"irq_thread_us": [20, 120], "lgpio_poll_us": 500, "event_fifo": 64}}
    lines: dict[str, Any] = {}
    if pads in ("gpio", "gpiod"):
        for seat in range(script.players):
            lines[f"gpiochip0:{PAD_LINES[seat]}"] = {"seat": seat, "kind": "slap", "idle": 1}
            lines[f"gpiochip0:{PRESS_LINES[seat]}"] = {"seat": seat, "kind": "press", "idle": 1}
    else:
        lines[f"gpiochip0:{MPR121_IRQ_LINE}"] = {"mpr121_irq": "1:0x5a"}
        electrodes = {str(seat): {"seat": seat, "kind": "slap"} for seat in range(script.players)}
        electrodes.update({str(6 + seat): {"seat": seat, "kind": "press"} for seat in range(script.players)})
        world["mpr121"] = {"1:0x5a": {"electrodes": electrodes}}
    world["lines"] = lines
    world["contacts"] = [{"seat": seat, "kind": kind, "t_us": t / 1000, "hold_us": rng.uniform(60_000, 140_000),
                          "bounce_us": bounce(rng) if pads != "mpr121" else [],
                          "release_bounce_us": bounce(rng) if pads != "mpr121" else []}
                         for t, seat, kind in script.contacts]
    world["cards"] = [{"t_us": t / 1000, "card": card, "x": rng.uniform(0.42, 0.58), "y": rng.uniform(0.42, 0.58),
                       "angle": rng.uniform(-25, 25)} for t, card in script.cards]
    world["hands"] = ([{"seat": seat, "t_us": t / 1000 - 40_000, "until_us": t / 1000 + 250_000,
                        "cover": rng.uniform(0.2, 0.5)} for t, seat, kind in script.contacts if kind == "slap"]
                      if hands else [])
    world["sweeps"] = sweeps(script)
    world["camera"] = {"faults": camera_faults or []}
    world["sound"] = {"cards": [{"index": 0, "id": "Headphones", "name": "bcm2835 Headphones"}],
                      "user_server": False}
    return world


def sweeps(script: ScriptedGame) -> list[dict[str, float]]:
    """The pile is taken away after each ruling that gives it to someone, before the next card lands."""
    taken = [r.t_ns for r in script.rulings if r.kind in ("wins_pile", "picks_up")]
    out = []
    for t in taken:
        later = [c for c, _card in script.cards if c > t]
        if later:
            out.append({"t_us": (t + min(300 * MS, (later[0] - t) // 2)) / 1000})
    return out


def write_world(folder: Path, world: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "world.json").write_text(json.dumps(world, indent=1))
    return folder


def start_world(folder: Path, lead_s: float = 0.5) -> int:
    """Let the world's timeline begin `lead_s` from now; returns t0 on CLOCK_MONOTONIC (ns)."""
    t0 = time.monotonic_ns() + int(lead_s * 1e9)
    tmp = folder / "t0.tmp"
    tmp.write_text(str(t0))
    tmp.rename(folder / "t0")
    return t0

"""The kiosk demo: a table whose world is simulated, run like any table.

Bots play the six games in turn in a simulated world; a rendered camera shows
the pile to the real vision pipeline, the bots' pads go through the real pad
logic, and the real runtime judges, journals, speaks and serves the dashboard.
`demo_config` turns a table config into that table (`[pads] backend = "bots"`,
`[camera] source = "rendered"`) keeping its journal, dashboard, voice and
lights; `referee demo` and a config's `[kiosk] mode = "demo"` both run it
through `tabletop.table_loop.run_table`, the same path as a real table.
"""
from __future__ import annotations

import shutil
import threading
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Callable

from referee.commands import journal as journal_cmds
from referee.config import PadsConfig, TableConfig, parse

from .kiosk import VISITOR_TIMES, HighScores  # noqa: F401  (the demo's visitors and high scores)
from .simulated import sim_latency_ms
from .table_loop import RunOptions, run_table

DEMO_KEEP_GAMES = 20          # a kiosk runs for days: its journal keeps the newest games only
HEADLESS_SPEED = 10.0         # `referee demo --headless` without --speed


def default_journal_path() -> Path:
    """The demo's journal: the default journal every `referee` command reads (`referee disputes` finds the
    demo's games without --journal); its folder is made here, where it is about to be written."""
    path = journal_cmds.default_journal_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def has_speaker() -> bool:
    """A sound card and the programs to speak on it (espeak-ng, aplay)."""
    cards = Path("/proc/asound/cards")
    has_card = cards.exists() and "no soundcards" not in cards.read_text(errors="ignore")
    return has_card and shutil.which("espeak-ng") is not None and shutil.which("aplay") is not None


def demo_config(base: TableConfig | None = None, *, players: int | None = None, vision: bool = True,
                speed: float = 1.0, journal: str | Path | None = None, host: str | None = None,
                port: int | None = None, pin: str | None = None, audio: str | None = None) -> TableConfig:
    """`base` (default: the code's defaults) as a bots table: simulated pads and a rendered camera (or, without
    `vision`, a card source naming each card), its hold-back fit for the simulated camera at `speed`; the
    journal keeps the newest games unless `base` says how many."""
    base = base or TableConfig()
    game = base.game
    if players is not None and players != game.players:
        game = replace(game, players=players, dealer=0, names=[])
    source = "rendered" if vision else "sim"
    camera = replace(base.camera, source=source, pile=[], path="", latency_ms=sim_latency_ms(source, speed))
    pads = replace(PadsConfig(), backend="bots", debounce_ms=base.pads.debounce_ms,
                   stuck_after_s=base.pads.stuck_after_s)
    book = replace(base.journal, path=str(journal) if journal else base.journal.path,
                   keep_games=base.journal.keep_games or DEMO_KEEP_GAMES)
    kiosk = replace(base.kiosk, mode="demo", speed=speed, bind=host or base.kiosk.bind,
                    port=port if port is not None else base.kiosk.port,
                    operator_pin=pin if pin is not None else base.kiosk.operator_pin)
    audio_config = replace(base.audio, backend=audio) if audio else base.audio
    lights = base.lights if len(base.lights.seats) in (0, game.players) else replace(base.lights, backend="none")
    table = replace(base, game=game, pads=pads, camera=camera, journal=book, kiosk=kiosk, audio=audio_config,
                    lights=lights)
    data = {name: asdict(getattr(table, name)) for name in ("game", "pads", "camera", "lights", "audio", "journal",
                                                            "kiosk")}
    return parse(data, source=f"{base.source} (demo)")


class DemoTable:
    """The kiosk demo as an object, for benchmarks and tests: `run()` plays until `games` are done or `stop()`.
    `on_game(n, result)` is told of each game as it ends (may be set after construction)."""

    def __init__(self, *, games: int = 0, game: str | None = None, players: int = 4, seed: int = 0,
                 speed: float | None = None, headless: bool = True, vision: bool = True,
                 journal_path: str | Path | None = None, keep_games: int = DEMO_KEEP_GAMES,
                 on_game: Callable[[int, Any], None] | None = None, base: TableConfig | None = None) -> None:
        self.speed = speed if speed is not None else (HEADLESS_SPEED if headless else 1.0)
        self.journal_path = Path(journal_path) if journal_path else default_journal_path()
        config = demo_config(base, players=players, vision=vision, speed=self.speed, journal=self.journal_path)
        self.config = replace(config, journal=replace(config.journal, keep_games=keep_games))
        self.games, self.only, self.seed, self.headless = games, game, seed, headless
        self.on_game = on_game
        self._stop = threading.Event()

    def run(self) -> int:
        opts = RunOptions(command="demo", games=self.games, rotate=self.only is None, only=self.only, seed=self.seed,
                          speed=self.speed, dashboard=not self.headless, stop=self._stop,
                          on_game=lambda n, r: self.on_game(n, r) if self.on_game is not None else None)
        return run_table(self.config, opts)

    def stop(self) -> None:
        self._stop.set()

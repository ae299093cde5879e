"""One game at a table: which game comes next, its options, and its session (journaled or not).

A table plays game after game with the same pads and camera: the configured
game each time, or (the kiosk demo) the six games in turn. Each game is set
up blind, as at a real table: the referee knows how many cards each hand
holds, never which (the camera names each card as it lands).
"""
from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any, Callable

from referee.config import GameConfig, TableConfig
from referee.core.events import MS
from referee.core.rules import GAMES, SetupError, find_game
from referee.core.session import Session, build_game

DEMO_PLAYERS = {"slapstick": 3}     # a demo game played with other than the configured seats


class GamePlan:
    """The games a table plays, in order: `next()` gives each (game config, seed).
    `rotate`: the six games in turn (the demo), else the configured game every time; `only`: this one game."""

    def __init__(self, config: TableConfig, *, rotate: bool = False, only: str | None = None, seed: int = 0) -> None:
        """Games this table's seats cannot play are left out of the turn (ValueError when none is left)."""
        self.config = config
        self.order = [only] if only else (list(GAMES) if rotate else [config.game.id])
        self.order = [g for g in self.order if self._playable(g)]
        if not self.order:
            raise ValueError(f"no game to play with {config.game.players} players")
        self.seed = seed
        self.played = 0
        self._chosen: str | None = None
        self._lock = threading.Lock()

    def choose(self, game_id: str) -> GameConfig:
        """The operator picked the next game (refused, as ValueError, when this table cannot play it)."""
        if game_id not in GAMES:
            raise ValueError(f"unknown game {game_id!r}")
        game = self.game_config(game_id)
        with self._lock:
            self._chosen = game_id
        return game

    def next(self) -> tuple[GameConfig, int]:
        with self._lock:
            game_id, self._chosen = self._chosen or self.order[self.played % len(self.order)], None
            seed = self.seed + self.played
            self.played += 1
        return self.game_config(game_id), seed

    def _playable(self, game_id: str) -> bool:
        try:
            self.game_config(game_id)
        except ValueError:
            return False
        return True

    def game_config(self, game_id: str) -> GameConfig:
        """`game_id` with this table's seats, dealer, names and the configured options it takes."""
        base = self.config.game
        if game_id == base.id:
            return base
        if game_id not in GAMES:
            raise ValueError(f"unknown game {game_id!r}")
        rules = find_game(game_id)
        players = DEMO_PLAYERS.get(game_id, base.players)
        options = {k: v for k, v in base.options.items() if k in rules.OPTIONS}
        try:
            rules.check_players(players, options)
        except SetupError as exc:
            raise ValueError(str(exc)) from None
        return replace(base, id=game_id, players=players, dealer=base.dealer if base.dealer < players else 0,
                       options=options, names=list(base.names) if len(base.names) == players else [])


def game_options(game: GameConfig, tie_us: Callable[[int], int] | None) -> dict[str, Any]:
    """The game's options, with each seat's tie margin at least what its pad can resolve."""
    options = dict(game.options)
    given = options.get("tie_us", 0)
    per_seat = list(given) if isinstance(given, list) else [given] * game.players
    if tie_us is not None:
        per_seat = [max(int(per_seat[s] if s < len(per_seat) else 0), int(tie_us(s))) for s in range(game.players)]
    options["tie_us"] = per_seat
    options.setdefault("margin_wait_ms", 60)
    return options


def open_game(config: TableConfig, game: GameConfig, *, pads: Any, journal: Any, seed: int, started_ns: int,
              resume: bool = False) -> tuple[Session, Any]:
    """(the session, its journal recorder or None) for `game`, or the last unfinished game when `resume`.
    Raises LookupError when there is nothing to resume."""
    holdback = int(config.camera.latency_ms * MS)
    if resume:
        from referee.journal import Recorder
        unfinished = [g for g in journal.games() if not g.ended] if journal is not None else []
        if not unfinished:
            raise LookupError("no unfinished game to resume")
        recorder = Recorder.resume(journal, unfinished[-1].id)
        return recorder.session, recorder
    tie_us = getattr(pads, "tie_us", None)
    options = game_options(game, tie_us if callable(tie_us) else None)
    names = game.names or None
    blind = build_game(game.id, game.players, seed=seed, dealer=game.dealer, options=options, names=names,
                       faces_known=False)
    if journal is None:
        return Session(blind, holdback_ns=holdback, strict=False), None
    from referee.journal import Recorder
    recorder = Recorder.start(journal, game.id, game.players, config=config_summary(config, game),
                              holdback_ns=holdback, strict=False, seed=seed, dealer=game.dealer, options=options,
                              names=names, hands=[list(h) for h in blind.hands], started_ns=started_ns)
    return recorder.session, recorder


def config_summary(config: TableConfig, game: GameConfig | None = None) -> dict[str, Any]:
    """The config as kept with each journaled game (with the game actually played; never the PIN)."""
    from dataclasses import asdict
    data = asdict(replace(config, game=game) if game is not None else config)
    data.pop("source", None)
    data.get("kiosk", {}).pop("operator_pin", None)
    return data


def started_at(record_started_ns: int, now_ns: int) -> int:
    """When a resumed game began on this clock (after a reboot the journal's stamp is from another boot)."""
    return record_started_ns if 0 < record_started_ns <= now_ns else now_ns

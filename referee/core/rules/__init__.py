"""The rules modules, registered by game id: a new variant is one small module."""
from __future__ import annotations

from .base import Game
from .irish_snap import IrishSnap
from .irish_snap_plus import IrishSnapPlus
from .slapjack import Slapjack, SlapjackClassic
from .slapjack_all_faces import SlapjackAllFaces
from .slapstick import Slapstick
from .state import SetupError, TableError

GAMES: dict[str, type[Game]] = {}


def register(game: type[Game]) -> type[Game]:
    """Make a rules class available by its `game_id`."""
    GAMES[game.game_id] = game
    return game


for _game in (Slapjack, SlapjackClassic, IrishSnap, IrishSnapPlus, SlapjackAllFaces, Slapstick):
    register(_game)


class UnknownGame(KeyError, ValueError):
    """A game id that no rules module answers to."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


def find_game(game_id: str) -> type[Game]:
    try:
        return GAMES[game_id]
    except KeyError:
        raise UnknownGame(f"unknown game {game_id!r} (known: {', '.join(sorted(GAMES))})") from None


__all__ = ["GAMES", "Game", "SetupError", "TableError", "UnknownGame", "find_game", "register"]

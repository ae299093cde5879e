"""The parameters of every visitor and operator action, declared once with the bounds the game allows.

The table's handlers (in `TableFeed.actions`) get only values that passed
here: seats that exist, a hand count no larger than the cards in play, a
known game, a card name; any other field is refused. Bounds are read from the
live table state at the moment of the request.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..core.cards import Card, CardError
from ..core.rules import GAMES
from .guard import HTTPProblem, show

MAX_SEATS = 20               # when no game is running: the most any game seats
MAX_CARDS = 108              # when no game is running: two decks and four Jokers

Check = Callable[[Any, Mapping[str, Any]], Any]


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def seat(value: Any, table: Mapping[str, Any]) -> int:
    """A seat index (0-based in JSON); the error names seats as people count them, from 1."""
    seats = table["seats"]
    if not _whole(value):
        raise ValueError(f"must be a seat index (0 for seat 1 to {seats - 1} for seat {seats}), not {show(value)}")
    if not 0 <= value < seats:
        raise ValueError(f"no seat {value + 1} at this table: seats 1 to {seats}")
    return int(value)


def hand_count(value: Any, table: Mapping[str, Any]) -> int:
    most = table["cards"]
    if not _whole(value) or not 0 <= value <= most:
        raise ValueError(f"must be a count from 0 to {most} (the cards in play), not {show(value)}")
    return int(value)


def game_id(value: Any, _table: Mapping[str, Any]) -> str:
    if not isinstance(value, str) or value not in GAMES:
        raise ValueError(f"must be one of {', '.join(sorted(GAMES))}, not {show(value)}")
    return value


def card_name(value: Any, _table: Mapping[str, Any]) -> str:
    if not isinstance(value, str) or len(value) > 8:
        raise ValueError(f"must be a card like \"JS\", not {show(value)}")
    try:
        return str(Card.parse(value))
    except CardError:
        raise ValueError(f"must be a card like \"JS\", not {show(value)}") from None


@dataclass(frozen=True)
class Param:
    check: Check
    required: bool = True


OPERATOR: dict[str, dict[str, Param]] = {     # action -> its parameters
    "pause": {}, "resume": {}, "new_game": {},
    "change_game": {"game": Param(game_id)},
    "correct_card": {"card": Param(card_name)},
    "set_hand": {"seat": Param(seat), "cards": Param(hand_count)},
}
VISITOR: dict[str, tuple[str, dict[str, Param]]] = {   # route -> (feed.actions key, parameters)
    "join": ("join", {"seat": Param(seat, required=False)}),
    "slap": ("visitor_slap", {"seat": Param(seat)}),
    "press": ("visitor_press", {"seat": Param(seat)}),
}


def table_bounds(snapshot: Mapping[str, Any]) -> dict[str, int]:
    """Seats and cards in play from a `TableFeed.snapshot()` (generous defaults when no game runs)."""
    players = snapshot.get("players")
    if not isinstance(players, list) or not players:
        return {"seats": MAX_SEATS, "cards": MAX_CARDS}
    cards = int(snapshot.get("pile") or 0)
    for p in players:
        cards += sum(int(p.get(k) or 0) for k in ("cards", "scoring", "penalty"))
    return {"seats": len(players), "cards": cards}


def check_params(spec: Mapping[str, Param], body: Mapping[str, Any], snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """The body's fields checked against `spec`: HTTPProblem 400 naming the first bad or unknown field.
    A null counts as absent."""
    unknown = [k for k in body if k not in spec]
    if unknown:
        raise HTTPProblem(400, f"bad request: unknown field {show(unknown[0])}")
    bounds = table_bounds(snapshot)
    out: dict[str, Any] = {}
    for name, param in spec.items():
        value = body.get(name)
        if value is None:
            if param.required:
                raise HTTPProblem(400, f"bad request: missing {name!r}")
            continue
        try:
            out[name] = param.check(value, bounds)
        except ValueError as exc:
            raise HTTPProblem(400, f"bad request: {name!r} {exc}") from None
    return out

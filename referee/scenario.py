"""Scenario files (../shared/SCENARIOS.md): load, validate, replay, check `expect`.

Every problem with a file becomes one ScenarioError line that names the file,
the event index where there is one, and what is wrong.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from .cards import Card, CardError
from .events import US, CardSeen, Event, Flinch, Play, Press, Slap, TimeUp
from .options import OptionError
from .rules import SetupError, UnknownGame
from .session import EventRejected, Session

TOP_KEYS = {"game", "options", "players", "dealer", "hands", "seed", "events", "expect",
            "description", "checks", "names", "expect_error", "expect_event"}
EVENT_KINDS = ("card", "play", "slap", "flinch", "press", "time")


class ScenarioError(ValueError):
    """A malformed scenario: `str()` is the one line the user sees."""

    def __init__(self, source: str, message: str, event: int | None = None) -> None:
        where = f"{source}: event {event}: " if event is not None else f"{source}: "
        super().__init__(where + message)
        self.source, self.message, self.event = source, message, event


@dataclass
class Scenario:
    source: str
    game: str
    players: int
    dealer: int
    options: dict[str, Any]
    hands: list[list[Card]] | None
    seed: int
    events: list[Event]
    expect: dict[str, Any] = field(default_factory=dict)
    names: list[str] | None = None


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def load(path: str | Path) -> Scenario:
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(source, f"cannot read the file: {exc.strerror if isinstance(exc, OSError) else exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(source, f"not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    return parse(data, source)


def parse(data: Any, source: str = "<scenario>") -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError(source, "a scenario must be a JSON object")
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise ScenarioError(source, f"unknown key {unknown[0]!r}")
    game = data.get("game")
    if not isinstance(game, str):
        raise ScenarioError(source, "'game' must name a game, e.g. \"slapjack\"")
    players = data.get("players")
    if not _whole(players) or players < 1:
        raise ScenarioError(source, f"'players' must be a whole number of seats, not {players!r}")
    dealer = data.get("dealer", 0)
    if not _whole(dealer) or not 0 <= dealer < players:
        raise ScenarioError(source, f"'dealer' must be a seat from 0 to {players - 1}, not {dealer!r}")
    seed = data.get("seed", 0)
    if not _whole(seed):
        raise ScenarioError(source, f"'seed' must be a whole number, not {seed!r}")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise ScenarioError(source, "'options' must be an object")
    hands = _parse_hands(data.get("hands"), source)
    events = _parse_events(data.get("events"), players, source)
    expect = data.get("expect", {})
    names = data.get("names")
    return Scenario(source, game, players, dealer, options, hands, seed, events,
                    expect if isinstance(expect, dict) else {}, names)


def _parse_hands(raw: Any, source: str) -> list[list[Card]] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(h, list) for h in raw):
        raise ScenarioError(source, "'hands' must be a list of hands, each a list of cards")
    hands = []
    for seat, hand in enumerate(raw):
        try:
            hands.append([Card.parse(c) for c in hand])
        except CardError as exc:
            raise ScenarioError(source, f"hands[{seat}]: {exc}") from None
    return hands


def _parse_events(raw: Any, players: int, source: str) -> list[Event]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ScenarioError(source, "'events' must be a list")
    return [_parse_event(item, players, source, i) for i, item in enumerate(raw)]


def _parse_event(item: Any, players: int, source: str, index: int) -> Event:
    def fail(message: str) -> ScenarioError:
        return ScenarioError(source, message, index)

    if not isinstance(item, dict):
        raise fail("an event must be an object")
    t_us = item.get("t_us")
    if "t_us" not in item:
        raise fail("missing 't_us'")
    if not _whole(t_us) or t_us < 0:
        raise fail(f"'t_us' must be a whole number of microseconds >= 0, not {t_us!r}")
    kinds = [k for k in EVENT_KINDS if k in item]
    extra = sorted(set(item) - set(EVENT_KINDS) - {"t_us", "by", "confidence"})
    if len(kinds) != 1:
        raise fail(f"an event needs exactly one of {', '.join(EVENT_KINDS)}")
    if extra:
        raise fail(f"unknown key {extra[0]!r}")
    kind, value, t_ns = kinds[0], item[kinds[0]], t_us * US

    def seat(v: Any, what: str) -> int:
        if not _whole(v) or not 0 <= v < players:
            raise fail(f"{what} {v!r} is out of range (seats 0..{players - 1})")
        return int(v)

    if kind == "card":
        try:
            card = Card.parse(value)
        except CardError as exc:
            raise fail(str(exc)) from None
        by = seat(item["by"], "seat") if item.get("by") is not None else None
        confidence = item.get("confidence", 1.0)
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
            raise fail(f"'confidence' must be a number, not {confidence!r}")
        return CardSeen(card, t_ns, float(confidence), by)
    if "by" in item:
        raise fail("'by' goes only with a 'card' event")
    if kind in ("play", "time") and value is not True:
        raise fail(f"'{kind}' must be true")
    if kind == "play":
        return Play(t_ns)
    if kind == "time":
        return TimeUp(t_ns)
    if kind == "slap":
        return Slap(seat(value, "seat"), t_ns)
    if kind == "flinch":
        return Flinch(seat(value, "seat"), t_ns)
    return Press(seat(value, "seat"), t_ns)


def replay(scenario: Scenario, *, holdback_ns: int | None = None) -> dict[str, Any]:
    """Feed the scenario's events in arrival order; return the SCENARIOS.md output object."""
    try:
        session = Session.create(scenario.game, scenario.players, hands=scenario.hands, seed=scenario.seed,
                                 dealer=scenario.dealer, options=scenario.options, names=scenario.names,
                                 holdback_ns=holdback_ns)
    except (UnknownGame, OptionError, SetupError) as exc:
        raise ScenarioError(scenario.source, str(exc)) from None
    try:
        for index, event in enumerate(scenario.events):
            session.submit(event, tag=index)
        session.finish()
    except EventRejected as exc:
        raise ScenarioError(scenario.source, exc.message, exc.tag) from None
    game = session.game
    return {"rulings": [r.to_json() for r in game.rulings], "final": game.final(),
            "warnings": list(getattr(game, "warnings", []))}


def check_expect(expect: dict[str, Any], output: dict[str, Any]) -> list[str]:
    """Differences between `expect` and a replay's output (empty: it matches)."""
    problems: list[str] = []
    rulings = output["rulings"]
    position = 0
    for want in expect.get("rulings", []):
        kind, seat = want[0], want[1]
        fields = want[2] if len(want) > 2 else {}
        while position < len(rulings) and not _matches(rulings[position], kind, seat, fields):
            position += 1
        if position == len(rulings):
            problems.append(f"expected ruling {want} not found in order")
            break
        position += 1
    for kind, seat in expect.get("absent", []):
        if any(_matches(r, kind, seat, {}) for r in rulings):
            problems.append(f"ruling {[kind, seat]} should be absent")
    for key, value in expect.items():
        if key in ("rulings", "absent"):
            continue
        if output["final"].get(key) != value:
            problems.append(f"final {key} = {output['final'].get(key)!r}, expected {value!r}")
    return problems


def _matches(ruling: dict[str, Any], kind: str, seat: int | None, fields: dict[str, Any]) -> bool:
    if ruling["kind"] != kind or (seat is not None and ruling["seat"] != seat):
        return False
    return all(ruling.get(k) == v for k, v in fields.items())

"""Scenario files (docs/scenarios.md): load, validate, replay, check `expect`.

The format is declared once, as data, in `scenario_format` (each key with one
check), and every file goes through that one layer before the rules see it.
Every problem becomes one ScenarioError line that names the file, the event
index where there is one, and what is wrong, with any echoed value cut short.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .cards import Card
from .events import US, CardSeen, Event, Flinch, Play, Press, Slap, TimeUp
from .options import OptionError
from .rules import SetupError, TableError, UnknownGame
from .scenario_format import (EVENT_KEYS, EVENT_KINDS, EXPECT_KEYS, MAX_DEPTH, MAX_EVENTS, TOP_KEYS, Bad,
                              check_object, one_line, show)
from .session import EventRejected, Session

MAX_FILE_BYTES = 16 * 1024 * 1024      # a long recorded game is ~1 MB


class ScenarioError(ValueError):
    """A malformed scenario: `str()` is the one line the user sees."""

    def __init__(self, source: str, message: str, event: int | None = None) -> None:
        where = f"{one_line(source, 300)}: " + (f"event {event}: " if event is not None else "")
        super().__init__(where + one_line(message, 400))
        self.source, self.message, self.event = source, message, event


# ---- the scenario -------------------------------------------------------------------------------
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


def _refuse_constant(name: str) -> Any:
    raise Bad(f"{name} is not a number JSON allows")


def load(path: str | Path) -> Scenario:
    """Read and validate one file (at most MAX_FILE_BYTES of UTF-8 JSON)."""
    source = str(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ScenarioError(source, f"cannot read the file: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ScenarioError(source, f"the file is over {MAX_FILE_BYTES // 2**20} MB; a scenario is at most that")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError as exc:
        raise ScenarioError(source, f"not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(source, f"not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except Bad as exc:
        raise ScenarioError(source, f"not valid JSON: {exc}") from None
    except RecursionError:
        raise ScenarioError(source, f"not valid JSON here: nested too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError:            # an integer literal over Python's 4,300-digit limit
        raise ScenarioError(source, "not valid JSON here: a number has over 4,300 digits") from None
    return parse(data, source)


def parse(data: Any, source: str = "<scenario>") -> Scenario:
    """Validate decoded JSON against the format; ScenarioError names the key or event."""
    try:
        top = check_object(data, TOP_KEYS, {}, "a scenario")
    except Bad as exc:
        raise ScenarioError(source, str(exc)) from None
    events = _parse_events(top["events"], top, source)
    return Scenario(source, top["game"], top["players"], top["dealer"], top["options"], top["hands"],
                    top["seed"], events, top["expect"], top["names"])


def _parse_events(raw: Any, top: Mapping[str, Any], source: str) -> list[Event]:
    if not isinstance(raw, list):
        raise ScenarioError(source, f"'events' must be a list, not {show(raw)}")
    if len(raw) > MAX_EVENTS:
        raise ScenarioError(source, f"'events' has {len(raw):,} events; at most {MAX_EVENTS:,}")
    out = []
    for index, item in enumerate(raw):
        try:
            out.append(_event(item, top))
        except Bad as exc:
            raise ScenarioError(source, str(exc), index) from None
    return out


def _event(item: Any, top: Mapping[str, Any]) -> Event:
    if isinstance(item, dict):
        kinds = [k for k in EVENT_KINDS if k in item]
        if len(kinds) != 1:
            raise Bad(f"an event needs exactly one of {', '.join(EVENT_KINDS)}")
        if "by" in item and kinds[0] != "card":
            raise Bad("'by' goes only with a 'card' event")
    e = check_object(item, EVENT_KEYS, {"players": top["players"]}, "an event")
    t_ns = e["t_us"] * US
    if e["card"] is not None:
        return CardSeen(e["card"], t_ns, e["confidence"], e["by"])
    if e["play"]:
        return Play(t_ns)
    if e["time"]:
        return TimeUp(t_ns)
    for name, cls in (("slap", Slap), ("flinch", Flinch), ("press", Press)):
        if e[name] is not None:
            return cls(e[name], t_ns)
    raise Bad("an event needs exactly one kind")    # unreachable: exactly one kind was found above


def replay(scenario: Scenario, *, holdback_ns: int | None = None) -> dict[str, Any]:
    """Feed the scenario's events in arrival order; return the output object of docs/scenarios.md."""
    try:
        session = Session.create(scenario.game, scenario.players, hands=scenario.hands, seed=scenario.seed,
                                 dealer=scenario.dealer, options=scenario.options, names=scenario.names,
                                 holdback_ns=holdback_ns)
    except (UnknownGame, OptionError, SetupError, TableError) as exc:
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
    """Differences between a validated `expect` and a replay's output (empty: it matches)."""
    problems: list[str] = []
    rulings = output["rulings"]
    position = 0
    for want in expect.get("rulings", []):
        kind, seat_no = want[0], want[1]
        fields = want[2] if len(want) > 2 else {}
        while position < len(rulings) and not _matches(rulings[position], kind, seat_no, fields):
            position += 1
        if position == len(rulings):
            problems.append(f"expected ruling {show(want, 120)} not found in order")
            break
        position += 1
    for kind, seat_no in expect.get("absent", []):
        if any(_matches(r, kind, seat_no, {}) for r in rulings):
            problems.append(f"ruling {show([kind, seat_no])} should be absent")
    for key, value in expect.items():
        if key in EXPECT_KEYS:
            continue
        if output["final"].get(key) != value:
            problems.append(f"final {show(key)} = {show(output['final'].get(key), 120)}, expected {show(value, 120)}")
    return problems


def _matches(ruling: dict[str, Any], kind: str, seat_no: int | None, fields: dict[str, Any]) -> bool:
    if ruling["kind"] != kind or (seat_no is not None and ruling.get("seat") != seat_no):
        return False
    return all(ruling.get(k) == v for k, v in fields.items())

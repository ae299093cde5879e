"""Scenario files (../shared/SCENARIOS.md): load, validate, replay, check `expect`.

The format is declared once, as data (`TOP_KEYS`, `EVENT_KEYS`, `EXPECT_KEYS`
below, each key with one check), and every file goes through that one layer
before the rules see it. Every problem becomes one ScenarioError line that
names the file, the event index where there is one, and what is wrong, with
any echoed value cut short.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from .cards import Card, CardError
from .events import US, CardSeen, Event, Flinch, Play, Press, Slap, TimeUp
from .options import OptionError
from .rules import SetupError, TableError, UnknownGame
from .session import EventRejected, Session

MAX_FILE_BYTES = 16 * 1024 * 1024      # a long recorded game is ~1 MB
MAX_DEPTH = 32                         # free-form values (options, expect, description)
MAX_PLAYERS = 64                       # the rules say how many each game really takes
MAX_EVENTS = 1_000_000
MAX_HAND = 1_000
MAX_T_US = (2**63 - 1) // 1000         # t_ns must still fit the journal's 64-bit integers
MAX_OPTION_NUMBER = 1e9                # any option in ms, s, µs or a count
MAX_ITEMS = 1_000                      # items in a free-form list or object
EVENT_KINDS = ("card", "play", "slap", "flinch", "press", "time")


class ScenarioError(ValueError):
    """A malformed scenario: `str()` is the one line the user sees."""

    def __init__(self, source: str, message: str, event: int | None = None) -> None:
        where = f"{one_line(source, 300)}: " + (f"event {event}: " if event is not None else "")
        super().__init__(where + one_line(message, 400))
        self.source, self.message, self.event = source, message, event


class Bad(ValueError):
    """Raised by a key's check: what is wrong, and where inside the value (`'hands'[0][2]`)."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.message, self.path = message, path

    def at(self, part: str) -> "Bad":
        """The same problem, one level further out."""
        return Bad(self.message, part + self.path)

    def __str__(self) -> str:
        if not self.path:
            return self.message
        joint = " " if self.message.split(" ", 1)[0] in ("must", "has", "gives", "holds", "is") else ": "
        return self.path + joint + self.message


def one_line(text: str, limit: int) -> str:
    """`text` with line breaks escaped, cut to `limit` characters."""
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit] + "…"


def show(value: Any, limit: int = 40) -> str:
    """A value as JSON for an error message, cut short (a 10 MB id is never echoed whole)."""
    if isinstance(value, str) and len(value) > limit:
        return f"{json.dumps(value[:limit])[:-1]}…\" ({len(value):,} characters)"
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= limit else text[:limit] + "…"


# ---- checks: each takes (value, context) and returns the value to use, or raises Bad ----------
Check = Callable[[Any, Mapping[str, Any]], Any]


def is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole(lo: int, hi: int, what: str = "a whole number") -> Check:
    def check(value: Any, _ctx: Mapping[str, Any]) -> int:
        if not is_whole(value) or not lo <= value <= hi:
            raise Bad(f"must be {what} from {lo} to {hi}, not {show(value)}")
        return int(value)
    return check


def seat(value: Any, ctx: Mapping[str, Any]) -> int:
    players = ctx["players"]
    if not is_whole(value) or not 0 <= value < players:
        raise Bad(f"must be a seat from 0 to {players - 1}, not {show(value)}")
    return int(value)


def seat_or_null(value: Any, ctx: Mapping[str, Any]) -> int | None:
    return None if value is None else seat(value, ctx)


def text(limit: int, what: str = "a string") -> Check:
    def check(value: Any, _ctx: Mapping[str, Any]) -> str:
        if not isinstance(value, str) or len(value) > limit:
            raise Bad(f"must be {what} (a string of at most {limit:,} characters), not {show(value)}")
        return value
    return check


def true_only(value: Any, _ctx: Mapping[str, Any]) -> bool:
    if value is not True:
        raise Bad(f"must be true, not {show(value)}")
    return True


def card(value: Any, _ctx: Mapping[str, Any]) -> Card:
    if not isinstance(value, str) or len(value) > 8:
        raise Bad(f"must be a card like \"JS\", not {show(value)}")
    try:
        return Card.parse(value)
    except CardError as exc:
        raise Bad(f"unknown card {show(value)}") from exc


def number(lo: float, hi: float) -> Check:
    def check(value: Any, _ctx: Mapping[str, Any]) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
            raise Bad(f"must be a number from {lo:g} to {hi:g}, not {show(value)}")
        return float(value)
    return check


def list_of(item: Check, most: int, what: str) -> Check:
    """A list of at most `most` items, each checked (its index named on failure)."""
    def check(value: Any, ctx: Mapping[str, Any]) -> list[Any]:
        if not isinstance(value, list):
            raise Bad(f"must be a list of {what}, not {show(value)}")
        if len(value) > most:
            raise Bad(f"has {len(value):,} items; at most {most:,}")
        out = []
        for i, v in enumerate(value):
            try:
                out.append(item(v, ctx))
            except Bad as exc:
                raise exc.at(f"[{i}]") from None
        return out
    return check


def free(limit_text: int = 10_000) -> Check:
    """Any JSON value, as long as it is shallow, finite and not huge (options, expect values, notes)."""
    def check(value: Any, _ctx: Mapping[str, Any]) -> Any:
        stack: list[tuple[Any, int]] = [(value, 0)]
        while stack:
            v, depth = stack.pop()
            if depth > MAX_DEPTH:
                raise Bad(f"is nested more than {MAX_DEPTH} deep")
            if isinstance(v, float) and not math.isfinite(v):
                raise Bad(f"must be finite, not {show(v)}")
            if isinstance(v, str) and len(v) > limit_text:
                raise Bad(f"holds a string of {len(v):,} characters; at most {limit_text:,}")
            if isinstance(v, (list, dict)):
                if len(v) > MAX_ITEMS:
                    raise Bad(f"holds {len(v):,} items; at most {MAX_ITEMS:,}")
                stack.extend((x, depth + 1) for x in (v.values() if isinstance(v, dict) else v))
        return value
    return check


def option_values(value: Any, ctx: Mapping[str, Any]) -> dict[str, Any]:
    """The options object: names are strings, numbers finite and at most 1e9 (the rules check the rest)."""
    if not isinstance(value, dict):
        raise Bad(f"must be an object, not {show(value)}")
    free(200)(value, ctx)
    for name, v in value.items():
        if len(name) > 40:
            raise Bad(f"unknown option {show(name)}")
        stack = [v]
        while stack:
            x = stack.pop()
            if isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) > MAX_OPTION_NUMBER:
                raise Bad(f"must be at most {MAX_OPTION_NUMBER:g}, not {show(x)}", f"[{name!r}]")
            if isinstance(x, (list, dict)):
                stack.extend(x.values() if isinstance(x, dict) else x)
    return value


def names_check(value: Any, ctx: Mapping[str, Any]) -> list[str] | None:
    if value is None:
        return None
    names = list_of(text(40, "a name"), MAX_PLAYERS, "names")(value, ctx)
    if len(names) != ctx["players"]:
        raise Bad(f"gives {len(names)} names for {ctx['players']} players")
    if any(not n.strip() or not n.isprintable() for n in names):
        raise Bad("names must be printable and not blank")
    return names


def hands_check(value: Any, ctx: Mapping[str, Any]) -> list[list[Card]] | None:
    if value is None:
        return None
    return list_of(list_of(card, MAX_HAND, "cards"), MAX_PLAYERS, "hands, each a list of cards")(value, ctx)


@dataclass(frozen=True)
class Key:
    """One key of the format: its check, and its default when absent (REQUIRED: must be given)."""

    check: Check
    default: Any = None


REQUIRED = object()


def ruling_pattern(size: tuple[int, ...]) -> Check:
    """`[kind, seat]` (and `[kind, seat, {field: value}]` when 3 is allowed) from `expect`."""
    def check(value: Any, ctx: Mapping[str, Any]) -> list[Any]:
        if not isinstance(value, list) or len(value) not in size:
            form = "[kind, seat] or [kind, seat, {field: value}]" if 3 in size else "[kind, seat]"
            raise Bad(f"must be {form}, not {show(value)}")
        text(40, "a ruling kind")(value[0], ctx)
        if value[1] is not None and not is_whole(value[1]):
            raise Bad(f"seat must be a number or null, not {show(value[1])}")
        if len(value) == 3 and not isinstance(value[2], dict):
            raise Bad(f"fields must be an object, not {show(value[2])}")
        return value
    return check


def expect_check(value: Any, ctx: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Bad(f"must be an object, not {show(value)}")
    out = dict(free()(value, ctx))
    for key, spec in EXPECT_KEYS.items():
        if key in out:
            try:
                out[key] = spec.check(out[key], ctx)
            except Bad as exc:
                raise exc.at(f"[{key!r}]") from None
    return out


TOP_KEYS: dict[str, Key] = {     # checked in this order: later checks read earlier values
    "game": Key(text(64, "a game id"), REQUIRED),
    "players": Key(whole(1, MAX_PLAYERS, "a whole number of seats"), REQUIRED),
    "dealer": Key(seat, 0),
    "seed": Key(whole(-2**63, 2**63 - 1), 0),
    "options": Key(option_values, {}),
    "hands": Key(hands_check, None),
    "names": Key(names_check, None),
    "events": Key(lambda v, ctx: v, []),           # checked one by one below, each naming its index
    "expect": Key(expect_check, {}),
    "description": Key(text(100_000)), "checks": Key(text(100_000)),
    "expect_error": Key(text(1_000)), "expect_event": Key(lambda v, ctx: v if v is None else whole(0, MAX_EVENTS)(v, ctx)),
}
EVENT_KEYS: dict[str, Key] = {
    "t_us": Key(whole(0, MAX_T_US, "a whole number of microseconds"), REQUIRED),
    "card": Key(card), "play": Key(true_only), "time": Key(true_only),
    "slap": Key(seat), "flinch": Key(seat), "press": Key(seat),
    "by": Key(seat_or_null), "confidence": Key(number(0.0, 1.0), 1.0),
}
EXPECT_KEYS: dict[str, Key] = {
    "rulings": Key(list_of(ruling_pattern((2, 3)), MAX_ITEMS, "[kind, seat] patterns"), []),
    "absent": Key(list_of(ruling_pattern((2,)), MAX_ITEMS, "[kind, seat] patterns"), []),
}


def check_object(data: Any, keys: Mapping[str, Key], ctx: dict[str, Any], what: str) -> dict[str, Any]:
    """Every key of `data` known, required ones present, each value through its check (into ctx)."""
    if not isinstance(data, dict):
        raise Bad(f"{what} must be a JSON object, not {show(data)}")
    unknown = [k for k in data if k not in keys]
    if unknown:
        raise Bad(f"unknown key {show(unknown[0])}")
    for name, key in keys.items():
        if name not in data:
            if key.default is REQUIRED:
                raise Bad(f"missing {name!r}")
            ctx[name] = key.default
            continue
        try:
            ctx[name] = key.check(data[name], ctx)
        except Bad as exc:
            raise exc.at(repr(name)) from None
    return ctx


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
    """Feed the scenario's events in arrival order; return the SCENARIOS.md output object."""
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

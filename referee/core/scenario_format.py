"""The scenario format (docs/scenarios.md), declared once: every key with the one check its value passes.

`TOP_KEYS`, `EVENT_KEYS` and `EXPECT_KEYS` list each key in order with its
check (later checks read earlier values: seats need `players`) and its default.
A check returns the value to use or raises `Bad` with what is wrong and where
inside the value (`'hands'[0][2]`); echoed values are cut short. `scenario`
turns a Bad into the one ScenarioError line naming the file and the event.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from .cards import Card, CardError

MAX_DEPTH = 32                         # free-form values (options, expect, description)
MAX_PLAYERS = 64                       # the rules say how many each game really takes
MAX_EVENTS = 1_000_000
MAX_HAND = 1_000
MAX_T_US = (2**63 - 1) // 1000         # t_ns must still fit the journal's 64-bit integers
MAX_OPTION_NUMBER = 1e9                # any option in ms, s, µs or a count
MAX_ITEMS = 1_000                      # items in a free-form list or object
EVENT_KINDS = ("card", "play", "slap", "flinch", "press", "time")



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

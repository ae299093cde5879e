"""Game options: declared per game, validated on load, unknown names refused.

A typo in an option is an error, never a silent default (a house rule that
silently does nothing is a wrong ruling waiting to happen).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from .cards import JOKER, RANK_VALUE


class OptionError(ValueError):
    """An option that does not exist for this game, or a value it cannot take."""


Check = Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class Opt:
    """One option: its default and a function that validates (and normalises) a value."""

    default: Any
    check: Check
    doc: str


def int_range(lo: int, hi: int | None = None) -> Check:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise OptionError(f"must be a whole number, not {value!r}")
        if value < lo or (hi is not None and value > hi):
            raise OptionError(f"must be between {lo} and {hi}" if hi is not None else f"must be at least {lo}")
        return value
    return check


def number_or_none(lo: float) -> Check:
    def check(value: Any) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < lo:
            raise OptionError(f"must be a number >= {lo} or null, not {value!r}")
        return value
    return check


def choice(*values: str) -> Check:
    def check(value: Any) -> str:
        if value not in values:
            raise OptionError(f"must be one of {', '.join(repr(v) for v in values)}, not {value!r}")
        return str(value)
    return check


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise OptionError(f"must be true or false, not {value!r}")
    return value


def tie_margin(value: Any) -> int | tuple[int, ...]:
    """`tie_us`: one margin for every pad, or a list with one per seat."""
    if isinstance(value, list):
        return tuple(int_range(0)(v) for v in value)
    return int_range(0)(value)


def rank_name(value: Any) -> str:
    """A called number as a rank: "J", "10", "A" (also "1", "One" and words like "Jack")."""
    if not isinstance(value, str):
        value = str(value)
    text = value.strip().upper()
    aliases = {"1": "A", "ONE": "A", "ACE": "A", "T": "10", "JACK": "J", "QUEEN": "Q", "KING": "K"}
    text = aliases.get(text, text)
    if text not in RANK_VALUE and text != JOKER:
        raise OptionError(f"{value!r} is not a rank")
    return text


def rank_set(value: Any) -> frozenset[str]:
    if not isinstance(value, list):
        raise OptionError(f"must be a list of ranks, e.g. [\"J\"], not {value!r}")
    return frozenset(rank_name(v) for v in value)


def word_map(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) and v for v in value.values()):
        raise OptionError("must map called numbers to words, e.g. {\"10\": \"cat\"}")
    return {rank_name(k): v for k, v in value.items()}


COMMON: dict[str, Opt] = {
    "slap_window_ms": Opt(2000, int_range(1), "how long a trigger stays slappable"),
    "tie": Opt("turn-order", choice("turn-order", "replay"), "what a dead heat does"),
    "tie_us": Opt(0, tie_margin, "slaps closer than this are a dead heat (one value or one per seat)"),
    "time_limit_s": Opt(None, number_or_none(0), "a time limit, signalled by a `time` event"),
    "holdback_ms": Opt(None, number_or_none(0), "how long to wait for earlier events (null: unlimited)"),
    "margin_wait_ms": Opt(0, int_range(0, 10_000), "how long a first slap waits for a runner-up before ruling (the margin is filled in later anyway)"),
}


def validate(spec: Mapping[str, Opt], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults overlaid with `given`; raise OptionError naming the first bad option."""
    if given is not None and not isinstance(given, Mapping):
        raise OptionError("options must be an object")
    out = {name: opt.default for name, opt in spec.items()}
    for name, value in (given or {}).items():
        if name not in spec:
            raise OptionError(f"unknown option {name!r} (this game takes: {', '.join(sorted(spec))})")
        try:
            out[name] = spec[name].check(value)
        except OptionError as exc:
            raise OptionError(f"option {name!r} {exc}") from None
    return out


__all__ = ["Opt", "OptionError", "COMMON", "validate", "choice", "boolean", "rank_set",
           "word_map", "int_range", "number_or_none"]

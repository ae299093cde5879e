"""Strict TOML sections for config files and profiles: a typo, a wrong type or an impossible value
is an error naming the key (`[pads] pins[1]: ...`), never a silent default.

What each key may hold is declared once, on its dataclass field (`field(metadata=spec(...))`): the
element type and shape of a list, the range of its numbers, its length. `section` applies it, so
every file read through here is checked the same way.
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar

T = TypeVar("T")

MAX_CHARS = 200                  # any text value: longer is a pasted mistake, not a name or a path


@dataclass(frozen=True)
class Spec:
    """What one key may hold. Numbers (alone or in lists) are always finite; `lo`/`hi` bound them
    inclusively (`above`: exclusively), `item` is a list's element type, `size` makes each element a
    list of that many (`[r, g, b]`), `length` the size of a non-empty list. `per_seat`, `gpio` and
    `distinct` are read by the file's own cross-key checks (config.py)."""

    lo: float | None = None
    hi: float | None = None
    above: float | None = None
    item: type | None = None
    size: int | None = None
    length: int | None = None
    max_chars: int = MAX_CHARS
    distinct: bool = False
    per_seat: bool = False
    gpio: bool = False
    means: str = ""              # what the range is ("a GPIO number on the header"), for the message


def spec(**kw: Any) -> dict[str, Spec]:
    """Field metadata declaring a key: `field(default=0, metadata=spec(lo=0, hi=27))`."""
    return {"spec": Spec(**kw)}


def spec_of(cls: type, key: str) -> Spec:
    """The declared Spec of `cls.key` (an empty one if none)."""
    for f in fields(cls):
        if f.name == key:
            return f.metadata.get("spec", Spec())    # type: ignore[no-any-return]
    raise KeyError(key)


def _type_name(t: type) -> str:
    return {int: "a whole number", float: "a number", str: "text", bool: "true or false", list: "a list",
            dict: "a table"}.get(t, t.__name__)


def typed(where: str, value: Any, default: Any, error: type[Exception], item: type | None = None) -> Any:
    """`value` checked against the type of `default` (ints become floats where a float is due)."""
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, str):
        ok = isinstance(value, str)
    elif isinstance(default, list):
        ok = isinstance(value, list)
        if ok and item is not None:
            value = [typed(f"{where}[{i}]", v, item(), error) for i, v in enumerate(value)]
    elif isinstance(default, dict):
        ok = isinstance(value, dict)
    else:
        ok = True
    if not ok:
        raise error(f"{where}: expected {_type_name(type(default))}, got {_short(value)}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def key_text(key: str) -> str:
    """A key as written, or quoted and cut short when it is not a plain word (one line, always)."""
    return key if key.replace("_", "").replace("-", "").isalnum() and len(key) <= 60 else _short(key)


def _check_number(where: str, value: float, s: Spec, error: type[Exception]) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise error(f"{where}: must be a finite number, not {value}")
    low_ok = (s.lo is None or value >= s.lo) and (s.above is None or value > s.above)
    if low_ok and (s.hi is None or value <= s.hi):
        return
    low = f"above {_num(s.above)}" if s.above is not None else (f"from {_num(s.lo)}" if s.lo is not None else "")
    high = f"to {_num(s.hi)}" if s.hi is not None else "or more"
    what = f" ({s.means})" if s.means else ""
    raise error(f"{where}: must be {low} {high}{what}, not {_short(value)}".replace("  ", " "))


def _num(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def _check_text(where: str, value: str, s: Spec, error: type[Exception]) -> None:
    if len(value) > s.max_chars:
        raise error(f"{where}: at most {s.max_chars} characters, got {len(value):,}")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise error(f"{where}: control characters are not allowed, got {_short(value)}")


def checked(where: str, value: Any, default: Any, s: Spec, error: type[Exception],
            item: type | None = None) -> Any:
    """`value` typed as `default` and within its Spec: element types and shapes, ranges, lengths."""
    item = item or s.item
    if isinstance(default, list) and s.size is not None:
        value = typed(where, value, default, error, list)
        value = [typed(f"{where}[{i}]", v, [], error, item) for i, v in enumerate(value)]
        for i, inner in enumerate(value):
            if len(inner) != s.size:
                raise error(f"{where}[{i}]: must hold {s.size} values, got {len(inner)}")
    else:
        value = typed(where, value, default, error, item)
    _within(where, value, s, error)
    if isinstance(value, list) and value:
        if s.length is not None and len(value) != s.length:
            raise error(f"{where}: must hold {s.length} values, got {len(value)}")
        flat = [v for inner in value for v in inner] if s.size is not None else value
        if s.distinct and len(set(flat)) != len(flat):
            raise error(f"{where}: each value once, got {_short(value)}")
    return value


def _within(where: str, value: Any, s: Spec, error: type[Exception]) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        _check_number(where, value, s, error)
    elif isinstance(value, str):
        _check_text(where, value, s, error)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _within(f"{where}[{i}]", v, s, error)


def section(name: str, cls: type, raw: Any, error: type[Exception],
            items: Mapping[str, type] | None = None, check: Any = None) -> Any:
    """A dataclass `cls` built from table `[name]`; unknown keys, wrong types and values outside
    their field's Spec refused. `items`: element types of list keys (or declare `item` in the Spec);
    `check(key, value)` may validate or normalise a value further."""
    if not isinstance(raw, Mapping):
        raise error(f"[{name}] must be a table")
    defaults = cls()
    specs = {f.name: f.metadata.get("spec", Spec()) for f in fields(cls)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in specs:
            raise error(f"[{name}] {key_text(key)}: unknown key (known: {', '.join(specs)})")
        value = checked(f"[{name}] {key}", value, getattr(defaults, key), specs[key], error,
                        (items or {}).get(key))
        values[key] = check(key, value) if check is not None else value
    return cls(**values)


def read(path: str | Path, error: type[Exception]) -> dict[str, Any]:
    """The file's tables, or one line saying why not."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError, ValueError) as exc:
        raise error(f"{path}: not valid TOML: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None


def load(path: str | Path, parse: Callable[[Mapping[str, Any], str], T], error: type[Exception]) -> T:
    """Read and validate a file with `parse(data, source)`; every error line starts with the path."""
    data = read(path, error)
    try:
        return parse(data, str(path))
    except error as exc:
        raise error(f"{path}: {exc}") from None

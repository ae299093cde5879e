"""Strict TOML sections for config files and profiles: a typo or a wrong type is
an error naming the key (`[pads] pins: ...`), never a silent default."""
from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar

T = TypeVar("T")


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
        raise error(f"{where}: expected {type(default).__name__}, got {value!r}")
    return value


def section(name: str, cls: type, raw: Any, error: type[Exception],
            items: Mapping[str, type] | None = None, check: Any = None) -> Any:
    """A dataclass `cls` built from table `[name]`; unknown keys and wrong types refused.
    `items`: element types of list keys; `check(key, value)` may validate or normalise a value."""
    if not isinstance(raw, Mapping):
        raise error(f"[{name}] must be a table")
    defaults = cls()
    names = [f.name for f in fields(cls)]
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in names:
            raise error(f"[{name}] {key}: unknown key (known: {', '.join(names)})")
        value = typed(f"[{name}] {key}", value, getattr(defaults, key), error, (items or {}).get(key))
        values[key] = check(key, value) if check is not None else value
    return cls(**values)


def read(path: str | Path, error: type[Exception]) -> dict[str, Any]:
    """The file's tables, or one line saying why not."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None


def load(path: str | Path, parse: Callable[[Mapping[str, Any], str], T], error: type[Exception]) -> T:
    """Read and validate a file with `parse(data, source)`; every error line starts with the path."""
    data = read(path, error)
    try:
        return parse(data, str(path))
    except error as exc:
        raise error(f"{path}: {exc}") from None

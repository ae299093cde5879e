"""A small TOML writer for calibration profiles (the standard library only reads TOML).

Handles exactly what profiles hold: nested tables of str, bool, int, float and
flat lists of those. Anything else is a programming error and raises TypeError,
so a profile can never be written in a form `tomllib` would read back differently.
"""
from __future__ import annotations

import json
import math
from typing import Any, Mapping

Scalar = str | bool | int | float


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"cannot write non-finite float {value!r} to a profile")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    raise TypeError(f"cannot write {type(value).__name__} {value!r} to a profile")


def _value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return _scalar(value)


def dumps(data: Mapping[str, Any]) -> str:
    """TOML text for `data`: plain keys first, then one [table] per nested mapping."""
    lines: list[str] = []
    _table(lines, data, ())
    return "\n".join(lines).strip() + "\n"


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


def _table(lines: list[str], data: Mapping[str, Any], path: tuple[str, ...]) -> None:
    plain = [(k, v) for k, v in data.items() if not isinstance(v, Mapping)]
    tables = [(k, v) for k, v in data.items() if isinstance(v, Mapping)]
    if path and (plain or not tables):
        lines.append("")
        lines.append("[" + ".".join(_key(p) for p in path) + "]")
    for k, v in plain:
        if v is None:
            continue  # absent, not null: TOML has no null
        lines.append(f"{_key(k)} = {_value(v)}")
    for k, v in tables:
        _table(lines, v, path + (k,))

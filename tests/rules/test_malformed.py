"""`referee replay` against malformed scenario files: every one is one line naming the file, exit 2.

`mutated_scenarios()` (a Hypothesis strategy, also the input of bench/bench_fuzz.py's campaign) starts from
real scenario files and breaks them the ways other tools and people do: wrong types, huge and non-finite
numbers, missing and unknown keys, broken events and `expect`, deep nesting, truncation, stray bytes.
The contract: exit 0/1 with JSON on stdout (the file was still valid), or exit 2 with exactly one line on
stderr that names the file; never a traceback, never exit 70 (the replay's last resort for a bug).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.commands import replay as replay_cmd
from tests.conftest import ROOT

BASES = sorted(p for p in (ROOT / "tests" / "scenarios").glob("*/*.json") if p.parent.name != "malformed")[::6]
LINE_LIMIT = 1000

nasty_numbers = st.sampled_from([-1, 0, 1, 3, 2**63, -(2**63) - 1, 10**30, 1e308, -1e308, 0.5, 1e-320, True, False])
nasty_text = st.sampled_from(["", " ", "x" * 100_000, "JS\n", "é", "\x00", "10H", "joker", "slapjack", "🂡"])
leaves = st.one_of(st.none(), nasty_numbers, nasty_text, st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                   st.text(max_size=12))
nasty_values = st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                             st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                            max_leaves=8)
TOP = ["game", "players", "dealer", "seed", "options", "hands", "names", "events", "expect", "description"]
EVENT_KEYS = ["t_us", "card", "play", "slap", "flinch", "press", "time", "by", "confidence", "bogus"]
TEXT_BREAKS = ["truncate", "garbage", "nan", "infinity", "bigint", "deep", "bom", "latin1"]


@st.composite
def mutated_scenarios(draw: st.DrawFn) -> bytes:
    """A scenario file's bytes: a real file with one to three things broken."""
    data: Any = json.loads(draw(st.sampled_from(BASES)).read_text())
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["top", "drop", "unknown", "event", "hand", "names", "expect", "options", "text"]))
        if how == "top":
            data[draw(st.sampled_from(TOP))] = draw(nasty_values)
        elif how == "drop":
            data.pop(draw(st.sampled_from(TOP)), None)
        elif how == "unknown":
            data[draw(st.text(min_size=1, max_size=8))] = 1
        elif how == "event" and isinstance(data.get("events"), list) and data["events"]:
            i = draw(st.integers(0, len(data["events"]) - 1))
            event = data["events"][i]
            if isinstance(event, dict):
                key = draw(st.sampled_from(EVENT_KEYS))
                if draw(st.booleans()):
                    event[key] = draw(nasty_values)
                else:
                    event.pop(key, None)
            else:
                data["events"][i] = draw(nasty_values)
        elif how == "hand" and isinstance(data.get("hands"), list) and data["hands"]:
            seat = draw(st.integers(0, len(data["hands"]) - 1))
            hand = data["hands"][seat]
            if isinstance(hand, list) and hand:
                hand[draw(st.integers(0, len(hand) - 1))] = draw(nasty_values)
        elif how == "names":
            data["names"] = draw(st.one_of(nasty_values, st.lists(nasty_values, max_size=5)))
        elif how == "expect":
            data["expect"] = draw(st.fixed_dictionaries({}, optional={
                "rulings": st.one_of(nasty_values, st.lists(st.lists(nasty_values, max_size=4), max_size=3)),
                "absent": st.one_of(nasty_values, st.lists(st.lists(nasty_values, max_size=3), max_size=3)),
                "hands": nasty_values}))
        elif how == "options":
            data["options"] = draw(st.one_of(nasty_values, st.dictionaries(
                st.sampled_from(["holdback_ms", "slap_window_ms", "tie_us", "time_limit_s", "tie", "jokers"]),
                nasty_values, max_size=2)))
        elif how == "text":
            return _break_text(json.dumps(data), draw(st.sampled_from(TEXT_BREAKS)), draw(st.integers(0, 10**6)))
    return json.dumps(data).encode()


def _break_text(text: str, how: str, at: int) -> bytes:
    cut = at % max(1, len(text))
    if how == "truncate":
        return text[:cut].encode()
    if how == "garbage":
        return text[:cut].encode() + bytes(range(0, 256, 7)) + text[cut:].encode()
    if how in ("nan", "infinity"):
        token = "NaN" if how == "nan" else "-Infinity"
        return text.replace('"players": ', f'"players": {token}, "x": ', 1).encode()
    if how == "bigint":
        return text.replace('"dealer": ', '"dealer": ' + "9" * 5000 + ", \"y\": ", 1).encode()
    if how == "deep":
        return (text[:-1] + ', "description": ' + "[" * 5000 + "]" * 5000 + "}").encode()
    if how == "bom":
        return b"\xef\xbb\xbf" + text.encode()
    return text.encode("utf-8").replace(b"slap", b"sl\xe4p", 1)


def replay(path: Path, check: bool = True) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `referee replay [--check] FILE`, run in this process."""
    args = argparse.Namespace(file=str(path), check=check, pretty=False, from_journal=None, journal="journal.db",
                              option=[])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = replay_cmd.run(args)
    return code, out.getvalue(), err.getvalue()


def contract(path: Path, code: int, out: str, err: str) -> str | None:
    """What breaks the contract in one `referee replay` result (None: it holds)."""
    if "Traceback" in err or code not in (0, 1, 2):
        return f"exit {code}: {err[-300:]}"
    if code == 2:
        lines = err.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith(f"referee replay: {path}") or len(lines[0]) > LINE_LIMIT:
            return f"not one short line naming the file: {err[:300]!r}"
        return None
    try:
        json.loads(out)
    except ValueError:
        return f"exit {code} without JSON on stdout: {out[:200]!r}"
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=mutated_scenarios())
def test_mutated_scenarios_keep_the_contract(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "mutated.json"
    path.write_bytes(data)
    code, out, err = replay(path)
    assert contract(path, code, out, err) is None, contract(path, code, out, err)


def base() -> dict[str, Any]:
    return json.loads((ROOT / "../shared/scenarios/slapjack-first-slap.json").read_text()) if \
        (ROOT.parent / "shared/scenarios/slapjack-first-slap.json").exists() else json.loads(BASES[0].read_text())


REPRODUCED: dict[str, tuple[Any, str]] = {     # the failures: (change, words the line must hold)
    "names-int": ({"names": 5}, "'names'"), "names-object": ({"names": {"a": 1}}, "'names'"),
    "names-nulls": ({"names": [None, None, None]}, "'names'[0]"), "names-ints": ({"names": [1, 2, 3]}, "'names'[0]"),
    "holdback-1e308": ({"options": {"holdback_ms": 1e308}}, "holdback_ms"),
    "expect-rulings-5": ({"expect": {"rulings": 5}}, "'expect'['rulings']"),
    "expect-short-pattern": ({"expect": {"rulings": [["wins_pile"]]}}, "'expect'['rulings'][0]"),
    "expect-absent": ({"expect": {"absent": [[1]]}}, "'expect'['absent'][0]"),
    "slap-true": ({"events": [{"t_us": 1, "slap": True}]}, "event 0: 'slap' must be a seat"),
    "huge-game-id": ({"game": "x" * 10_000_000}, "10,000,000 characters"),
}
TEXTUAL = {"nan": ("NaN", "NaN is not a number"), "infinity": ("Infinity", "Infinity is not a number"),
           "digits": ("9" * 4400, "4,300 digits"), "deep": ("[" * 1000 + "]" * 1000, "nested too deeply")}


@pytest.mark.parametrize("name", sorted(REPRODUCED))
def test_the_reproduced_failures_are_one_line(tmp_path: Path, name: str) -> None:
    change, words = REPRODUCED[name]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({**base(), **change}))
    code, out, err = replay(path)
    assert code == 2 and contract(path, code, out, err) is None and words in err, err[:500]


@pytest.mark.parametrize("name", sorted(TEXTUAL))
def test_non_json_numbers_and_nesting_are_one_line_from_the_real_command(tmp_path: Path, name: str) -> None:
    literal, words = TEXTUAL[name]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(base())[:-1] + f', "options": {{"holdback_ms": {literal}}}}}')
    done = subprocess.run([sys.executable, "-m", "referee", "replay", "--check", str(path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and contract(path, 2, "", done.stderr) is None and words in done.stderr, done.stderr

"""Table configs as a tester writes them wrong: every bad one is one line naming the key, and nothing changes.

`malformed_configs()` (a Hypothesis strategy, also the input of bench/bench_fuzz.py's config campaign)
starts from three working tables (simulated, GPIO pads with LEDs, MPR121 pads with LEDs) and breaks one to three
things the ways people do: wrong types, NaN, infinities, negative and huge numbers, list items of the
wrong type or shape, per-seat lists of the wrong length, a GPIO used twice or off the header,
duplicated electrodes, control characters and pasted novels, unknown keys and sections, a journal path
that is a folder, a device, garbage or unwritable, and a dashboard open to the network without a PIN.

The contract (`contract()`): a config whose breakage is known to be bad is refused, with one line that
names the broken key; nothing else ever escapes (no other exception, no traceback); and the check
creates nothing (no journal, no journal folder, no audio folder). The bulk runs in-process through
`parse` and `referee run`'s preflight; a sample runs the real `referee run --config F --check`.
"""
from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.config import ConfigError, TableConfig, parse
from tabletop.run_cmd import preflight
from tests.conftest import ROOT

NAN, INF = float("nan"), float("inf")
SIM: dict[str, dict[str, Any]] = {
    "game": {"id": "slapjack", "players": 4, "dealer": 0, "names": ["Ann", "Bo", "Cy", "Di"],
             "options": {"time_limit_s": 60}},
    "pads": {"backend": "sim", "debounce_ms": 10.0, "stuck_after_s": 3.0, "offsets_us": [0, 5, -5, 0],
             "tie_margin_us": [0, 0, 0, 0], "i2c_bus": 1, "i2c_address": 90, "irq_pin": 4, "keys": "alzmqp"},
    "camera": {"source": "sim", "device": 0, "pile": [10, 10, 200, 300], "latency_ms": 120.0, "fps": 30.0,
               "frozen_after_s": 2.0},
    "audio": {"backend": "files", "voice": "en", "volume": 80, "dir": "{tmp}/voice"},
    "journal": {"path": "{tmp}/j/journal.db", "keep_games": 0},
    "kiosk": {"mode": "table", "port": 8080, "bind": "127.0.0.1", "operator_pin": "", "speed": 1.0}}
GPIO = copy.deepcopy(SIM) | {"lights": {"backend": "gpio", "seats": [[12, 13, 19], [20, 21, 24], [25, 8, 7], [9, 10, 11]],
                                        "status": [14, 15, 18]}}
GPIO["pads"] |= {"backend": "gpio", "pins": [17, 27, 22, 23], "press_pins": [5, 6, 16, 26]}
MPR121 = copy.deepcopy(GPIO)
MPR121["pads"] |= {"backend": "mpr121", "electrodes": [0, 1, 2, 3], "irq_pin": 4, "pins": [], "press_pins": []}
BASES: dict[str, dict[str, dict[str, Any]]] = {"sim": SIM, "gpio": GPIO, "mpr121": MPR121}

WRONG = {int: ["a", 1.5, True, [1], {"a": 1}, NAN, -1, 10**30, -(10**30)],
         float: ["a", True, NAN, INF, -INF, [1.0], -1.0, 1e308, -1e-3],
         str: [5, True, [], {"a": "b"}, "x" * 5000, "en\x00", "a\nb", "\x1b[31mred"],
         list: ["a", 5, {"a": 1}, [["x"]], [NAN], [True], [10**30], [1.5], [[1, 2]]]}
PINS = {"gpio": [("pads", "pins"), ("pads", "press_pins"), ("lights", "seats"), ("lights", "status")],
        "mpr121": [("pads", "irq_pin"), ("lights", "seats"), ("lights", "status")], "sim": []}
OFF_HEADER = [28, 40, 99, -1, 255, 2**31]
JOURNALS = ["dir", "/dev/null", "garbage", "/proc/referee/j.db", "/sys/j.db", "missing/deeper/j.db", "damaged"]


@dataclass
class Case:
    """A config to try: its tables, whether it must be refused, and the keys a refusal may name (one of them:
    the keys it broke, bad for sure or not)."""

    data: dict[str, Any]
    bad: bool
    keys: list[str]
    journal: str = ""            # a journal-path breakage the test sets up on disk ("dir", "garbage", ...)

    def __repr__(self) -> str:
        return f"Case(bad={self.bad}, keys={self.keys!r}, journal={self.journal!r}, data={_short(self.data)})"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 400 else text[:400] + "..."


def _wrong_for(default: Any) -> list[Any]:
    return WRONG[bool if isinstance(default, bool) else type(default)] if type(default) in WRONG else WRONG[str]


@st.composite
def malformed_configs(draw: st.DrawFn) -> Case:
    """A working table's config with one to three things broken; `fine` (a change that keeps it valid) only alone."""
    kind = draw(st.sampled_from(sorted(BASES)))
    case = Case(copy.deepcopy(BASES[kind]), bad=False, keys=[])
    for n in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["value", "value", "pin", "clash", "clash", "seats", "unknown", "table", "options",
                                    "electrode", "journal", "bind", *(["fine"] if n == 0 else [])]))
        before = copy.deepcopy(case.data)
        try:
            bad, key = _break(draw, how, kind, case.data, case)
        except (IndexError, KeyError, TypeError, ValueError):     # an earlier breakage left nothing to break
            case.data = before
            continue
        if how == "fine":
            return case
        case.bad |= bad
        case.keys += key.split("|") if key else []    # a change not surely bad may still be what is refused
    return case


def _break(draw: st.DrawFn, how: str, kind: str, data: dict[str, Any], case: Case) -> tuple[bool, str]:
    """Break one thing in `data`; (is it surely bad, the key a refusal must name: "a|b" for either)."""
    if how == "value":
        section = draw(st.sampled_from(sorted(k for k in data if isinstance(data[k], dict))))
        key = draw(st.sampled_from(sorted(k for k in data[section] if k != "options")))
        original = BASES[kind].get(section, {}).get(key, data[section][key])   # not an earlier breakage's type
        data[section][key] = draw(st.sampled_from(_wrong_for(original)))
        return True, key
    if how == "pin" and PINS[kind]:
        section, key = draw(st.sampled_from(PINS[kind]))
        bad_pin = draw(st.sampled_from(OFF_HEADER))
        if isinstance(data[section][key], list):
            i = draw(st.integers(0, len(data[section][key]) - 1))
            if isinstance(data[section][key][i], list):
                data[section][key][i][draw(st.integers(0, 2))] = bad_pin
            else:
                data[section][key][i] = bad_pin
        else:
            data[section][key] = bad_pin
        return True, key
    if how == "clash" and PINS[kind]:
        used = [(s, k, i) for s, k in PINS[kind] for i in range(len(data[s][k]) if isinstance(data[s][k], list) else 1)]
        if kind == "gpio":
            used.append(("pads", "irq_pin", -1))
        (s1, k1, i1), (s2, k2, i2) = draw(st.permutations(used))[:2]
        if kind == "gpio" and "irq_pin" in (k1, k2):      # the MPR121's IRQ is not used by GPIO pads
            return False, f"{k1}|{k2}"
        pin = _flat(data[s1][k1])[max(i1, 0)] if isinstance(data[s1][k1], list) else data[s1][k1]
        _set_flat(data[s2], k2, i2, pin)
        return _still_clashes(data, kind), f"{k1}|{k2}"           # the refusal names where the pin is used again
    if how == "seats":
        section, key = draw(st.sampled_from([("game", "names"), ("pads", "offsets_us"), ("pads", "tie_margin_us"),
                                             *(("pads", k) for k in ("pins", "press_pins") if kind == "gpio"),
                                             *([("lights", "seats")] if kind == "gpio" else []),
                                             *([("pads", "electrodes")] if kind == "mpr121" else [])]))
        values: list[Any] = copy.deepcopy(BASES[kind][section][key])   # the base's: earlier changes must not cancel it
        data[section][key] = values[:-1] if draw(st.booleans()) else values + [copy.deepcopy(values[0])]
        return True, key
    if how == "unknown":
        if draw(st.booleans()):
            key = draw(st.sampled_from(["playrs", "pin", "lattency_ms", "Bind", "journal_path", "x" * 300]))
            data[draw(st.sampled_from(sorted(k for k in data if isinstance(data[k], dict))))][key] = 1
        else:
            key = draw(st.sampled_from(["speaker", "pad", "Game", "cameras"]))
            data[key] = {}
        return True, key[:40]
    if how == "table":
        section = draw(st.sampled_from(sorted(data)))
        data[section] = draw(st.sampled_from([5, "pads", [1, 2], True]))
        return True, section
    if how == "options":
        data["game"]["options"] = draw(st.sampled_from([
            5, "fast", [1], {"unknown": 1}, {"time_limit_s": NAN}, {"holdback_ms": INF}, {"tie_us": [1, 2]},
            {"tie_us": [0, 0, 0, 0, 0]}, {"slap_window_ms": -5}, {"tie": "coin"}, {"time_limit_s": "soon"}]))
        return True, "options"
    if how == "electrode" and kind == "mpr121":
        e = data["pads"]["electrodes"]
        if not isinstance(e, list) or len(e) < 4:
            return False, ""
        if draw(st.booleans()):
            e[draw(st.integers(1, 3))] = e[0]
        else:
            e[draw(st.integers(0, 3))] = draw(st.sampled_from([12, 13, 99, -1]))
        return True, "electrodes"
    if how == "journal":
        case.journal = draw(st.sampled_from(JOURNALS))
        return True, "[journal] path"
    if how == "bind":
        data["kiosk"]["bind"] = draw(st.sampled_from(["0.0.0.0", "::", "192.168.1.20", "", "not a host!", "a" * 300]))
        data["kiosk"]["operator_pin"] = draw(st.sampled_from(["", "1", "123"]))
        return True, "bind"
    if how == "fine":                              # a change that keeps the config valid: must not be refused
        section, key, value = draw(st.sampled_from([("audio", "volume", 0), ("camera", "fps", 0.5),
                                                    ("pads", "offsets_us", [-1000, 0, 1000, 0]),
                                                    ("kiosk", "bind", "localhost"), ("game", "dealer", 3)]))
        data[section][key] = value
        return False, ""
    return False, ""


def _flat(value: list[Any]) -> list[Any]:
    return [v for item in value for v in (item if isinstance(item, list) else [item])]


def _set_flat(section: dict[str, Any], key: str, index: int, pin: Any) -> None:
    if not isinstance(section[key], list):
        section[key] = pin
        return
    if section[key] and isinstance(section[key][0], list):
        section[key][index // 3][index % 3] = pin
    else:
        section[key][index] = pin


def _still_clashes(data: dict[str, Any], kind: str) -> bool:
    pins = [p for s, k in PINS[kind] for p in (_flat(data[s][k]) if isinstance(data[s][k], list) else [data[s][k]])
            if not (kind == "gpio" and k == "irq_pin")]
    return len(set(pins)) != len(pins)


# ---- making a case real: the files, and the contract ---------------------------------------------------------
def materialise(case: Case, tmp: Path) -> dict[str, Any]:
    """The case's tables with `{tmp}` filled in and its journal breakage set up under `tmp`."""
    text = json.dumps(case.data).replace("{tmp}", str(tmp).replace("\\", "\\\\").replace('"', '\\"'))
    data: dict[str, Any] = json.loads(text)
    (tmp / "j").mkdir(exist_ok=True)
    journal = tmp / "j" / "journal.db"
    if case.journal == "dir":
        journal = tmp / "j" / "a-folder.db"
        journal.mkdir(exist_ok=True)
    elif case.journal == "garbage":
        journal = tmp / "j" / "garbage.db"
        journal.write_bytes(b"not a journal" * 700)
    elif case.journal == "damaged":
        journal = tmp / "j" / "damaged.db"
        journal.write_bytes(b"SQLite format 3\x00" + b"\xff" * 8000)
    elif case.journal:
        journal = Path(case.journal) if case.journal.startswith("/") else tmp / case.journal
    if isinstance(data.get("journal"), dict) and case.journal:
        data["journal"]["path"] = str(journal)
    return data


def snapshot(tmp: Path) -> dict[str, tuple[int, int]]:
    """Every path under `tmp` with its size and mtime: "nothing created or changed" is an equal snapshot."""
    return {str(p): (p.stat().st_size if p.is_file() else -1, p.stat().st_mtime_ns) for p in sorted(tmp.rglob("*"))}


def contract(case: Case, tmp: Path) -> str | None:
    """In-process: `parse` and `referee run`'s preflight; None when the contract holds, else what broke."""
    data = materialise(case, tmp)
    before = snapshot(tmp)
    try:
        config = parse(data, "table.toml")
        lines = [line for ok, line in preflight(config) if not ok]
    except ConfigError as exc:
        lines = [str(exc)]
    except Exception as exc:                       # noqa: BLE001 - anything else is the failure being counted
        return f"{type(exc).__name__}: {exc}"[:300]
    if snapshot(tmp) != before:
        return f"the check changed files: {sorted(set(snapshot(tmp)) ^ set(before))}"
    if any("\n" in line for line in lines):
        return f"more than one line: {lines[0][:200]!r}"
    if case.bad and not lines:
        return f"accepted a bad config ({case.keys})"
    if case.bad and not any(key in lines[0] for key in case.keys):
        return f"refused without naming {case.keys!r}: {lines[0][:200]}"
    if not case.bad and not case.keys and lines:
        return f"refused a valid config: {lines[0][:200]}"
    if not lines and not _sound(config):
        return "accepted a config that breaks a declared rule"
    return None


def _sound(config: TableConfig) -> bool:
    """An independent look at an accepted config: finite numbers, the seats' lists, pins on the header."""
    seats = config.game.players
    values: list[Any] = []
    for part in (config.game, config.pads, config.camera, config.lights, config.audio, config.journal, config.kiosk):
        values += [v for v in vars(part).values()]
    numbers = [x for v in values for x in (_flat(v) if isinstance(v, list) else [v]) if isinstance(x, float)]
    per_seat: list[list[Any]] = [config.game.names, config.pads.offsets_us, config.pads.tie_margin_us,
                                 config.lights.seats]
    return (all(math.isfinite(x) for x in numbers) and all(len(v) in (0, seats) for v in per_seat)
            and all(0 <= p <= 27 for p in config.pads.pins + config.pads.press_pins + _flat(config.lights.seats)))


def to_toml(data: dict[str, Any]) -> str:
    """TOML for the case's tables (a section that is not a table is written as a plain key, as a person would)."""
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
        if isinstance(v, (int, str)):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
    plain = [f"{json.dumps(k)} = {value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    tables = [f"[{json.dumps(k)}]\n" + "".join(f"{json.dumps(key)} = {value(x)}\n" for key, x in v.items())
              for k, v in data.items() if isinstance(v, dict)]
    return "\n".join(plain + tables)


def check_command(case: Case, tmp: Path) -> str | None:
    """The real `referee run --config F --check` in a subprocess: exit 2 (or 0), no traceback, one line for a
    refused config, a FAIL line naming the key for a refused journal or bind, nothing created."""
    data = materialise(case, tmp)
    cfg = tmp / "table.toml"
    cfg.write_text(to_toml(data))
    before = snapshot(tmp)
    done = subprocess.run([sys.executable, "-m", "referee", "run", "--config", str(cfg), "--check"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    if "Traceback" in done.stderr + done.stdout:
        return f"traceback: {done.stderr.strip().splitlines()[-1][:200]}"
    if snapshot(tmp) != before:
        return f"--check changed files: {sorted(set(snapshot(tmp)) ^ set(before))}"
    if done.returncode not in (0, 2):
        return f"exit {done.returncode}"
    if case.bad and done.returncode != 2:
        return f"exit {done.returncode} for a bad config ({case.keys})"
    if not done.stdout.strip():                   # the config itself refused: one line on stderr
        said = done.stderr.strip().splitlines()
        if len(said) != 1:
            return f"not one line: {done.stderr[:300]!r}"
    else:                                          # the report (libraries may warn on stderr meanwhile)
        said = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
        if any(not line.startswith(("ok  ", "FAIL")) for line in done.stdout.splitlines()):
            return f"a report line that is neither ok nor FAIL: {done.stdout[:300]!r}"
    if case.bad and not any(key in line for key in case.keys for line in said):
        return f"no line names {case.keys!r}: {said[:2]}"
    return None


# ---- the tests ---------------------------------------------------------------------------------------------
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(malformed_configs())
def test_a_malformed_config_is_refused_in_one_line_naming_the_key(case: Case) -> None:
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        problem = contract(case, Path(tmp))
    assert problem is None, f"{problem}\n{case!r}"


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(malformed_configs())
def test_run_check_refuses_a_sample_as_a_subprocess(case: Case) -> None:
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        problem = check_command(case, Path(tmp))
    assert problem is None, f"{problem}\n{case!r}"


def test_the_working_bases_pass(tmp_path: Path) -> None:
    for base in BASES.values():
        assert contract(Case(copy.deepcopy(base), bad=False, keys=[]), tmp_path) is None

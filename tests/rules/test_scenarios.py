"""Every scenario file replays to its `expect`; malformed files fail with one line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core import scenario
from tests.conftest import ROOT, SHARED

OWN = ROOT / "tests" / "scenarios"
SHARED_SCENARIOS = sorted((SHARED / "scenarios").glob("*.json"))
OWN_SCENARIOS = sorted(p for p in OWN.glob("*/*.json") if p.parent.name != "malformed")
MALFORMED = sorted((OWN / "malformed").glob("*.json"))


def _replay_and_check(path: Path) -> None:
    loaded = scenario.load(path)
    output = scenario.replay(loaded)
    problems = scenario.check_expect(loaded.expect, output)
    assert not problems, f"{path.name}: {problems}\nrulings: {json.dumps(output['rulings'])[:3000]}\nfinal: {output['final']}"


@pytest.mark.skipif(not SHARED_SCENARIOS, reason="../shared/scenarios is not beside this checkout")
@pytest.mark.parametrize("path", SHARED_SCENARIOS, ids=lambda p: p.stem)
def test_shared_example_replays_exactly(path: Path) -> None:
    _replay_and_check(path)


@pytest.mark.parametrize("path", OWN_SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_replays_to_expect(path: Path) -> None:
    _replay_and_check(path)


def test_every_game_has_scenarios() -> None:
    from referee.core.rules import GAMES
    have = {p.parent.name for p in OWN_SCENARIOS}
    assert set(GAMES) <= have, f"games without scenario files: {set(GAMES) - have}"


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.stem)
def test_malformed_file_exits_2_with_one_line(path: Path) -> None:
    try:
        spec = json.loads(path.read_text())
    except json.JSONDecodeError:
        spec = {"expect_error": "json", "expect_event": None}
    done = subprocess.run([sys.executable, "-m", "referee", "replay", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    line = lines[0].lower()
    assert path.name.lower() in line
    assert "traceback" not in line
    assert spec.get("expect_error", "").lower() in line
    if spec.get("expect_event") is not None:
        assert f"event {spec['expect_event']}:" in line


def test_missing_file_is_one_line_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "referee", "replay", str(tmp_path / "nope.json")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "nope.json" in done.stderr and len(done.stderr.strip().splitlines()) == 1

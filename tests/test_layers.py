"""Dependency direction: the layers declared in pyproject.toml (`[tool.importlinter]`) hold, and loading
the rules pulls in nothing heavy at run time (what a static import graph cannot see)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

HEAVY = {"cv2", "numpy", "gpiozero", "lgpio", "gpiod", "smbus2", "picamera2", "sqlite3", "starlette", "uvicorn",
         "hardware", "tabletop", "calibration"}


def lint_imports() -> str:
    pytest.importorskip("importlinter", reason="import-linter is in the test extra; install it to check the layers")
    beside = Path(sys.executable).with_name("lint-imports")
    found = str(beside) if beside.exists() else shutil.which("lint-imports")
    if found is None:
        pytest.fail("import-linter is installed but its lint-imports command is not on the path")
    return found


def test_import_contracts_are_kept() -> None:
    done = subprocess.run([lint_imports(), "--no-cache", "--no-logo"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_loading_the_rules_pulls_in_nothing_heavy() -> None:
    code = ("import sys, referee.core.rules, referee.core.session, referee.core.scenario, referee.sim.table;"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(HEAVY)!r}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "[]"

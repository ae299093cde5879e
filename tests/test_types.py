"""The rules core type-checks (mypy): the modules every ruling passes through."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

CORE = ["referee/rules", "referee/cards.py", "referee/events.py", "referee/rulings.py", "referee/options.py",
        "referee/arbiter.py", "referee/session.py", "referee/scenario.py", "referee/runtime.py",
        "referee/live.py", "referee/config.py", "referee/sim"]


def test_core_type_checks() -> None:
    pytest.importorskip("mypy", reason="mypy is in the test extra; install it to type-check")
    done = subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-error-summary", *CORE],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]

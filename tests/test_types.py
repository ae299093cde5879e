"""Every package type-checks (mypy, configured in pyproject.toml's [tool.mypy]); the modules every ruling
passes through are checked on their own as well, so a failure there is never lost among the adapters'."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

CORE = ["referee/core", "referee/sim", "referee/table", "referee/config.py"]


def mypy(*targets: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy is in the test extra; install it to type-check")
    return subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", *targets],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)


def test_ruling_path_type_checks() -> None:
    done = mypy(*CORE)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]


def test_every_package_type_checks() -> None:
    done = mypy()                       # [tool.mypy] packages: referee, hardware, tabletop, calibration
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    by_file: dict[str, int] = {}
    for line in errors:
        by_file[line.split(":", 1)[0]] = by_file.get(line.split(":", 1)[0], 0) + 1
    summary = ", ".join(f"{path} {count}" for path, count in sorted(by_file.items()))
    assert done.returncode == 0, f"{len(errors)} errors ({summary}):\n" + "\n".join(errors)[-6000:] + done.stderr[-1000:]

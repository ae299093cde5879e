"""Dependency direction: the rules core stays portable, and `referee/` never reaches into `hardware/`."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

CORE_FORBIDDEN = {"cv2", "numpy", "gpiozero", "sqlite3", "lgpio", "gpiod", "picamera2", "hardware", "calibration"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_referee_never_imports_hardware() -> None:
    offenders = {str(p.relative_to(ROOT)): imported_roots(p) & {"hardware", "calibration"}
                 for p in (ROOT / "referee").rglob("*.py")}
    assert not {k: v for k, v in offenders.items() if v}


def test_rules_core_imports_no_opencv_gpio_or_sqlite() -> None:
    presentation = {"journal.py", "journal_cmds.py", "review.py"}   # SQLite and drawn evidence sheets
    core = [p for p in (ROOT / "referee").rglob("*.py")
            if "vision" not in p.parts and "web" not in p.parts and p.name not in presentation
            and not p.name.startswith("journal_")]
    offenders = {str(p.relative_to(ROOT)): imported_roots(p) & CORE_FORBIDDEN for p in core}
    assert not {k: v for k, v in offenders.items() if v}


def test_loading_the_rules_pulls_in_nothing_heavy() -> None:
    code = ("import sys, referee.rules, referee.session, referee.scenario, referee.sim.table;"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(CORE_FORBIDDEN)!r}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "[]"

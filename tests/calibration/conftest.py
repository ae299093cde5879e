"""Shared helpers for the calibration tests: where ../shared/data is."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("cv2", reason="calibration tests need OpenCV (pip install '.[vision]')")

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def piatnik() -> Path:
    folder = DATA / "crops-piatnik"
    if not (folder / "labels.csv").exists():
        pytest.skip(f"real photos not found at {folder} (../shared/data beside the repo)")
    return folder

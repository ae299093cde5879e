"""Shared fixtures for the vision tests: OpenCV required, real photos optional."""
from __future__ import annotations

import csv
import collections
from pathlib import Path

import pytest

pytest.importorskip("cv2", reason="vision tests need OpenCV (pip install '.[vision]')")

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def labelled(folder: str) -> dict[str, list[tuple[str, str]]]:
    """file -> [(rank, suit)] from a shared dataset, or skip when it is absent."""
    path = DATA / folder / "labels.csv"
    if not path.exists():
        pytest.skip(f"real photos not found at {path.parent} (../shared/data beside the repo)")
    out: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            out[row["file"]].append((row["rank"], row["suit"] or ""))
    return out

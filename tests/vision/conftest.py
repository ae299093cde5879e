"""Shared fixtures for the vision tests: OpenCV required, real photos optional."""
from __future__ import annotations

import csv
import collections
import random
from pathlib import Path
from typing import Sequence

import numpy as np
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


def cards_in_a_row(seed: int, cards: Sequence[str], first_x: int, step: int, width: int, turn: float) -> np.ndarray:
    """A rendered 480 px table (`seed`) with `cards` dealt in a row across its middle, each turned `turn` degrees
    more than the last."""
    from referee.core.cards import Card
    from referee.vision import render

    img = render.random_table(random.Random(seed), (480, 480))
    for k, card in enumerate(cards):
        render.composite(img, render.Placement(Card.parse(card), (first_x + step * k, 240), width, turn * k,
                                               render.STYLES["classic"]), rng=random.Random(k))
    return img

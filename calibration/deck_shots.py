"""Shots of known cards for deck calibration: from a folder of photos or a pile video.

A folder holds one card per image, named by `labels.csv` (file,rank,suit) or
by the file name's first part (`10H_03.jpg`, `QS-a.png`). A video shows the
deck dealt onto the pile one card at a time; each settled new card is cut
out (`card_crop`) and named from the given deal order (or by a person).
"""
from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path
from typing import Callable, Iterable, Sequence

import cv2
import numpy as np

from hardware.camera import IMAGE_SUFFIXES
from referee.core.cards import Card, CardError
from referee.vision.deck_store import Shot

from .card_crop import crop_card
from .motion import settled_changes

_PREFIX = re.compile(r"^([0-9]{1,2}|[AJQKTajqkt])([SHDCshdc])(?:[_\-. ]|$)|^(joker)", re.I)


def name_from_file(name: str) -> str | None:
    m = _PREFIX.match(Path(name).stem + ".")
    if not m:
        return None
    try:
        return str(Card.parse(m.group(3) or (m.group(1) + m.group(2))))
    except CardError:
        return None


def folder_shots(folder: str | Path) -> list[Shot]:
    """Every labelled card photo in `folder`, in name order."""
    folder = Path(folder)
    labels: dict[str, str] = {}
    table = folder / "labels.csv"
    if table.exists():
        with table.open(newline="") as f:
            for row in csv.DictReader(f):
                labels[row["file"]] = str(Card.parse(row["rank"] + (row.get("suit") or "")))
    shots: list[Shot] = []
    for path in sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        card = labels.get(path.name) or name_from_file(path.name)
        if card is None:
            continue
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is not None:
            shots.append(Shot(card, img, path.name))
    return shots


Namer = Callable[[int, np.ndarray], str | None]


def video_shots(frames: Iterable[tuple[np.ndarray, int]], order: Sequence[str] | None = None,
                namer: Namer | None = None, progress: Callable[[str], None] | None = None) -> list[Shot]:
    """Cut out each card dealt onto the pile; name it from `order` (deal order) or `namer`."""
    shots: list[Shot] = []
    for n, change in enumerate(settled_changes(frames)):
        crop = crop_card(change.frame, change.mask)
        if crop is None:
            if progress:
                progress(f"drop {n + 1}: no card outline found, skipped")
            continue
        k = len(shots)
        name = order[k] if order is not None and k < len(order) else (namer(k, crop) if namer else None)
        if name is None:
            continue
        shots.append(Shot(str(Card.parse(name)), crop, f"drop-{n + 1:03d}"))
        if progress:
            progress(f"drop {n + 1}: {name}")
    return shots


def split(shots: Sequence[Shot], learn_per_card: int) -> tuple[list[Shot], list[Shot]]:
    """Per card: `learn_per_card` shots (at most all but one) spread evenly through its shots (in name order)
    to learn from, the rest held out to check. Decided by position only, never by content."""
    by_card: dict[str, list[Shot]] = defaultdict(list)
    for s in shots:
        by_card[s.card].append(s)
    learn: list[Shot] = []
    check: list[Shot] = []
    for card_shots in by_card.values():
        card_shots = sorted(card_shots, key=lambda s: s.name)
        n = len(card_shots)
        k = min(learn_per_card, n - 1) if n > 1 else n   # keep one or more to check on
        picks = {round(i * n / k) for i in range(k)} if k else set()
        for i, s in enumerate(card_shots):
            (learn if i in picks else check).append(s)
    return learn, check

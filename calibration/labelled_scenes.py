"""Labelled scene folders as deck-store training data.

A scene folder holds photos of several cards each, `labels.csv`
(file,rank,suit: one row per distinct card in the image) and
`corner_boxes.csv` (file,rank,suit,x1,y1,x2,y2: a box around each visible
printed corner index, in image pixels). Every index candidate (the same
finder the deck store names with) whose centre (its rank glyph) and whose
suit glyph both lie inside one corner box is labelled with that box's card;
every other candidate is "-", including a box's rank paired with a glyph
outside the box (labelling those with the card too made the store name the
wrong suit: held-out precision 0.30 against 0.74 on scenes-bicycle). A lone
mark (a Joker's corner monogram, offered as its own rank and suit) inside a box
is that box's card. Each image is one "shot" of the deck store.
"""
from __future__ import annotations

import csv
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

import cv2
import numpy as np

from referee.core.cards import Card
from referee.vision.card_shots import relit
from referee.vision.deck_reader import NOT_INDEX
from referee.vision.deck_store import DeckStore
from referee.vision.store_rows import Labelled, candidates, labelled

from .cut_choice import CutCheck, StoreLook, apply, choose_cuts

Box = tuple[str, float, float, float, float]   # card, x1, y1, x2, y2


class SceneError(ValueError):
    """A scene folder that cannot be read as labelled scenes."""


@dataclass
class Scene:
    """One labelled photo (read from disk only when used)."""

    path: Path
    cards: list[str]
    boxes: list[Box] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.name

    def image(self) -> np.ndarray:
        img = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if img is None:
            raise SceneError(f"{self.path}: not a readable image")
        return img


def _card(row: dict[str, str], where: str) -> str:
    try:
        return str(Card.parse((row.get("rank") or "") + (row.get("suit") or "")))
    except ValueError as exc:
        raise SceneError(f"{where}: {exc}") from None


def read_scenes(folder: str | Path) -> list[Scene]:
    """Every image of `folder` named in its labels.csv, in file-name order, with its corner boxes.

    Raises `SceneError` (one line) for a missing folder or table, a table without the
    needed columns, an unreadable card or number, or a folder with no labelled image.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise SceneError(f"{folder}: no such folder")
    labels, boxes = folder / "labels.csv", folder / "corner_boxes.csv"
    for table in (labels, boxes):
        if not table.is_file():
            raise SceneError(f"{folder}: no {table.name}")
    cards: dict[str, list[str]] = defaultdict(list)
    for n, row in _rows(labels, ("file", "rank", "suit")):
        cards[row["file"]].append(_card(row, f"{labels.name} line {n}"))
    corner: dict[str, list[Box]] = defaultdict(list)
    for n, row in _rows(boxes, ("file", "rank", "suit", "x1", "y1", "x2", "y2")):
        where = f"{boxes.name} line {n}"
        try:
            x1, y1, x2, y2 = (float(row[k]) for k in ("x1", "y1", "x2", "y2"))
        except (KeyError, TypeError, ValueError):
            raise SceneError(f"{where}: x1,y1,x2,y2 must be numbers") from None
        corner[row["file"]].append((_card(row, where), min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)))
    if not cards:
        raise SceneError(f"{labels}: no labelled images")
    return [Scene(folder / name, cards[name], corner.get(name, [])) for name in sorted(cards)]


def _rows(table: Path, columns: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row) of a CSV table that has `columns`; its problems as one-line `SceneError`s."""
    try:
        with table.open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = [c for c in columns if c not in (reader.fieldnames or [])]
            if missing:
                raise SceneError(f"{table.name}: needs the columns {','.join(columns)} (missing {','.join(missing)})")
            for n, row in enumerate(reader, 2):
                if not row.get("file"):
                    raise SceneError(f"{table.name} line {n}: no file name")
                yield n, row
    except (UnicodeDecodeError, csv.Error) as exc:
        raise SceneError(f"{table.name}: not a CSV table ({type(exc).__name__})") from None


# Inner stores learned from 3/4 of the scenes read more like the final one than stores learned from half: on
# scenes-bicycle (two folds of 400 photos) 2 inner folds chose the adapted reader's cut at 0.90 / 0.98 and named
# 0.980 of all 800 (precision 1.000); 4 chose 0.90 / 0.90 and named 0.984 (0.999), learning in 130 s, not 75
INNER_FOLDS = 4


def split_by_name(scenes: Sequence[Scene]) -> tuple[list[Scene], list[Scene]]:
    """(learn, held out): in file-name order, even positions learn, odd positions are held out."""
    ordered = sorted(scenes, key=lambda s: s.name)
    return ordered[0::2], ordered[1::2]


def label_image(image: np.ndarray, boxes: Sequence[Box]) -> Labelled:
    """Embeddings of every candidate in `image`, labelled with the card whose corner box holds the
    candidate's centre and its suit glyph ("-" otherwise; the smallest box holding the centre decides)."""
    cands, x, scale, _ = candidates(image)
    by_area = sorted(boxes, key=lambda b: (b[3] - b[1]) * (b[4] - b[2]))
    names: list[str] = []
    for c in cands:
        box = next((b for b in by_area if _inside(b, c.cx / scale, c.cy / scale)), None)
        ok = box is not None and _inside(box, c.suit.cx / scale, c.suit.cy / scale)
        names.append(box[0] if ok and box is not None else NOT_INDEX)
    return labelled(cands, x, names)


def _inside(box: Box, x: float, y: float) -> bool:
    return box[1] <= x <= box[3] and box[2] <= y <= box[4]


def labelled_images(scenes: Sequence[Scene], *, augment: bool = False) -> Iterator[list[Labelled]]:
    """Per scene: its labelled candidates as taken, then (with `augment`) under two changes of light."""
    for scene in scenes:
        img = scene.image()
        yield [label_image(v, scene.boxes) for v in (relit(img) if augment else [img])]


def fit_scenes(scenes: Sequence[Scene], *, augment: bool = False, choose_cut: bool = True) -> DeckStore:
    """A deck store learned from labelled scenes (each image one shot).

    `augment` (relit copies) is off by default: on scenes-bicycle it tripled the
    store and the naming time and cost precision. With `choose_cut`, the store's
    `min_conf` is chosen on the learning scenes alone (`choose_min_conf`).
    """
    return learn_scenes(scenes, augment=augment, choose_cut=choose_cut)[0]


def learn_scenes(scenes: Sequence[Scene], *, augment: bool = False, choose_cut: bool = True,
                 progress: Callable[[str], None] | None = None) -> tuple[DeckStore, CutCheck | None]:
    """`fit_scenes`, and the check its cut-off was chosen on (None with fewer than 4 scenes). `progress`
    hears each stage (learning 400 photos takes minutes on a Pi)."""
    if not scenes:
        raise SceneError("no labelled scenes to learn from")
    say = progress or (lambda line: None)
    cards = {c for s in scenes for c in s.cards}
    say(f"reading the corners of {len(scenes)} photos and adapting the reader to them...")
    store = DeckStore.fit_labelled(labelled_images(scenes, augment=augment), cards=cards)
    check = None
    if choose_cut and len(scenes) >= 4:
        check = choose_min_conf(scenes, augment=augment, progress=say)
        apply(store, check)
    return store, check


def choose_min_conf(scenes: Sequence[Scene], *, augment: bool = False, folds: int = INNER_FOLDS,
                    progress: Callable[[str], None] | None = None) -> CutCheck:
    """The store's cut-offs (`cut_choice.choose_cuts`: its own and the stock reader's) chosen where each of
    `folds` groups of `scenes` (by name position) is named by a store learned from the others: every scene is
    checked once. Never sees held-out images."""
    ordered = sorted(scenes, key=lambda s: s.name)
    groups = [ordered[j::folds] for j in range(folds)]
    looks = []
    for j, inner_check in enumerate(groups):
        if progress:
            progress(f"choosing the cut-offs: {j + 1} of {folds} parts of the photos, named by the others...")
        inner_learn = [s for k, g in enumerate(groups) if k != j for s in g]
        store = DeckStore.fit_labelled(labelled_images(inner_learn, augment=augment))
        looks += [StoreLook.of(store, scene.image(), Counter(scene.cards)) for scene in inner_check]
    return choose_cuts(looks)

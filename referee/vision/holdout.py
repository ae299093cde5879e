"""Choose the stock reader's naming cut on some real decks and report it on another: leave one deck out.

A cut chosen on the decks a reader was built on says nothing about a deck it has never seen (photos-aristocrat:
0.987 median confidence on its wrong names at the old cut). So the cut that decides "name it" or "unreadable" is
chosen on two decks only (`choose_cut`: the lowest cut at which each of them names at `TARGET_PRECISION` or
better, and both together at `TRAIN_PRECISION`) and reported on the third, which never influences it
(`leave_one_out`). Scoring follows
../shared/tools/eval_vision.py: per image, the multiset of cards named against the multiset labelled.

The real photographs are read in place from their folder (../shared/data, never copied); `Tally`s can be
saved and reloaded so a bench can choose on reads it has already made.
"""
from __future__ import annotations

import collections
import csv
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# The cuts a deck is read at (MIN_CONFIDENCE among them); the chooser picks one of these.
CUTS: tuple[float, ...] = (0.5, 0.7, 0.8, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995, 0.998, 0.999)
# At the chosen cut each training deck must name at the precision asked of the deck left out, and the training
# decks together at a stricter one, so one unseen deck's surprise has room. Per deck alone at the stricter one
# would let a small deck's single wrong name (one in crops-piatnik's 216 is 0.995) push the cut to where an
# unseen deck names little.
TARGET_PRECISION = 0.995
TRAIN_PRECISION = 0.998
DECKS: tuple[str, ...] = ("scenes-bicycle", "crops-piatnik", "photos-aristocrat")

Label = tuple[str, str]   # (rank, suit); a Joker's suit is ""


@dataclass(frozen=True)
class Tally:
    """Cards matched, labelled and named over some images (eval_vision.py's multiset scoring)."""

    matched: int = 0
    labelled: int = 0
    named: int = 0

    @property
    def recall(self) -> float:
        return self.matched / self.labelled if self.labelled else 0.0

    @property
    def precision(self) -> float:
        """Named cards that were right; 1.0 when nothing was named (no wrong name)."""
        return self.matched / self.named if self.named else 1.0

    @property
    def wrong(self) -> int:
        return self.named - self.matched

    def __add__(self, other: "Tally") -> "Tally":
        return Tally(self.matched + other.matched, self.labelled + other.labelled, self.named + other.named)


def load_labels(folder: Path) -> dict[str, list[Label]]:
    """file -> [(rank, suit)] from a dataset folder's labels.csv (a Joker's suit read as "")."""
    out: dict[str, list[Label]] = collections.defaultdict(list)
    with open(folder / "labels.csv") as f:
        for row in csv.DictReader(f):
            out[row["file"]].append((row["rank"], "" if row["rank"] == "JOKER" else row.get("suit") or ""))
    return dict(out)


def score_image(labelled: Sequence[Label], named: Iterable[Label]) -> Tally:
    """One image's tally: cards named that were labelled, counted as multisets."""
    want = collections.Counter(labelled)
    have = collections.Counter((r, "" if r == "JOKER" else s) for r, s in named)
    return Tally(sum((want & have).values()), sum(want.values()), sum(have.values()))


# (image, cuts) -> for each cut the (rank, suit) of every card named at it
Reader = Callable[[np.ndarray, Sequence[float]], Mapping[float, Iterable[Label]]]


def stock_reader(image: np.ndarray, cuts: Sequence[float]) -> dict[float, list[Label]]:
    """The stock reader (`recognize`) at each cut, the first look read once."""
    from .recognize import recognize_at_cuts

    return {c: [(d.card.rank, d.card.suit) for d in found] for c, found in recognize_at_cuts(image, cuts).items()}


def read_deck(folder: Path, cuts: Sequence[float] = CUTS, reader: Reader = stock_reader, step: int = 1,
              files: Sequence[str] | None = None) -> dict[float, Tally]:
    """Each cut's tally over the labelled photos of `folder` (every `step`-th by sorted name, or `files`)."""
    import cv2

    truth = load_labels(folder)
    names = list(files) if files is not None else sorted(truth)[::step]
    tallies = {c: Tally() for c in cuts}
    for name in names:
        image = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        if image is None:
            raise OSError(f"{folder / name}: not a readable image")
        for cut, named in reader(image, cuts).items():
            tallies[cut] = tallies[cut] + score_image(truth[name], named)
    return tallies


def choose_cut(tallies: Mapping[str, Mapping[float, Tally]], training: Sequence[str],
               precision: float = TRAIN_PRECISION, each: float = TARGET_PRECISION) -> float:
    """The lowest cut at which every `training` deck names at `each` or better and all of them together at
    `precision`; where no cut does, the highest cut with the best worst deck. Only the `training` decks'
    tallies are read."""
    if not training:
        raise ValueError("a cut needs at least one deck to be chosen on")
    cuts = sorted(set.intersection(*(set(tallies[d]) for d in training)))
    worst = {c: min(tallies[d][c].precision for d in training) for c in cuts}
    pooled = {c: sum((tallies[d][c] for d in training), Tally()).precision for c in cuts}
    good = [c for c in cuts if worst[c] >= each and pooled[c] >= precision]
    if good:
        return good[0]
    return max(cuts, key=lambda c: (worst[c], c))


@dataclass(frozen=True)
class HeldOut:
    """One deck left out: the cut chosen on the others, and its own tally at that cut."""

    deck: str
    trained_on: tuple[str, ...]
    cut: float
    tally: Tally


def leave_one_out(tallies: Mapping[str, Mapping[float, Tally]]) -> list[HeldOut]:
    """For each deck in `tallies`: the cut chosen on all the others (`choose_cut`) and its tally there."""
    out = []
    for deck in tallies:
        others = tuple(d for d in tallies if d != deck)
        cut = choose_cut({d: tallies[d] for d in others}, others)
        out.append(HeldOut(deck, others, cut, tallies[deck][cut]))
    return out


def save_tallies(path: Path, tallies: Mapping[str, Mapping[float, Tally]]) -> None:
    """Write tallies as CSV (deck, cut, matched, labelled, named)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["deck", "cut", "matched", "labelled", "named"])
        for deck, by_cut in tallies.items():
            for cut, t in sorted(by_cut.items()):
                w.writerow([deck, cut, t.matched, t.labelled, t.named])


def load_tallies(path: Path) -> dict[str, dict[float, Tally]]:
    """Tallies written by `save_tallies`."""
    out: dict[str, dict[float, Tally]] = collections.defaultdict(dict)
    with open(path) as f:
        for row in csv.DictReader(f):
            out[row["deck"]][float(row["cut"])] = Tally(int(row["matched"]), int(row["labelled"]), int(row["named"]))
    return dict(out)

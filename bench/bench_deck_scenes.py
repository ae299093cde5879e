"""Deck calibration on real multi-card photos: ../shared/data/scenes-bicycle.

Split by file name (sorted): even positions are learned from, odd positions are
held out. A deck store is learned from the learn half (its cut-off chosen on
the learn half alone) and saved to a temporary folder outside the repository;
the held-out half (symlinks and a filtered labels.csv, also in a temporary
folder) is scored by `../shared/tools/eval_vision.py` running
`referee recognize --json --deck STORE` and, for the comparison, the stock
`referee recognize --json`, each on one core. The same is repeated on the
held-out images that show a Joker. Then the halves swap (odd positions learn)
and every photo is read by the store learned from the other half: recall and
precision on all the photographs (the stock reader's on all of them is the
vision section's, run in the same bench).

`python bench/bench_deck_scenes.py --learn OUT.npz [--fold 1]` only learns and
saves (run by `run()` in a one-core subprocess); `--cross EVEN.npz ODD.npz --
IMAGES...` reads each image with the store that did not learn it (the command
`eval_vision.py` runs for the two-fold row).
"""
from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_vision import DATA, EVAL, one_core_env, pinned, score_command, score_folder  # noqa: E402

SCENES = DATA / "scenes-bicycle"


def held_out_folder(dest: Path, names: list[str], joker_only: bool = False) -> int:
    """Symlinks to the held-out images and their labels.csv rows in `dest`; returns the image count."""
    keep = set(names)
    with (SCENES / "labels.csv").open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["file"] in keep]
    if joker_only:
        jokers = {r["file"] for r in rows if r["rank"] == "JOKER"}
        rows = [r for r in rows if r["file"] in jokers]
    dest.mkdir(parents=True)
    files = sorted({r["file"] for r in rows})
    for name in files:
        (dest / name).symlink_to((SCENES / name).resolve())
    with (dest / "labels.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["file", "rank", "suit"])
        w.writeheader()
        w.writerows({k: r[k] for k in ("file", "rank", "suit")} for r in rows)
    return len(files)


def evaluate(folder: Path, store: Path | None) -> tuple[str, str]:
    """(summary line, confusions line) for the stock reader or a deck store."""
    summary, errors = score_folder(folder, ["--deck", str(store)] if store is not None else [])
    return summary, errors.replace("most common errors: ", "")


def learn(out: Path, fold: int = 0) -> None:
    """Learn a store from the learn half (`fold` 1: the held-out half) and save it to `out`; prints what it
    learned."""
    from calibration.labelled_scenes import fit_scenes, read_scenes, split_by_name

    learn_half = split_by_name(read_scenes(SCENES))[fold]
    t = time.perf_counter()
    store = fit_scenes(learn_half)
    store.save(out)
    print(f"learned {len(learn_half)} images, {len(store.cards)} cards, {len(store.vectors)} rows "
          f"({int((store.labels != '-').sum())} index rows), d_ok {store.d_ok:.3f}, min_conf {store.min_conf:.2f}, "
          f"{'adapted' if store.reader is not None else 'stock'} reader first at "
          f"{'(left out)' if store.stock_cut is None else f'{store.stock_cut:.2f}'}, "
          f"Joker marks at {store.mark_conf or store.min_conf:.2f}, "
          f"{time.perf_counter() - t:.1f} s")


def learned_by_even_half() -> set[str]:
    """The photos the fold-0 store learns from (even positions by file name)."""
    from calibration.labelled_scenes import read_scenes, split_by_name

    return {scene.name for scene in split_by_name(read_scenes(SCENES))[0]}


def cross_read(even_store: Path, odd_store: Path, images: list[str]) -> int:
    """`referee recognize --json` lines for `images`, each read by the store that did not learn it."""
    from referee.vision.cli import main as recognize_main

    even = learned_by_even_half()
    by_odd = [im for im in images if Path(im).name in even]
    by_even = [im for im in images if Path(im).name not in even]
    codes = [recognize_main(["recognize", "--json", "--deck", str(store), *part])
             for store, part in ((odd_store, by_odd), (even_store, by_even)) if part]
    return max(codes, default=0)


def learn_fold(store: Path, fold: int) -> str:
    """Learn one fold's store in a one-core subprocess; its summary line, or raises RuntimeError."""
    done = subprocess.run(pinned([sys.executable, str(Path(__file__).resolve()), "--learn", str(store),
                                  "--fold", str(fold)]),
                          capture_output=True, text=True, cwd=ROOT, env=one_core_env())
    if done.returncode:
        raise RuntimeError(done.stderr.strip()[-300:])
    return done.stdout.strip().splitlines()[-1]


def two_fold_row(even_store: Path, odd_store: Path) -> tuple[str, str]:
    """(summary, confusions) on all the photos, each read by the store learned from the other half."""
    summary, errors = score_command(SCENES, [sys.executable, str(Path(__file__).resolve()), "--cross",
                                             str(even_store), str(odd_store), "--"])
    return summary, errors.replace("most common errors: ", "")


def run() -> list[str]:
    head = ["## Deck calibration on real multi-card photos (scenes-bicycle)", ""]
    if not EVAL.exists() or not (SCENES / "corner_boxes.csv").exists():
        return head + ["skipped: ../shared/tools/eval_vision.py or ../shared/data/scenes-bicycle is absent"]
    from calibration.labelled_scenes import read_scenes, split_by_name

    learn_half, held = split_by_name(read_scenes(SCENES))
    with tempfile.TemporaryDirectory(prefix="deck-scenes-") as tmp:
        store, odd_store = Path(tmp) / "bicycle.deck.npz", Path(tmp) / "bicycle-odd.deck.npz"
        try:
            learned, learned_odd = learn_fold(store, 0), learn_fold(odd_store, 1)
        except RuntimeError as exc:
            return head + [f"FAILED to learn: {exc}"]
        names = [s.name for s in held]
        n_all = held_out_folder(Path(tmp) / "held", names)
        n_jok = held_out_folder(Path(tmp) / "held-jokers", names, joker_only=True)
        rows, errs = [], []
        for label, folder, n in (("held-out half", "held", n_all), ("held-out images with a Joker", "held-jokers",
                                                                       n_jok)):
            for reader, path in (("stock recognizer", None), ("learned deck store", store)):
                summary, errors = evaluate(Path(tmp) / folder, path)
                rows.append(f"| {label} ({n}) | {reader} | {summary} |")
                errs.append(f"- {label} / {reader}: {errors}")
        summary, errors = two_fold_row(store, odd_store)
        rows.append(f"| all photos ({len(learn_half) + len(held)}) | learned deck store, two folds | {summary} |")
        errs.append(f"- all photos / learned deck store, two folds: {errors}")
    return head + [
        f"Split by sorted file name: {len(learn_half)} even positions learned, {len(held)} odd positions held out. "
        "The dataset pastes cut-out card photos into many scenes, so a held-out image may reuse a card "
        "cut-out seen while learning (the same deck, as at a real table, but not necessarily new photos). "
        "Two folds: the halves swap, and on all the photos each is read by the store learned from the other "
        "half; the stock reader on all the photos is the Card vision section's scenes-bicycle / index row.", "",
        f"- learning: {learned}", f"- learning the other way (odd positions): {learned_odd}", "",
        "| images | reader | eval_vision.py (one core) |", "|---|---|---|", *rows, "", "Top confusions:", "", *errs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--learn", metavar="OUT.npz", help="only learn from the learn half and save the store")
    parser.add_argument("--fold", type=int, choices=(0, 1), default=0,
                        help="with --learn: 0 learns the even positions, 1 the odd ones")
    parser.add_argument("--cross", nargs=2, metavar=("EVEN.npz", "ODD.npz"),
                        help="read the images after -- each with the store that did not learn it")
    parser.add_argument("images", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cross:
        return cross_read(Path(args.cross[0]), Path(args.cross[1]), args.images)
    if args.learn:
        learn(Path(args.learn), args.fold)
    else:
        print("\n".join(run()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

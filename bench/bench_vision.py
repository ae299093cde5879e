"""Card-vision benchmark: real photos (trained index reader vs classic baseline) and a rendered pile.

`run()` returns markdown lines. Real-photo scoring is done by the shared
`../shared/tools/eval_vision.py` (skipped with a message when absent), on one
core; the held-out section chooses the stock reader's naming cut on two real
decks and scores it on the third; the pile sequence drops a shuffled deck on
the simulated table.
"""
from __future__ import annotations

import difflib
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
EVAL = ROOT / ".." / "shared" / "tools" / "eval_vision.py"
DATA = ROOT / ".." / "shared" / "data"
DATASETS = ("scenes-bicycle", "crops-piatnik", "photos-aristocrat")
METHODS = ("index", "index-mlp", "index-cnn", "baseline")


def one_core_env() -> dict[str, str]:
    """Environment for a child that must stay on one core and import this checkout."""
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENCV_FOR_THREADS_NUM="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def pinned(cmd: list[str]) -> list[str]:
    """`cmd` pinned to core 0 when taskset is available."""
    return ["taskset", "-c", "0"] + cmd if shutil.which("taskset") else cmd


def score_folder(folder: Path, recognize_args: list[str]) -> tuple[str, str]:
    """(summary line, errors line) from eval_vision.py on a labelled folder, running
    `referee recognize --json` with `recognize_args` on one core."""
    return score_command(folder, [sys.executable, "-m", "referee.vision.cli", "recognize", "--json",
                                  *recognize_args])


def score_command(folder: Path, command: list[str]) -> tuple[str, str]:
    """(summary line, errors line) from eval_vision.py on a labelled folder, running `command` (which prints
    `referee recognize --json` lines for the image paths appended to it) on one core."""
    cmd = [sys.executable, str(EVAL), str(folder), "--", *command]
    out = subprocess.run(pinned(cmd), capture_output=True, text=True, cwd=ROOT, env=one_core_env()).stdout
    lines = out.strip().splitlines()
    summary = next((ln for ln in reversed(lines) if ln.startswith("recall=")), "no result: " + out[-200:])
    errors = next((ln for ln in lines if ln.startswith("most common errors")), "")
    return summary, errors


def eval_photos(dataset: str, method: str) -> tuple[str, str]:
    """(summary line, errors line) for one shared dataset and recognizer method."""
    return score_folder(DATA / dataset, ["--method", method])


def pile_sequence(seed: int = 7, row: bool = False, n_cards: int = 52, hands: float = 0.2) -> list[str]:
    """Drop a shuffled deck; count cards named correctly in order and the CardSeen delay."""
    from referee.core.cards import standard_deck
    from referee.core.events import CardSeen, CardUnreadable
    from referee.vision.pipeline import CardPipeline
    from referee.vision.simulate import PileSimulator

    deck = random.Random(seed).sample(standard_deck(), 52)[:n_cards]
    sim = PileSimulator(deck, seed=seed, row=row, hands=hands, size=480)
    pipe = CardPipeline()
    seen: list[tuple[CardSeen, int]] = []
    unreadable = 0
    t0 = time.perf_counter()
    frames = 0
    for frame, t_ns in sim.frames():
        frames += 1
        for e in pipe.feed(frame, t_ns):
            if isinstance(e, CardSeen):
                seen.append((e, t_ns))
            elif isinstance(e, CardUnreadable):
                unreadable += 1
    wall = time.perf_counter() - t0
    truth = {d.card: d for d in sim.drops}
    named = [e.card for e, _ in seen]
    in_order = difflib.SequenceMatcher(a=[str(c) for c in named], b=[str(c) for c in deck], autojunk=False)
    in_order = sum(b.size for b in in_order.get_matching_blocks())  # longest run-preserving match
    exact = sum(1 for e, _ in seen if e.card in truth and e.t_ns == truth[e.card].t_ns)
    delays = [(t - truth[e.card].t_ns) / 1e6 for e, t in seen if e.card in truth]
    stamp_err = [abs(e.t_ns - truth[e.card].t_ns) / 1e6 for e, _ in seen if e.card in truth]
    wrong = [str(c) for c in named if c not in truth]
    kind = "row" if row else "pile"
    return [
        f"| {kind} | {len(deck)} | {len(seen)} | {unreadable} | {in_order} | {exact} | "
        f"{max(stamp_err, default=float('nan')):.0f} | "
        f"{statistics.median(delays) if delays else float('nan'):.0f} | {max(delays, default=float('nan')):.0f} | "
        f"{len(wrong)} | {frames / wall:.0f} |"
    ]


def vision_stages() -> list[str]:
    """The stage table from bench/vision_stages.py, run pinned to one core."""
    done = subprocess.run(pinned([sys.executable, str(ROOT / "bench" / "vision_stages.py")]), capture_output=True,
                          text=True, cwd=ROOT, env=one_core_env())
    out = done.stdout.strip().splitlines()
    return out if done.returncode == 0 and out else [f"FAILED: {done.stderr.strip()[-300:]}"]


def read_tallies(decks: tuple[str, ...]) -> dict:
    """Each deck's tally at every cut of `holdout.CUTS` (tools/holdout_cuts.py, one core)."""
    from referee.vision import holdout

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "tallies.csv"
        done = subprocess.run(pinned([sys.executable, str(ROOT / "tools" / "holdout_cuts.py"), "--data", str(DATA),
                                      "--out", str(out), "--decks", *decks]),
                              capture_output=True, text=True, cwd=ROOT, env=one_core_env())
        if done.returncode or not out.exists():
            raise RuntimeError(done.stderr.strip()[-300:])
        return holdout.load_tallies(out)


def held_out_decks() -> list[str]:
    """Leave one deck out: for each real deck, the stock reader's naming cut chosen on the other two
    (`referee.vision.holdout`), then eval_vision.py on the deck left out at that cut, and the reader's ms per
    photo there against the reference shrink timed in the same process."""
    from referee.vision import holdout

    decks = tuple(d for d in holdout.DECKS if (DATA / d / "labels.csv").exists())
    lines = ["Leave one deck out: the stock reader's naming cut is chosen on two real decks and reported on the third, "
             "which never influences it (`referee/vision/holdout.py`: the lowest cut of "
             f"{', '.join(str(c) for c in holdout.CUTS)} at which each training deck names at precision "
             f"{holdout.TARGET_PRECISION} or better and the two together at {holdout.TRAIN_PRECISION}). Scored by "
             "`eval_vision.py` with `--min-confidence` at that cut; ms per photo: median of the reader on every 4th "
             "photo and of the reference (OpenCV's uint8 INTER_AREA shrink of one 720 px Bicycle photo to working "
             "size, as in the stage table), timed in turn in one process, one core.", ""]
    if len(decks) < 3:
        return lines + [f"skipped: needs all of {', '.join(holdout.DECKS)} in ../shared/data"]
    tallies = read_tallies(decks)
    lines += ["| deck left out | cut (chosen on) | eval_vision.py at that cut | reader ms/photo | reference ms | ratio |",
              "|---|---|---|---|---|---|"]
    errs = []
    for h in holdout.leave_one_out(tallies):
        summary, errors = score_folder(DATA / h.deck, ["--min-confidence", str(h.cut)])
        done = subprocess.run(pinned([sys.executable, str(ROOT / "bench" / "vision_stages.py"), str(DATA / h.deck),
                                      str(h.cut)]), capture_output=True, text=True, cwd=ROOT, env=one_core_env())
        try:
            reader_ms, ref_ms = (float(v) for v in done.stdout.split())
            timing = f"{reader_ms:.1f} | {ref_ms:.2f} | {reader_ms / ref_ms:.1f}"
        except ValueError:
            timing = f"FAILED: {done.stderr.strip()[-120:]} | | "
        lines.append(f"| {h.deck} | {h.cut} ({' + '.join(h.trained_on)}) | {summary} | {timing} |")
        errs.append(f"- {h.deck} at {h.cut}: {errors}")
    lines += ["", "Each deck's recall / precision / wrong names at every cut (in-process, the tallies the cuts were "
              "chosen from):", "", "| deck | " + " | ".join(str(c) for c in holdout.CUTS) + " |",
              "|---|" + "---|" * len(holdout.CUTS)]
    for deck, by_cut in tallies.items():
        lines.append(f"| {deck} | " + " | ".join(f"{by_cut[c].recall:.3f} / {by_cut[c].precision:.3f} / "
                                                   f"{by_cut[c].wrong}" for c in holdout.CUTS) + " |")
    return lines + ["", "Confusions at the chosen cuts:", ""] + errs


def run() -> list[str]:
    lines = ["## Card vision", ""]
    if not EVAL.exists() or not DATA.exists():
        lines.append(f"real-photo benchmark skipped: {EVAL.name} or the data folder is absent (../shared)")
    else:
        lines += ["Real photos, scored by `../shared/tools/eval_vision.py` (rank+suit multiset per image), one core:", "",
                  "| dataset | method | result |", "|---|---|---|"]
        errs = []
        for ds in DATASETS:
            for m in METHODS:
                summary, errors = eval_photos(ds, m)
                lines.append(f"| {ds} | {m} | {summary} |")
                errs.append(f"- {ds} / {m}: {errors}")
        lines += ["", "Confusions:", ""] + errs
        lines += ["", "Where the stock reader's time goes (`bench/vision_stages.py`: every 4th Bicycle photo, each stage "
                  "timed on its own, one core; the reference row, OpenCV's uint8 INTER_AREA shrink to working "
                  "size, is a fixed yardstick for comparing runs):",
                  ""] + vision_stages()
        lines += ["", "### Held-out decks", ""] + held_out_decks()
    lines += ["", "Rendered drop sequence (simulated camera 480x480 at 30 fps, some hands over the pile); "
              "delays in ms from the first frame showing a card to the frame that produced its CardSeen:", "",
              "| layout | cards | CardSeen | CardUnreadable | named in order | exact first-frame stamp | max stamp error ms | "
              "median delay ms | max delay ms | wrong cards | frames/s |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += pile_sequence()
    lines += pile_sequence(seed=8, row=True, n_cards=12, hands=0.0)
    return lines


if __name__ == "__main__":
    print("\n".join(run()))

"""Where the stock reader's time goes on real photos: median ms per stage, one core.

Every 4th image of ../shared/data/scenes-bicycle, each stage timed on its own in
one process (the images decoded first), three passes. A fixed reference is
timed beside them: OpenCV's INTER_AREA shrink of the uint8 photo to working
size, so "whole / reference" is a ratio another run on a faster
or busier machine can be compared with. `python bench/vision_stages.py` prints a markdown table (run by
bench_vision in a one-core subprocess); `python bench/vision_stages.py FOLDER CUT` prints the stock reader's
and the reference's median ms per photo of another labelled folder (its held-out deck section).
"""
from __future__ import annotations

import csv
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SCENES = ROOT / ".." / "shared" / "data" / "scenes-bicycle"
REFERENCE = "reference shrink (uint8 INTER_AREA)"
COLOUR = "of which ink colour (paper white, contrasts, red or black)"
STAGES = (REFERENCE, "prepare", "find_blobs", COLOUR, "pair_candidates", "features", "readers", "settle + claim",
          "whole recognize()")


def measure(step: int = 4, passes: int = 3) -> dict[str, float]:
    """Median ms of each stage over every `step`-th labelled image, `passes` times."""
    import cv2

    import numpy as np

    from referee.vision import ink_colour
    from referee.vision import recognize as rec
    from referee.vision.classifier import default_model
    from referee.vision.index_features import features
    from referee.vision.index_pairing import pair_candidates
    from referee.vision.ink_blobs import _glyph_parts, find_blobs
    from referee.vision.working_size import WORK_SIDE, prepare

    cv2.setNumThreads(1)
    with (SCENES / "labels.csv").open(newline="") as f:
        files = sorted({row["file"] for row in csv.DictReader(f)})[::step]
    images = [cv2.imread(str(SCENES / name), cv2.IMREAD_COLOR) for name in files]
    model = default_model()
    times: dict[str, list[float]] = {s: [] for s in STAGES}
    clock = time.perf_counter
    for _ in range(passes):
        for img in images:
            tr = clock()
            h, w = img.shape[:2]
            side = max(h, w)
            cv2.resize(img, (round(w * WORK_SIDE / side), round(h * WORK_SIDE / side)), interpolation=cv2.INTER_AREA)
            t0 = clock()
            small, scale = prepare(img)
            t1 = clock()
            frame = find_blobs(small)
            t2 = clock()
            parts = _glyph_parts(small, 7, 160)   # untimed: the colour's inputs, as find_blobs makes them
            tc = clock()
            ink_colour.balance(small, ink_colour.paper_gains(small))
            ids = np.flatnonzero(parts.ok)
            ink_colour.ink_colour(*ink_colour.ink_contrasts(small, parts.labels, ids, parts.paper, parts.ink,
                                                            parts.stats))
            times[COLOUR].append((clock() - tc) * 1000)
            t2b = clock()
            cands = pair_candidates(frame)
            t3 = clock()
            x = features(frame, cands)
            t4 = clock()
            pr, ps = model.predict(x)
            t5 = clock()
            rec.claim(frame, rec.read_rows(frame, cands, pr, ps, rec.MIN_CONFIDENCE), scale)
            t6 = clock()
            rec.recognize(img, model=model)
            t7 = clock()
            timed = [s for s in STAGES if s != COLOUR]
            for stage, a, b in zip(timed, (tr, t0, t1, t2b, t3, t4, t5, t6), (t0, t1, t2, t3, t4, t5, t6, t7)):
                times[stage].append((b - a) * 1000)
    return {s: statistics.median(v) for s, v in times.items()}


def table(ms: dict[str, float]) -> list[str]:
    ref = ms[REFERENCE]
    lines = ["| stage | median ms | / reference |", "|---|---|---|"]
    lines += [f"| {s} | {ms[s]:.2f} | {ms[s] / ref:.2f} |" for s in STAGES]
    return lines


def per_photo(folder: Path, cut: float, step: int = 4, passes: int = 3) -> tuple[float, float]:
    """(median ms of the stock reader at `cut` per photo over every `step`-th labelled image of `folder`, median ms
    of the reference: the uint8 INTER_AREA shrink of a fixed 720 x 720 photo, the first of scenes-bicycle, to
    working size, the same work whatever the deck's photo size), timed in turn, `passes` times."""
    import cv2

    from referee.vision.working_size import WORK_SIDE
    from referee.vision.recognize import recognize

    cv2.setNumThreads(1)
    with (folder / "labels.csv").open(newline="") as f:
        files = sorted({row["file"] for row in csv.DictReader(f)})[::step]
    images = [cv2.imread(str(folder / name), cv2.IMREAD_COLOR) for name in files]
    with (SCENES / "labels.csv").open(newline="") as f:
        yardstick = cv2.imread(str(SCENES / min(row["file"] for row in csv.DictReader(f))), cv2.IMREAD_COLOR)
    size = (WORK_SIDE, round(yardstick.shape[0] * WORK_SIDE / yardstick.shape[1]))
    reader, reference = [], []
    clock = time.perf_counter
    for _ in range(passes):
        for img in images:
            t0 = clock()
            cv2.resize(yardstick, size, interpolation=cv2.INTER_AREA)
            t1 = clock()
            recognize(img, min_conf=cut)
            t2 = clock()
            reference.append((t1 - t0) * 1000)
            reader.append((t2 - t1) * 1000)
    return statistics.median(reader), statistics.median(reference)


if __name__ == "__main__":
    if len(sys.argv) == 3:   # FOLDER CUT: one line "reader_ms reference_ms" (bench_vision's held-out decks)
        print("%.3f %.3f" % per_photo(Path(sys.argv[1]), float(sys.argv[2])))
    elif not (SCENES / "labels.csv").exists():
        print(f"skipped: {SCENES} is absent")
    else:
        print("\n".join(table(measure())))

#!/usr/bin/env python3
"""Read the real decks at every cut and choose each deck's cut on the others (leave one deck out).

Reads ../shared/data/<deck> in place (every --step-th photo) with the stock reader at each cut of
`referee.vision.holdout.CUTS`, writes the tallies to --out (CSV), and prints for every deck left out the
cut chosen on the other two and its recall and precision there, then each deck's whole table.

usage: nice python tools/holdout_cuts.py [--data ../shared/data] [--step 1] [--out /tmp/holdout.csv]
       [--decks scenes-bicycle crops-piatnik photos-aristocrat] [--load CSV]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.vision import holdout  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--decks", nargs="+", default=list(holdout.DECKS))
    ap.add_argument("--step", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="write the tallies here (CSV)")
    ap.add_argument("--load", type=Path, nargs="+", default=None, help="choose on tallies saved before instead")
    args = ap.parse_args()
    if args.load:
        tallies: dict[str, dict[float, holdout.Tally]] = {}
        for path in args.load:
            tallies.update(holdout.load_tallies(path))
    else:
        import cv2

        cv2.setNumThreads(1)
        tallies = {d: holdout.read_deck(args.data / d, step=args.step) for d in args.decks}
        if args.out:
            holdout.save_tallies(args.out, tallies)
    if len(tallies) > 1:
        for h in holdout.leave_one_out(tallies):
            print(f"{h.deck}: cut {h.cut} chosen on {', '.join(h.trained_on)}: recall {h.tally.recall:.3f} "
                  f"precision {h.tally.precision:.3f} ({h.tally.wrong} wrong of {h.tally.named})")
    for deck, by_cut in tallies.items():
        print(deck + ": " + "  ".join(f"{c}: {t.recall:.3f}/{t.precision:.4f}/{t.wrong}"
                                      for c, t in sorted(by_cut.items())))


if __name__ == "__main__":
    main()

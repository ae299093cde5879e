#!/usr/bin/env python3
"""Measure the limits of the shape checks (referee/vision/index_vetoes.py, rank_shapes.py, suit_shapes.py) on rendered scenes only.

For every true corner index in rendered, photo-damaged validation scenes, the
rank patch's mirror IoU and its overlap with its own suit blob (same frame,
same patch size) are collected per rank; the printed limits are the highest
value seen plus a margin, beside the share of true indices the committed limits
(index_vetoes.MIRROR_MAX / SAME_SHAPE_MAX) refuse; so is the rank's height over its
suit's (index_vetoes.RANK_OVER_SUIT_MAX, every rank but the Joker's together).
Also printed: low percentiles of the suit blob's redness on true heart and
diamond indices (a red suit must be printed in clearly red ink), and how many
true 3s and 5s pass the "5 needs its left stroke" check and how many would be
re-read as 3 if read "5" (`--ranks 3,5` deals only those), and what the counters
of true 5s, 6s and 8s say (`--ranks 5,6,8`: a 5's bowl closed by damage has a 6's counter) and how
many true 5s and 6s also have a 6's top (`rank_shapes.six_not_five`), how
many true spade and club suit blobs are shaped as a spade (a point, no gaps between lobes) or a
club (a gap each side of its top lobe), hearts and diamonds as a diamond (a point, no notch) or a
heart (two lobes, a notch), how many true 10s, Qs, 9s and 8s are shaped as a 10 (a ring with a
thin bar on its left), and how many true Js and 7s as a J (a stem and a hook, `--ranks J,7`).

usage: nice python tools/measure_shape_checks.py [--scenes 500] [--seed 31] [--margin 0.03] [--ranks 3,5]
"""
from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from referee.vision.classifier import RANK_CLASSES, SUIT_CLASSES  # noqa: E402
from referee.vision.glyph_measures import mirror_iou  # noqa: E402
from referee.vision.index_features import RANK_PATCH  # noqa: E402
from referee.vision.index_vetoes import (MIRROR_MAX, RANK_OVER_SUIT_MAX, SAME_SHAPE_MAX, rank_over_suit,
                                         same_shape_iou)  # noqa: E402
from referee.vision.rank_shapes import (fine_rank, five_is_three, has_five_stroke, jack_not_seven, six_not_five,
                                        six_or_eight, ten_shaped)  # noqa: E402
from referee.vision.suit_shapes import suit_shaped  # noqa: E402
from referee.vision.upright_patch import _patch  # noqa: E402
import train_index_classifier as T  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=500)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--margin", type=float, default=0.03)
    ap.add_argument("--ranks", default="", help="deal only these ranks, e.g. 3,5")
    args = ap.parse_args()
    if args.ranks:
        T.DECK = [c for c in T.DECK if c.rank in args.ranks.split(",")]
    cv2.setNumThreads(1)
    rng = random.Random(args.seed)
    mirror: dict[str, list[float]] = defaultdict(list)
    same: dict[str, list[float]] = defaultdict(list)
    red_suits: list[float] = []
    five_check: dict[str, list[bool]] = defaultdict(list)
    three_shape: dict[str, list[bool]] = defaultdict(list)
    counters_say: dict[str, list[str | None]] = defaultdict(list)
    six_whole: dict[str, list[bool]] = defaultdict(list)  # a 6's counter and a 6's top
    ten_shape: dict[str, list[bool]] = defaultdict(list)
    jack_shape: dict[str, list[bool]] = defaultdict(list)
    suit_shape: dict[tuple[str, str], list[bool]] = defaultdict(list)  # (true suit, shape tested)
    tall: dict[str, list[float]] = defaultdict(list)   # the rank's height over its suit's, in the index's frame
    for _ in range(args.scenes):
        img, ps, ids = T.make_scene(rng)
        frame, cands, yr, ys = T.labelled_candidates(T.degrade(img, rng, warp=False), ps, ids)
        for cand, y, s in zip(cands, yr, ys):
            if SUIT_CLASSES[s] in ("H", "D"):
                red_suits.append(cand.suit.red)
            rank = RANK_CLASSES[y]
            if rank == "-":
                continue
            for shape in ("S", "C", "H", "D"):
                suit_shape[(SUIT_CLASSES[s], shape)].append(suit_shaped(frame, cand, shape))
            p, _, _ = _patch(frame, cand.rank, cand.ux, cand.uy, RANK_PATCH)
            if rank in ("3", "5"):
                five_check[rank].append(has_five_stroke(fine_rank(frame, cand)))
                three_shape[rank].append(five_is_three(frame, cand))
            if rank in ("5", "6", "8"):
                fine = fine_rank(frame, cand)
                counters_say[rank].append(six_or_eight(fine))
                if rank != "8":
                    six_whole[rank].append(counters_say[rank][-1] == "6" and six_not_five(fine))
            if rank in ("10", "Q", "9", "8"):
                ten_shape[rank].append(ten_shaped(frame, cand))
            if rank in ("J", "7", "3"):
                jack_shape[rank].append(jack_not_seven(frame, cand))
            mirror[rank].append(mirror_iou(p))
            same[rank].append(same_shape_iou(p, frame, cand))
            tall[rank].append(rank_over_suit(cand))
    print("rank  indices  mirror-IoU limit  same-shape limit   refused by the committed limits")
    for rank in RANK_CLASSES[:-1]:
        if mirror[rank]:
            refused = np.mean([m > MIRROR_MAX.get(rank, 1.0) or s > SAME_SHAPE_MAX.get(rank, 1.0)
                               for m, s in zip(mirror[rank], same[rank])])
            print(f"{rank:5} {len(mirror[rank]):8}  {max(mirror[rank]) + args.margin:16.2f}  "
                  f"{max(same[rank]) + args.margin:16.2f}   {refused:.3f}   (p99 same {np.percentile(same[rank], 99):.2f})")
    every = np.concatenate([v for r, v in tall.items() if r != "JOKER"])
    print(f"rank height over suit height (all ranks but Joker, {len(every)} indices): p99 {np.percentile(every, 99):.2f}, "
          f"p99.9 {np.percentile(every, 99.9):.2f}, max {every.max():.2f}; limit with margin {every.max() + args.margin:.2f} "
          f"(committed {RANK_OVER_SUIT_MAX}: refuses {np.mean(every > RANK_OVER_SUIT_MAX):.4f})")
    if red_suits:
        lows = np.percentile(red_suits, [0.5, 1, 2, 5]).round(1)
        print(f"red suit blobs: {len(red_suits)}, redness percentiles 0.5/1/2/5: {lows.tolist()}")
    for rank in ("5", "3"):
        if five_check[rank]:
            print(f"true {rank}s passing the '5' left-stroke check: {np.mean(five_check[rank]):.3f}, "
                  f"shaped as a 3 read '5': {np.mean(three_shape[rank]):.3f} of {len(five_check[rank])} candidates")

    for rank in ("5", "6", "8"):
        if counters_say[rank]:
            says = counters_say[rank]
            print(f"true {rank}s whose counters say 6: {says.count('6') / len(says):.3f}, 8: "
                  f"{says.count('8') / len(says):.3f} of {len(says)} candidates")

    if six_whole:
        print("shaped as a 6 (a 6's counter and top, not a 5's): " + ", ".join(
            f"true {rank}s {np.mean(v):.4f} ({sum(v)} of {len(v)})" for rank, v in sorted(six_whole.items())))
    if ten_shape:
        print("index candidates shaped as a 10 (a ring with a bar): " + ", ".join(
            f"true {rank}s {np.mean(v):.4f} ({sum(v)} of {len(v)})" for rank, v in sorted(ten_shape.items())))
    if jack_shape:
        print("index candidates shaped as a J (a stem and a hook): " + ", ".join(
            f"true {rank}s {np.mean(v):.4f} ({sum(v)} of {len(v)})" for rank, v in sorted(jack_shape.items())))
    for shape, other in (("S", "C"), ("C", "S"), ("H", "D"), ("D", "H")):
        own, confused = suit_shape[(shape, shape)], suit_shape[(other, shape)]
        if own and confused:
            print(f"suit blobs shaped as {shape}: true {shape} {np.mean(own):.3f} of {len(own)}, "
                  f"true {other} {np.mean(confused):.4f} ({sum(confused)} of {len(confused)})")


if __name__ == "__main__":
    main()

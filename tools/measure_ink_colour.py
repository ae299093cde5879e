#!/usr/bin/env python3
"""Measure the ink colour decision (`referee.vision.ink_colour`) on RENDERED cards under random camera casts.

Each scene is one number card (A-10: court art has other colours) from a deck with its own inks
(`random_inks`: maroon to bright red, warm to cool black, tinted paper), at webcam size, seen through a random
cast (`referee.vision.casts.CastRange`: lamp 2700-7500 K, white-balance error, saturation 0.5-1.3, an additive
veil, noise, JPEG with halved chroma). Every glyph-sized part on the card is the card's colour. Prints how each
is read (red / black / neither) and the percentiles of the two measures the decision uses, and the
constants they suggest: NEUTRAL_MIN where as many black glyphs fall below it as red ones reach it (their
neutrality, the higher of the two readings: equal error rates), RED_MAX the 0.1th percentile of the black
glyphs' red share (the lower of the two readings), so one black glyph in a thousand could read red were it
not read neutral first. The real photographs in ../shared/data are never read here.

With --clipped the scenes are overexposed (`casts.OVEREXPOSED`: exposure 1.0-1.6, the paper clipping at 255)
and only glyphs on paper at `ink_colour.CLIPPED` or more in red are kept: their raw red contrast over their
green one is a lower bound of the ink's (the paper's true red is hidden), and CLIPPED_RED_SHARE is the black
glyphs' 0.1th percentile of it, as RED_MAX is chosen.

usage: nice python tools/measure_ink_colour.py [--scenes 600] [--seed 91] [--clipped]
"""
from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.core.cards import Card  # noqa: E402
from referee.vision import casts, ink_colour, render  # noqa: E402
from referee.vision.ink_blobs import glyph_contrasts  # noqa: E402
from referee.vision.working_size import prepare  # noqa: E402

NUMBER_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
INK_RED_OVER_GREEN = 2.5   # a printed red's red over its green and blue: a maroon's is 3-4, a brown's under 2
EDGE_INSET = 0.04   # glyphs at least this share of the card's width inside its outline (its edge and shadow are no ink)
PIP_AREA_MAX = 1500  # px at working size: an Ace's big pip is left out with the table blobs its outline may cross


def random_inks(rng: random.Random, style: render.CardStyle) -> render.CardStyle:
    """`style` with a deck's own inks: red from maroon to bright (its red at least `INK_RED_OVER_GREEN` times its
    green and blue, as printed reds are), black from warm to cool, paper off-white."""
    r = rng.randint(110, 230)
    most = int(min(70, r / INK_RED_OVER_GREEN))
    red = (rng.randint(10, most), rng.randint(10, most), r)
    k = rng.randint(15, 70)
    black = tuple(int(np.clip(k + rng.randint(-12, 12), 0, 255)) for _ in range(3))
    base = rng.uniform(215, 252)
    paper = tuple(int(np.clip(base + rng.uniform(-8, 8), 0, 255)) for _ in range(3))
    return dataclasses.replace(style, red=red, black=black, paper=paper)  # type: ignore[arg-type]


def cast_scene(rng: random.Random, card: Card, envelope: casts.CastRange = casts.CastRange(),
               size: tuple[int, int] = (600, 800)) -> tuple[np.ndarray, np.ndarray, casts.Cast]:
    """A webcam-sized photo of `card` (random inks, angle and table) through a random cast: (image, the card's
    outline as a 4x2 array, the cast)."""
    h, w = size
    img = render.random_table(rng, (h, w))
    style = random_inks(rng, render.random_style(rng))
    width = rng.uniform(0.25, 0.42) * h
    p = render.Placement(card, (rng.uniform(0.35, 0.65) * w, rng.uniform(0.35, 0.65) * h), width,
                         rng.uniform(0, 360), style, (rng.uniform(-0.05, 0.05), rng.uniform(-0.05, 0.05)))
    render.composite(img, p, rng=rng)
    img = render.finish(img, rng, light=rng.uniform(0.8, 1.1), blur=rng.choice((0, 0, 0.7, 1.2)))
    cast = casts.draw_cast(rng, envelope)
    return casts.apply_cast(img, cast, rng.randrange(1 << 30)), p.quad(), cast


def measure(scenes: int, seed: int, envelope: casts.CastRange = casts.CastRange(), *, clipped: bool = False
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(is red, red share, neutrality) of every glyph on the card over `scenes` rendered scenes; each measure
    the more lenient of the normalised and raw readings for its own decision (`ink_colour.ink_colour`). With
    `clipped`, only glyphs on paper at `ink_colour.CLIPPED` or more in red, and their share is the raw red
    contrast over the green one (the clipped-paper test of `ink_colour.ink_colour`)."""
    rng = random.Random(seed)
    red_of, shares, neutral = [], [], []
    for _ in range(scenes):
        card = Card(rng.choice(NUMBER_RANKS), rng.choice("SHDC"))
        img, quad, _ = cast_scene(rng, card, envelope)
        small, scale = prepare(img)
        cents, areas, contrast, paper = glyph_contrasts(small)
        outline = (quad * scale).astype(np.float32)
        inset = EDGE_INSET * float(np.linalg.norm(outline[1] - outline[0]))
        on_card = [cv2.pointPolygonTest(outline, (float(x), float(y)), True) > inset and a <= PIP_AREA_MAX
                   for (x, y), a in zip(cents, areas)]
        if not any(on_card):
            continue
        keep = np.array(on_card)
        if clipped:
            keep &= paper[:, 2] >= ink_colour.CLIPPED
        c, pc = contrast[keep], paper[keep]
        normalised = c / np.maximum(pc, 1.0)
        if clipped:
            shares.append(c[:, 2] / np.maximum(c[:, 1], 1e-9))
        else:
            shares.append(np.minimum(ink_colour.red_share(normalised), ink_colour.red_share(c)))
        neutral.append(np.maximum(ink_colour.neutrality(normalised), ink_colour.neutrality(c)))
        red_of.append(np.full(int(keep.sum()), card.suit in "HD"))
    return np.concatenate(red_of), np.concatenate(shares), np.concatenate(neutral)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=600)
    ap.add_argument("--seed", type=int, default=91)
    ap.add_argument("--save", type=Path, default=None, help="write the per-glyph measures here (npz)")
    ap.add_argument("--clipped", action="store_true", help="overexposed scenes, glyphs on paper clipped in red")
    args = ap.parse_args()
    if args.clipped:
        return clipped_report(args.scenes, args.seed)
    red, share, neutral = measure(args.scenes, args.seed)
    finite = np.isfinite(share) & np.isfinite(neutral)
    codes = np.where(neutral >= ink_colour.NEUTRAL_MIN, ink_colour.BLACK,
                     np.where(share < ink_colour.RED_MAX, ink_colour.RED, ink_colour.OTHER))
    for name, sel in (("red", red & finite), ("black", ~red & finite)):
        read = {k: int((codes[sel] == v).sum()) for k, v in (("red", 1), ("black", 0), ("neither", -1))}
        print(f"{name} glyphs {int(sel.sum())}: read {read}")
        print(f"  red share   p0.1/1/50/99/99.9: {np.percentile(share[sel], [0.1, 1, 50, 99, 99.9]).round(3)}")
        print(f"  neutrality  p0.1/1/50/99/99.9: {np.percentile(neutral[sel], [0.1, 1, 50, 99, 99.9]).round(3)}")
    neutral_min = equal_error(neutral[~red & finite], neutral[red & finite])
    red_max = float(np.percentile(share[~red & finite], 0.1))
    print(f"NEUTRAL_MIN {neutral_min[0]:.3f} (equal errors: {neutral_min[1]:.4f} of each colour on the wrong side), "
          f"RED_MAX {red_max:.3f} (0.1th percentile of the black glyphs' red share); "
          f"in use: {ink_colour.NEUTRAL_MIN}, {ink_colour.RED_MAX}")
    if args.save:
        np.savez(args.save, red=red, share=share, neutral=neutral)


def clipped_report(scenes: int, seed: int) -> None:
    """Print the red-over-green contrast of red and black glyphs on paper clipped in red, and the
    CLIPPED_RED_SHARE it suggests (the black glyphs' 0.1th percentile)."""
    red, share, _ = measure(scenes, seed, casts.OVEREXPOSED, clipped=True)
    ok = np.isfinite(share)
    for name, sel in (("red", red & ok), ("black", ~red & ok)):
        if sel.any():
            print(f"{name} glyphs on clipped paper {int(sel.sum())}: red / green contrast p0.1/1/50/99/99.9: "
                  f"{np.percentile(share[sel], [0.1, 1, 50, 99, 99.9]).round(3)}; "
                  f"under {ink_colour.CLIPPED_RED_SHARE}: {float(np.mean(share[sel] <= ink_colour.CLIPPED_RED_SHARE)):.4f}")
    if (~red & ok).any():
        cut = float(np.percentile(share[~red & ok], 0.1))
        print(f"CLIPPED_RED_SHARE {cut:.3f} (0.1th percentile of the black glyphs'; red glyphs under it: "
              f"{float(np.mean(share[red & ok] < cut)):.4f}); in use: {ink_colour.CLIPPED_RED_SHARE}")


def equal_error(high: np.ndarray, low: np.ndarray) -> tuple[float, float]:
    """The threshold t where the share of `high` below t equals the share of `low` at or above it (the
    measure of black ink is high, of red ink low), and that share."""
    grid = np.unique(np.concatenate([high, low]))
    below = np.searchsorted(np.sort(high), grid, side="left") / len(high)
    above = 1 - np.searchsorted(np.sort(low), grid, side="left") / len(low)
    k = int(np.argmin(np.abs(below - above)))
    return float(grid[k]), float(max(below[k], above[k]))


if __name__ == "__main__":
    main()

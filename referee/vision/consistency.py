"""Checks a named corner index must pass before its name is reported, and the shape
tests that settle the readers' doubts between 3 and 5, 6 and 8 (and 5), J and 7, 10 and the
ring glyphs, spade and club, heart and diamond.

All limits here were measured on project-rendered indices only (TrueType and
Hershey faces, tools/train_index_classifier.py scenes): the real photographs
are never used to choose them.

- Mirror symmetry: a lone suit pip (a club or heart from a card's centre
  pattern paired with its neighbour pip) is left-right symmetric; rank glyphs
  such as 4, 7 or J are not. A rank patch more symmetric than any rendered
  instance of that rank (plus a margin) is a pip, not that rank.
- "5" needs its left stroke: a 5's upright stroke joins the top bar to the bowl,
  so the left quarter of the glyph (drawn at 40 px) has ink in every row from
  15% to 45% of its height; a "3" (round, flat-topped, or flat with a left
  serif: its serif ends above the waist, which sits mid-glyph) is open there.
  tools/measure_shape_checks.py --ranks 3,5 --scenes 400 --seed 51 (all
  photo-damaged): 88% of true 5 candidates pass (partial glyphs included) and
  5% of 3s. Among the 5s the agreeing pair names at 0.97 (seeds 51 and 52,
  half damaged) 96% pass, and 7% of round 3s, 6% / 2% / 1% of the flat-topped
  kinds (True / 2 / 3); the band used before (left 35% at 20 px, rows 15-40%)
  passed 99% of those 5s but 31% of round 3s and 37% of flat ones, and a
  serifed flat 3 read as 5 got through.
- A 5 that is a 3: the readers, trained on rendered faces, read real flat-topped
  Bicycle 3s as "5" (p(5) near 0.9, p(3) most of the rest), and the check above
  refuses them. A candidate read "5" that fails it and has a 3's upper stroke
  (ink in the right 45% of more than 2/3 of the rows 20-35% down, where a 5 has
  the empty corner under its top bar) is named 3, with the readers' 3-or-5
  probability as its rank confidence. Band and limit chosen on rendered 3s and
  5s only (seeds 51 and 52): 97-100% of the 3s of each look have the stroke,
  0.2% of the 5s the pair names at 0.97 would be re-read; measure_shape_checks
  --ranks 3,5 --seed 51: 93% of true 3 candidates and 9% of 5s (mostly partial
  glyphs the readers are unsure of). calibrate_confidence on seeds 778 / 779
  is unchanged at the 0.97 cut (every re-reading it makes there is below 0.97;
  at 0.90 it adds 3 and 5 wrong names to 1715 / 1728). Much of the rest of the
  readers' doubt on those real 3s is "J" (0.04-0.10): a 3's waist is what a
  J's upright stem lacks, so unless the glyph also has a J's stem and hook
  (`jack_shaped`) the J's probability joins the 3's. Rendered data cannot
  weigh this: 4 of 726 true Js are read "5" and none has a 3's shape, and
  rendered 3s are seldom read "5" (8 of 782: the readers on
  train_index_classifier scenes of J/3-only decks, seed 61, 600 scenes; a
  one-off script, not kept); calibrate_confidence 778-781 is unchanged by it. Real photos, for
  verification only: 7 more Bicycle 3s named (1753 -> 1760), no wrong name.
- A 6 or an 8 by its counters: the readers doubt between 6 and 8 on real
  Bicycle 6s (p(6) 0.6-0.95, p(8) most of the rest). A glyph with one enclosed
  counter, in its lower half, is shaped as a 6; one with two, one in each
  half, as an 8. Where a row read "6" (or "8") has the counters of what it was
  read as, the readers' 6-or-8 probability is its rank confidence; the shape
  never renames one to the other (occluded 8s can show only their lower
  counter). Rendered 6s and 8s (seeds 71 and 72, half damaged): 74% of the
  6s have a 6's counters and 0.1% an 8's; 67% of the 8s an 8's and 7% a 6's
  (bold faces fill their counters at this size: no boost, nothing refused);
  measure_shape_checks --ranks 6,8 --seed 51 (all damaged): 6s 63% / 0%, 8s
  62% / 7%. calibrate_confidence seeds 778 / 779 at 0.97 with both settles:
  0.9960 / 0.9966 (one more right card on 778, nothing else moves).
- A 6 by its top: on real Bicycle 6s that already have a 6's counter the rest
  of the readers' doubt is "5" (p(5) 0.02-0.15). A 5 whose bowl damage closed
  has a 6's counter too, but not a 6's top: where the top 12% of the glyph's
  rows start inking over 15% of its width in from its left edge (a 6 curls in
  from its middle; a 5's bar starts at its upright stroke) and under 38% of its
  top-left corner (top 20%, left 30%) is ink, a row read "6" with a 6's counter
  also gets the readers' p(5). Chosen on rendered 5s and 6s only
  (measure_shape_checks --ranks 5,6 --seed 51: 1 of 468 true 5 candidates has
  a 6's counter and top, 61% of 6s); a second seed (52, 600 scenes) has 9 of
  674 5s passing, most of them partial glyphs. calibrate_confidence 778 / 779
  at 0.97: 0.9954 / 0.9954 (+1 / +0 cards named, the same wrong ones). Real
  photos, for verification only: 85% of Bicycle 6s read "6" pass; Bicycle
  0.851 -> 0.860 (18 more 6s, none lost) at the same precision.
- A spade by its shape: the readers doubt between spade and club on many real
  Bicycle spades (p(S) 0.6-0.95, p(C) most of the rest; the 14 px suit patch
  is what they doubt). A suit blob drawn at 40 px whose ink 10% below its top
  spans under 35% of its width (a point) and whose outline has no dent in its
  upper 60% deeper than 4% of its height (no gaps between lobes) is shaped as
  a spade; where a row read "spade" has that shape, the readers' spade-or-club
  probability is its suit confidence (a club is never renamed). Chosen on
  rendered spades and clubs only (seeds 61-64, spade/club-only decks, half
  damaged: 1812 spades, 1798 clubs): the widest limits that pass at most 4 of
  the clubs (0.2%); 17% of the rendered spades pass (most damaged rendered pips
  are blobs); measure_shape_checks --seed 51 / 52 (400 each, all damaged):
  13% / 20% of spades, 0 of 246 / 261 clubs. calibrate_confidence seeds 778 / 779 at 0.97: 0.9960 / 0.9967
  (+3 and +11 cards named, all right). Real photos, for verification only:
  60% of the spade readings the readers doubted pass, 1 of 543 club indices.
- A club by its lobes: the readers doubt the other way too (p(C) 0.6-0.95 on
  real Bicycle clubs, p(S) most of the rest). A suit blob (40 px) with a dent
  over 10% of its height deep on each side of its middle in its upper 60% (the
  gaps between the top lobe and the side lobes) and ink 10% below its top
  spanning over 30% of its width (a round top lobe, not a point) is shaped as a
  club; a row read "club" with that shape gets the club-or-spade probability as
  its suit confidence (a spade is never renamed). Depth alone (the deepest dent
  anywhere in the upper 60%) could not be used: damaged rendered spades have
  one deep dent often enough that a limit passing at most 4 of them passed only
  3% of rendered clubs and 7% of the doubted real club readings; a gap on both
  sides is what a damaged spade rarely has. Chosen on rendered spades and clubs
  only (seeds 61-64, 300 / 300 / 450 / 450 scenes of spade/club-only decks,
  half damaged): 3 of 1778 spades pass, 14% of the 1740 clubs (the renderer's
  own clubs have shallow gaps, 8-10% of their height at this size).
  calibrate_confidence seeds 778 / 779 at 0.97: 0.9954 / 0.9954 (+2 / +5 cards
  named, all right). Real photos, for verification only: 97% of Bicycle club
  indices read by rank pass (2 of 737 spades); Bicycle recall 0.834 -> 0.851 at
  the same precision.
- A pip with a stub: the covering card's printed edge, cut from a pip, can
  leave a stroke 1-2 px thick (at 40 px) on its side, which the suit tests
  read as a lobe gap or a notch (real Bicycle spades and diamonds the closer
  look read at 0.98-0.99 failed so). A pip that fails its suit's test is
  tried once more after a 3 px opening, which removes strokes that thin.
  Picked after seeing those real pips; checked on rendered ones only:
  measure_shape_checks --scenes 400 --seed 51: still 0 of 274 clubs shaped
  as spades, 0 of 303 spades as clubs, 1 of 232 hearts as diamonds (as
  before); true spades 25.4% -> 25.7%, hearts 65.9% -> 69.0%.
  calibrate_confidence seeds 778-781 at 0.97: 0.9955 / 0.9956 / 0.9914 /
  0.9904 (+0 / +0 / +4 / +2 named, no wrong name added). Real photos, for
  verification only: Bicycle 0.932 -> 0.937, no wrong name added.
- A heart or a diamond by its shape: the readers also doubt between the red
  suits on real Bicycle cards (p(H) or p(D) 0.6-0.95). A suit blob drawn at
  40 px whose ink 10% below its top spans under 40% of its width and whose
  upper 60% has no dent deeper than 7% of its height is shaped as a diamond;
  one spanning over 70% with a dent deeper than 7% (the notch between two
  lobes) as a heart. Where a row read one of them has its shape, the readers'
  heart-or-diamond probability is its suit confidence (never a rename). Chosen
  on rendered hearts and diamonds only (seeds 61-64, 400 scenes each of
  heart/diamond-only decks, half damaged): the widest limits passing at most 4
  of the other suit (diamond shape: 3 of 1986 hearts, 50% of diamonds; heart
  shape: 4 of 1874 diamonds, 72% of hearts). calibrate_confidence seeds 778 /
  779 at 0.97: 0.9954 / 0.9954, unchanged. Real photos, for verification only:
  96% of Bicycle diamond indices read by rank pass the diamond test (2 of 712
  hearts), 98% of heart indices the heart test (0 diamonds); Bicycle recall
  0.811 -> 0.819 at the same precision.
  (measure_shape_checks --seed 51 / 52, all damaged: the heart test passes
  0 / 0 diamonds, the diamond test 1 / 3 hearts.)
- A 10 by its bar: Bicycle prints "10" as a thin bar beside a ring, and the
  readers, trained mostly on other 10s, read the pair (or the ring offered
  alone) as 10 with Q, 9 or 8 as the doubt. A ring (one counter, its middle
  30-70% down the glyph) with, on its left, a bar of its colour 0.75-1.3 times
  its height, under 0.45 of that wide, at most 0.6 of the ring's height away and
  level with it (middles within 0.2) is shaped as a 10; where a row read "10"
  has that shape, the readers' probability of 10, Q, 9 and 8 (the single glyphs
  with a counter) is its rank confidence. measure_shape_checks --ranks
  10,Q,9,8 --seed 51 / 52 (all damaged): 13% / 15% of true 10 candidates pass
  (most rendered "1"s have a flag or a foot), 0 of the Qs and 8s, 1 of 268 /
  280 9s. calibrate_confidence seeds 778 / 779 at 0.97: 0.9954 / 0.9954,
  unchanged. Real photos, for verification only: Bicycle 0.819 -> 0.834 (real
  10s missed 59 -> 29) at the same precision, Piatnik 0.968 -> 0.972.
  A "1" printed square to the image is a plain filled box, which find_blobs
  sets aside (no glyph fills over 0.8 of its box), so its ring is offered
  alone; the bar is then looked for among those solid parts too (a stripe of
  the tablecloth beside a ring is too long to be its "1"). Real Bicycle 10s
  lying square to the photo lost their bar so (now 2 more named, no wrong one);
  calibrate_confidence 778-781 at 0.97 unchanged in precision (+1 card on 778).
- A J by its stem and hook: real Bicycle Js are read "J" 0.91-0.97 with "7" the
  largest doubt. A glyph (40 px) taller than wide whose widest ink row in its
  bottom quarter spans over 60% of its width (a J's hook to its stem; a 7's
  foot is one narrow stroke) and whose right edge moves under 8% of its width
  between 30% and 65% down (an upright stem; a 7's stroke runs down-left) is
  shaped as a J; where a row read "J" has that shape, the readers' J-or-7
  probability is its rank confidence (never a rename). The two measures were
  picked after seeing how real Bicycle Js and 7s differ; the limits on
  rendered glyphs only: measure_shape_checks --ranks J,7,3 --scenes 1500
  --seed 51 / 52: 2 of 1079 / 4 of 1097 true 7s pass (without "taller than
  wide", 14 of 1097: a 7's top bar offered alone, drawn across), 65% of true
  Js; 20-22% of true 3s pass, so a 3's doubt is never added. calibrate_confidence seeds 778-781
  at 0.97: see recognize.MIN_CONFIDENCE. Real photos, for verification only:
  213 of 216 Bicycle J readings pass, 0 of 224 7s; Bicycle 1744 -> 1749
  cards named, no wrong name added.
- Two pips are not an index: a rank blob the same shape as its suit blob (both
  drawn upright in the candidate's frame at the same patch size) is a pip
  paired with its neighbour pip. A candidate whose rank/suit overlap is above
  any rendered instance of that rank (plus a margin) is not named.
- A rank is no taller than three times its suit: printed indices set the rank
  1.2-2 times the suit's height; 99% of rendered true indices are under 3.0
  (seeds 31 / 32: p99 2.99 / 2.61), the rest mostly suits cut short by a
  covering card. Court art read as a rank over a pip (a King's red robe over
  a heart, named "10D" at 0.8-0.94 on photos-aristocrat) stands 3.5-4.2 times
  its pip. Real photos, for verification only: the right readings of all
  three decks are at most 2.0 times their suit.
- A suit's colour is its ink's: a heart or diamond needs a suit blob read red against its paper, a spade or
  club one that is not (`ink_colour`: a black spade under a warm lamp looked brown, and was read "D", while
  red was read from the pixel alone).
- One blob, one index: a rank or suit blob already used by a more confident
  named index cannot be read again as part of another.
"""
from __future__ import annotations

import cv2
import numpy as np

from .index_detect import RANK_PATCH, SOLID_FILL, Blob, Candidate, Frame, _extent, _patch, enclosed_paper

# Both limit tables: measured when set (before the drawn 3s and bar tens joined the renderer). On today's
# renderer they refuse some rendered true indices: tools/measure_shape_checks.py, seeds 31 / 32 (500 each):
# at most 6.0% / 4.4% of one rank's ("2" / "4"), 0-2.6% of the others; a recall cost the calibration counts.
# Not raised to today's maxima: with more scenes those keep climbing on single damaged glyphs (a 7's mirror
# IoU 0.88 on seed 32, 0.68 on 31), which would leave the checks almost toothless against pips. On the real
# Bicycle scenes no card goes unnamed because of them.
# highest mirror-IoU of each rank's patch on 500 rendered validation scenes (seed 31) + 0.03
MIRROR_MAX = {"2": 0.87, "3": 0.85, "4": 0.80, "5": 0.91, "7": 0.70, "10": 0.84, "J": 0.87, "K": 0.83,
              "JOKER": 0.73}
# highest rank-vs-suit patch IoU of each rank's true indices on 500 rendered validation scenes (seed 31) + 0.03;
# "10" (up to 0.98 there) is not checked
SAME_SHAPE_MAX = {"A": 0.68, "2": 0.69, "3": 0.73, "4": 0.76, "5": 0.76, "6": 0.84, "7": 0.62, "8": 0.79,
                  "9": 0.79, "J": 0.72, "Q": 0.82, "K": 0.70, "JOKER": 0.83}
INK = 100
# a rank's height over its suit's: printed indices 1.2-2; rendered true indices (tools/measure_shape_checks.py, seeds 31 /
# 32, 500 each) 99% under 2.99 / 2.61, the rest mostly suits cut short by a covering card; the readers named red court
# art (a King's robe over a pip) as a 10 at 0.8-0.94 on a webcam deck they never saw, at 3.5-4.2
RANK_OVER_SUIT_MAX = 3.0
RED_SUIT_MIN = 50  # a heart or diamond's suit blob is read red (`Blob.red`: index_detect.RED_FEATURE, or 0)
THREE_RETURN_MIN = 2 / 3  # a 3 has ink in the right 45% of more than 2/3 of its rows 20-35% down (see "A 5 that is a 3")
THREE_WAIST_MIN = 0.05  # and its right edge dips in over 5% of its width (2 px drawn) at a waist 20-65% down
# (rendered, seed 51: 430 of the 464 true 3s the two tests above pass, 5 of the 45 true 5s they pass - mostly a 5's
# bowl alone, a ")"; 0.03 kept 452 and 11 but passed a drawn ")" turned 200 deg, one pixel of aliasing)
SIX_TOP_INDENT_MIN = 0.15  # a 6's ink in its top 12% of rows starts over 15% of its width in from its left edge
SIX_CORNER_INK_MAX = 0.38  # and under 38% of its top-left corner (top 20%, left 30%) is ink
SPADE_TIP_MAX = 0.35  # a spade's ink 10% below its top spans under 35% of its width: a point, not a club's lobe
CLUB_DENT_MAX = 0.045  # and no dent in its upper 60% is 4.5% of its height deep (a printed spade's sides curve in
#                       4-5% below its point) and no dent on both sides reaches SPADE_GAPS_MAX: no gaps between lobes
SPADE_GAPS_MAX = 0.04
STEM_NECK_MAX = 0.2  # a pip drawn sharply enough to show its stem: a row 65-95% down spans under 20% of its width
SHARP_SPADE_DENT_MAX = 0.06  # such a pip is a spade with sides curving in up to 6% (no dent that deep in its upper 60%)
SHARP_SPADE_GAPS_MAX = 0.055  # and under 5.5% on both sides. Rendered validation (seeds 778 / 779, pips with a neck
# and their rank read right): spades' deepest dent median 0.049 / 0.046, both sides 0.035 / 0.034, so the limits above
# refuse over half of them; the nearest narrow-topped club with a neck: 0.061 deep, 0.060 both sides. Blurred pips
# (median neck 0.48: most rendered ones) keep the stricter limits: a club's lobes melt into a spade-like blob
CLUB_GAPS_MIN = 0.10  # a club has a gap over 10% of its height deep between its top lobe and each side lobe
CLUB_TOP_MIN = 0.30  # and its top lobe's ink 10% below its top spans over 30% of its width
DIAMOND_TIP_MAX = 0.40  # a diamond's ink 10% below its top spans under 40% of its width: a point, not a heart's lobes
DIAMOND_DENT_MAX = 0.07  # and no dent in its upper 60% is 7% of its height deep: no notch between lobes
HEART_TOP_MIN = 0.70  # a heart's ink 10% below its top spans over 70% of its width: two lobes
HEART_DENT_MIN = 0.07  # with a notch between them over 7% of its height deep
TEN_BAR_WIDTH_MAX = 0.45  # a 10's "1" is a bar: under 0.45 of its height wide
TEN_BAR_HEIGHT = (0.75, 1.3)  # and about as tall as its "0" (times the ring's height)
TEN_GAP_MAX = 0.6  # with at most 0.6 of the ring's height of paper between them
TEN_ALIGN_MAX = 0.2  # their middles at most 0.2 of the ring's height apart up and down
SOLID_BAR_MIN_PX = 12  # a solid part that small beside a ring is a speck, not a 10's bar
JACK_FOOT_MIN = 0.6  # a J's widest ink row in its bottom quarter spans over 60% of its width (its hook to its stem)
JACK_DRIFT_MAX = 0.08  # and its right edge moves under 8% of its width from 30% to 65% down (an upright stem)
STUB_OPEN = 3  # px at STROKE_PATCH: a pip failing its shape test is tried again opened by this much (a stub of
# a card's printed edge, 1-2 px thick there, dents a spade or a diamond like a lobe gap or a notch)
_STUB_KERNEL = np.ones((STUB_OPEN, STUB_OPEN), np.uint8)
STROKE_PATCH = 40  # the shape tests draw glyphs and pips finer than the classifier's patches: a 20 px row is 5% of a glyph


def mirror_iou(p: np.ndarray) -> float:
    a = p > INK
    b = a[:, ::-1]
    return float((a & b).sum()) / max(1, int((a | b).sum()))


def _ink_box(p: np.ndarray) -> tuple[int, int, int, int] | None:
    """(left, top, width, height) of the patch's ink, or None for a blank patch."""
    ys, xs = np.nonzero(p > INK)
    if len(xs) == 0:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


def _row_extents(p: np.ndarray) -> tuple[int, int, np.ndarray, np.ndarray, np.ndarray] | None:
    """(width, height, whether each row has ink, its leftmost and rightmost ink column) over the patch's ink box,
    columns counted from the box's left; None for a blank patch. The edge tests read the glyph's outline so."""
    box = _ink_box(p)
    if box is None:
        return None
    x0, y0, w, h = box
    ink = p[y0:y0 + h, x0:x0 + w] > INK
    return w, h, np.asarray(ink.any(1)), ink.argmax(1), w - 1 - ink[:, ::-1].argmax(1)


def band_rows(p: np.ndarray, top: float, bottom: float, left: float, right: float) -> float:
    """Fraction of glyph rows between `top` and `bottom` of its height with ink between `left` and `right` of its width."""
    box = _ink_box(p)
    if box is None:
        return 0.0
    x0, y0, w, h = box
    xa = x0 + int(round(left * w))
    reg = p[y0 + int(round(top * h)):y0 + int(round(bottom * h)), xa:max(xa + 1, x0 + int(round(right * w)))] > INK
    return float(reg.any(1).mean()) if reg.size else 0.0


def top_indent(p: np.ndarray, rows: float = 0.12) -> float:
    """How far right of the glyph's left edge its ink starts in its top `rows` (a fraction of its width): a 6's
    top curls in from its middle, a 5's bar starts at its upright stroke."""
    box = _ink_box(p)
    if box is None:
        return 0.0
    x0, y0, w, h = box
    cols = np.flatnonzero((p[y0:y0 + max(1, int(round(rows * h))), x0:x0 + w] > INK).any(0))
    return float(cols[0]) / float(w) if len(cols) else 1.0


def top_left_ink(p: np.ndarray, rows: float = 0.2, cols: float = 0.3) -> float:
    """Share of the glyph's top-left corner (its top `rows`, left `cols`) that is ink: a 5's corner, where its
    bar meets its upright stroke, is solid; a 6's is mostly the paper outside its curve."""
    box = _ink_box(p)
    if box is None:
        return 1.0
    x0, y0, w, h = box
    return float((p[y0:y0 + int(round(rows * h)), x0:x0 + int(round(cols * w))] > INK).mean())


def left_stroke(p: np.ndarray, band: float = 0.25, top: float = 0.15, bottom: float = 0.45) -> float:
    """Fraction of glyph rows between `top` and `bottom` of its height with ink in its left `band`."""
    return band_rows(p, top, bottom, 0.0, band)


def has_five_stroke(fine: np.ndarray) -> bool:
    """Whether a glyph (drawn at STROKE_PATCH) has a 5's upright stroke: ink in its left quarter on every row
    from 15% to 45% of its height."""
    return left_stroke(fine) >= 0.999


def right_return(p: np.ndarray) -> float:
    """Fraction of glyph rows 20-35% down with ink in the right 45%: a 3's upper stroke, a 5's empty corner."""
    return band_rows(p, 0.20, 0.35, 0.55, 1.0)


def right_waist(p: np.ndarray, top: float = 0.2, bottom: float = 0.65) -> float:
    """How deep (fraction of the glyph's width) its right edge dips in between a reach above and a reach below,
    deepest among rows `top` to `bottom` of its height: a 3's cusp between its two strokes; a lone bowl's ")"
    has one bulge and no dip."""
    rows = _row_extents(p)
    if rows is None:
        return 0.0
    w, h, inked, _, right = rows
    right = np.where(inked, right, -1)
    above = np.maximum.accumulate(right)
    below = np.maximum.accumulate(right[::-1])[::-1]
    dip = np.where(inked, np.minimum(above, below) - right, 0)  # a row with no ink (a broken glyph) is no dip
    band = slice(int(top * h), max(int(top * h) + 1, int(bottom * h)))
    return float(dip[band].max()) / w


def counter_heights(p: np.ndarray, min_area: int = 4) -> list[float]:
    """Centre heights (0 top, 1 bottom of the glyph) of the glyph's enclosed counters of at least `min_area` px."""
    box = _ink_box(p)
    if box is None:
        return []
    _, y0, _, h = box
    return sorted((c - y0) / h for c in enclosed_paper(p > INK, min_area))


def width_near_top(p: np.ndarray, depth: float = 0.10) -> float:
    """Width of the ink row `depth` of the glyph's height below its top, as a fraction of the glyph's width."""
    box = _ink_box(p)
    if box is None:
        return 1.0
    _, y0, w, h = box
    row = np.flatnonzero(p[y0 + int(round(depth * h))] > INK)
    return float(row[-1] - row[0] + 1) / float(w) if len(row) else 0.0


def _upper_dents(p: np.ndarray, upper: float) -> list[tuple[float, float]]:
    """(depth, side) of each dent in the outline of the glyph's largest ink part whose deepest point lies in its
    upper `upper`: depth as a fraction of the part's height, side < 0 left of its middle, > 0 right."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats((p > INK).astype(np.uint8))
    if n < 2:
        return []
    part = (labels == 1 + int(stats[1:, cv2.CC_STAT_AREA].argmax())).astype(np.uint8)
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(outline, returnPoints=False)
    if len(hull) < 4:
        return []
    try:
        dents = cv2.convexityDefects(outline, hull)
    except cv2.error:  # a self-touching outline (rare at this size): no dents measured
        return []
    if dents is None:
        return []
    x, y = outline[:, 0, 0], outline[:, 0, 1]
    top, height, middle = int(y.min()), int(y.max() - y.min() + 1), (int(x.min()) + int(x.max())) / 2
    far, depth = dents.reshape(-1, 4)[:, 2], dents.reshape(-1, 4)[:, 3]
    upper_ones = y[far] - top < upper * height   # all dents at once: a Python loop over them was 30 us a pip
    return list(zip((depth[upper_ones] / 256.0 / height).tolist(), (x[far[upper_ones]] - middle).tolist()))


def deepest_upper_dent(p: np.ndarray, upper: float = 0.6) -> float:
    """Depth (fraction of the glyph's height) of the deepest dent in the outline of its largest ink part,
    among dents whose deepest point lies in the upper `upper` of the glyph (a club's gaps between lobes)."""
    return max((d for d, _ in _upper_dents(p, upper)), default=0.0)


def lobe_gaps(p: np.ndarray, upper: float = 0.6) -> float:
    """Depth of the shallower of the deepest upper dents left and right of the glyph's middle: a club has a
    gap between its top lobe and each side lobe; a damaged spade rarely has one on both sides."""
    return _both_sides(_upper_dents(p, upper))


def _both_sides(dents: list[tuple[float, float]]) -> float:
    """The shallower of the deepest dent left and the deepest right of the middle (`_upper_dents`)."""
    return min(max((d for d, side in dents if side < 0), default=0.0),
               max((d for d, side in dents if side > 0), default=0.0))


def same_shape_iou(rank_patch: np.ndarray, frame: Frame, cand: Candidate) -> float:
    """Overlap of the rank patch with the suit blob drawn the same way (1.0: the same shape)."""
    s, _, _ = _patch(frame, (cand.suit,), cand.ux, cand.uy, RANK_PATCH)
    a, b = rank_patch > INK, s > INK
    return float((a & b).sum()) / max(1, int((a | b).sum()))


def rank_over_suit(cand: Candidate) -> float:
    """The rank's ink height over its suit's, both along the index's rank-to-suit direction."""
    _, _, top, bottom = _extent(np.concatenate([b.pts for b in cand.rank]), 0.0, 0.0, cand.ux, cand.uy)
    _, _, s_top, s_bottom = _extent(cand.suit.pts, 0.0, 0.0, cand.ux, cand.uy)
    return (bottom - top) / max(s_bottom - s_top, 1.0)


def plausible(frame: Frame, cand: Candidate, rank: str, suit: str = "") -> bool:
    """Whether `cand` can be read as `rank` (and `suit`, "" for a Joker) by the checks above: each answer kept on
    the candidate (about 2.6 of a photo's 6.6 checks ask again, ~0.4 ms of checks on the learned path)."""
    known = cand.checked.get((rank, suit))
    if known is None:
        known = cand.checked[(rank, suit)] = _plausible(frame, cand, rank, suit)
    return known


def _plausible(frame: Frame, cand: Candidate, rank: str, suit: str) -> bool:
    """`plausible`, checked."""
    if suit in ("H", "D") and cand.suit.red < RED_SUIT_MIN or suit in ("S", "C") and cand.suit.is_red:
        return False
    if rank != "JOKER" and rank_over_suit(cand) > RANK_OVER_SUIT_MAX:
        return False
    cap = MIRROR_MAX.get(rank)
    same = SAME_SHAPE_MAX.get(rank)
    if cap is None and same is None:
        return True
    p, _, _ = _patch(frame, cand.rank, cand.ux, cand.uy, RANK_PATCH)
    if cap is not None and mirror_iou(p) > cap:
        return False
    if same is not None and same_shape_iou(p, frame, cand) > same:
        return False
    return rank != "5" or has_five_stroke(fine_rank(frame, cand))


def fine_rank(frame: Frame, cand: Candidate) -> np.ndarray:
    """The candidate's rank glyph drawn upright at STROKE_PATCH, for the shape tests."""
    return _patch(frame, cand.rank, cand.ux, cand.uy, STROKE_PATCH)[0]


def five_is_three(frame: Frame, cand: Candidate) -> bool:
    """Whether a candidate read "5" is a 3 (`three_shaped`)."""
    return three_shaped(fine_rank(frame, cand))


def three_shaped(fine: np.ndarray) -> bool:
    """Whether a glyph (drawn by `fine_rank`) read "5" is a 3: no 5's left stroke, a 3's upper stroke on the right
    below its top and a 3's waist (a 5's bowl alone, its top stroke broken off, has neither a left stroke nor a
    waist)."""
    return not has_five_stroke(fine) and right_return(fine) > THREE_RETURN_MIN and has_three_waist(fine)


def seven_not_three(frame: Frame, cand: Candidate) -> bool:
    """Whether a candidate read "7" is no 3: its right edge has no 3's waist (a 7's runs down-left in one stroke).
    Rendered (seeds 778 / 779): 152 of 157 and 140 of 144 true 7s read "7" pass; of the one true 3 read "7", none."""
    return not has_three_waist(fine_rank(frame, cand))


def has_three_waist(fine: np.ndarray) -> bool:
    """Whether a glyph's (drawn by `fine_rank`) right edge dips in at a 3's waist."""
    return right_waist(fine) > THREE_WAIST_MIN


def jack_not_seven(frame: Frame, cand: Candidate) -> bool:
    """Whether a candidate read "J" is no 7: an upright stem down its right side ending in a hook that spans its
    foot (a 7's stroke runs down-left to a narrow foot)."""
    return jack_shaped(fine_rank(frame, cand))


def jack_shaped(fine: np.ndarray) -> bool:
    """A glyph (drawn by `fine_rank`) with a J's stem and hook: taller than wide, its bottom quarter's widest row
    spans over `JACK_FOOT_MIN` of its width and its right edge drifts under `JACK_DRIFT_MAX` between 30% and 65%
    down."""
    rows = _row_extents(fine)
    if rows is None:
        return False
    w, h, inked, left, right = rows
    foot = slice(int(0.75 * h), h)
    spans = np.where(inked[foot], right[foot] - left[foot] + 1, 0)
    upper, lower = int(0.30 * h), int(0.65 * h)
    if h < w or not (inked[upper] and inked[lower]):  # a J stands upright; a lone bar is no J
        return False
    return spans.max() > JACK_FOOT_MIN * w and abs(int(right[upper]) - int(right[lower])) < JACK_DRIFT_MAX * w


def six_or_eight(fine: np.ndarray) -> str | None:
    """"6" for a glyph (drawn by `fine_rank`) with one counter, in its lower half; "8" for two, one in each
    half; else None."""
    counters = counter_heights(fine)
    if len(counters) == 1 and counters[0] > 0.5:
        return "6"
    if len(counters) == 2 and counters[0] < 0.5 < counters[1]:
        return "8"
    return None


def six_not_five(fine: np.ndarray) -> bool:
    """Whether a glyph's (drawn by `fine_rank`) top is a 6's, not a 5's: its top row of ink starts well in from
    its left edge and its top-left corner is mostly paper (a 5 whose bowl damage closed has a 6's counter,
    never a 6's top)."""
    return top_indent(fine) > SIX_TOP_INDENT_MIN and top_left_ink(fine) < SIX_CORNER_INK_MAX


def suit_shaped(frame: Frame, cand: Candidate, suit: str) -> bool:
    """Whether the candidate's suit blob has the shape of `suit`: a spade's or a diamond's point and no gaps
    between lobes, a club's three lobes with a gap on each side of the top one, or a heart's two lobes with a
    notch; as drawn, or once opened by `STUB_OPEN` px (a stub of a card's printed edge left on the pip)."""
    p, _, _ = _patch(frame, (cand.suit,), cand.ux, cand.uy, STROKE_PATCH)
    return pip_shaped(p, suit) or pip_shaped(without_stubs(p), suit)


def without_stubs(p: np.ndarray) -> np.ndarray:
    """A drawn pip opened by `STUB_OPEN` px: strokes thinner than that (a stub of a card's printed edge) gone."""
    return cv2.morphologyEx(p, cv2.MORPH_OPEN, _STUB_KERNEL)


def pip_shaped(p: np.ndarray, suit: str) -> bool:
    """Whether a drawn pip (`STROKE_PATCH` px) has the shape of `suit` (see `suit_shaped`)."""
    if suit == "S":
        return spade_outline(p)
    if suit == "C":  # the top width first: it is the cheaper test
        return width_near_top(p) > CLUB_TOP_MIN and lobe_gaps(p) > CLUB_GAPS_MIN
    if suit == "D":
        return width_near_top(p) < DIAMOND_TIP_MAX and deepest_upper_dent(p) < DIAMOND_DENT_MAX
    if suit == "H":
        return width_near_top(p) > HEART_TOP_MIN and deepest_upper_dent(p) > HEART_DENT_MIN
    return False


def spade_outline(p: np.ndarray) -> bool:
    """A drawn pip with a spade's point and no gaps between lobes: its top narrow, no dent in its upper 60% as
    deep as `CLUB_DENT_MAX`, and not a dent of `SPADE_GAPS_MAX` on both sides (a club's, however shallow).
    Printed spades' sides curve in 4-5% of their height below the point, mostly on one side more than the
    other; rendered clubs with gaps that shallow have them on both sides. A pip sharp enough to show its stem's
    neck may curve in further (SHARP_SPADE_*): a blurred club's lobes melt, its stem with them."""
    if width_near_top(p) >= SPADE_TIP_MAX:
        return False
    dents = _upper_dents(p, 0.6)
    deepest, both = max((d for d, _ in dents), default=0.0), _both_sides(dents)
    if deepest < CLUB_DENT_MAX and both < SPADE_GAPS_MAX:
        return True
    return deepest < SHARP_SPADE_DENT_MAX and both < SHARP_SPADE_GAPS_MAX and stem_neck(p) < STEM_NECK_MAX


def stem_neck(p: np.ndarray, top: float = 0.65, bottom: float = 0.95) -> float:
    """The narrowest ink row between `top` and `bottom` of the pip's height with a row at least as wide below it, as
    a fraction of the pip's width: a stem drawn sharply is a narrow neck above its foot (0.1-0.3); a blurred pip's
    bottom is a blob (0.4 and over); a pip narrowing to a point has no row below as wide (1.0, no neck)."""
    rows = _row_extents(p)
    if rows is None:
        return 1.0
    w, h, inked, left, right = rows
    lower = slice(int(top * h), h)
    # rows without ink are no neck (a pip is one blob; a gap is damage)
    widths = (right - left + 1)[lower][inked[lower]]
    band = int(bottom * h) - int(top * h)
    below = np.maximum.accumulate(widths[::-1])[::-1]  # the widest row from each row down
    necks = [widths[j] for j in range(min(band, len(widths) - 1)) if below[j + 1] >= widths[j]]
    return float(min(necks)) / float(w) if necks else 1.0


def _box(blob: Blob, ux: float, uy: float) -> tuple[float, float, float, float]:
    """The blob's extent (left, right, top, bottom) in an index frame with "down" along (ux, uy)."""
    return _extent(blob.pts, 0.0, 0.0, ux, uy)


def _solid_parts(frame: Frame, blob: Blob, reach: float) -> list[np.ndarray]:
    """Pixel coordinates of the ink parts within `reach` of `blob`'s centre that `find_blobs` set aside as
    solid (filling over `SOLID_FILL` of their box): a "1" bar printed square to the image is one, and so is a stripe of
    the tablecloth; only the bar's size and place beside a ring make it a 10's."""
    H, W = frame.labels.shape
    x0, y0 = max(0, int(blob.cx - reach)), max(0, int(blob.cy - reach))
    x1, y1 = min(W, int(blob.cx + reach) + 1), min(H, int(blob.cy + reach) + 1)
    win = frame.labels[y0:y1, x0:x1]
    ids, counts = np.unique(win, return_counts=True)
    kept = {b.idx for b in frame.blobs}
    out = []
    for i, n in zip(ids, counts):
        if i == 0 or i in kept or n < SOLID_BAR_MIN_PX:
            continue
        ys, xs = np.nonzero(win == i)
        if n > SOLID_FILL * (np.ptp(xs) + 1) * (np.ptp(ys) + 1):
            out.append(np.stack([xs + x0, ys + y0], 1).astype(np.float32))
    return out


def ten_shaped(frame: Frame, cand: Candidate) -> bool:
    """Whether the index is a 10: a ring (one counter, mid-height) with a thin upright bar about its height on its
    left. The bar is the rank's other glyph, or, for a ring offered alone, an ink blob of its colour beside it or
    a solid part (a plain bar square to the image, which is no blob)."""
    ux, uy = cand.ux, cand.uy
    boxes = sorted(((_box(b, ux, uy), b) for b in cand.rank), key=lambda t: t[0][0])
    if len(boxes) > 2:
        return False
    (r0, _, rt, rb), ring = boxes[-1]
    h = rb - rt
    counters = counter_heights(_patch(frame, (ring,), ux, uy, STROKE_PATCH)[0])
    if len(counters) != 1 or not 0.3 < counters[0] < 0.7:  # a ring's counter sits mid-glyph; a 6's or 9's does not
        return False
    if len(boxes) == 2:
        bars = [boxes[0][1].pts]
    else:
        bars = [b.pts for b in frame.blobs if b.idx != ring.idx and b.is_red == ring.is_red
                and abs(b.cx - ring.cx) < 2 * h and abs(b.cy - ring.cy) < 2 * h] + _solid_parts(frame, ring, 2 * h)
    for bar in bars:
        b0, b1, bt, bb = _extent(bar, 0.0, 0.0, ux, uy)
        bh = bb - bt
        if (TEN_BAR_HEIGHT[0] * h < bh < TEN_BAR_HEIGHT[1] * h and b1 - b0 < TEN_BAR_WIDTH_MAX * bh
                and -0.1 * h < r0 - b1 < TEN_GAP_MAX * h and  # touching, or a little overlap, counts
                abs((bt + bb) - (rt + rb)) / 2 < TEN_ALIGN_MAX * h):
            return True
    return False

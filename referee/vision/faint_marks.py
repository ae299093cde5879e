"""A closer look at a Joker's corner mark too faint to show its counters at the working size.

A lone mark (`lone_marks.mark_candidates`) must enclose `MARK_COUNTERS_MIN` counters at the working size
(384 px), where a small Joker monogram's thin strokes close up or break apart. Such a blob is looked at again
in steps, each cheap step gating a costlier one:
1. it is mark-sized but small enough not to show its counters, and its box in the full-size photo, inked by
   Otsu, encloses enough counters (`faint_blobs`);
2. the store votes it a Joker as a lone mark at the working size, at any confidence (`DeckStore.faint_joker`);
3. a crop around it at full size is found and read again (`closer_marks`); the store names a Joker
   from those marks at its usual mark cut.
docs/vision.md ("A learned deck") has the measurements that chose the steps and bounds.
"""
from __future__ import annotations

import cv2
import numpy as np

from .glyph_counters import count_enclosed
from .index_pairing import Candidate
from .ink_blobs import Blob, Frame, find_blobs
from .lone_marks import MARK_COUNTERS_MIN, MARK_MIN_EXTENT, mark_candidates

FULL_SIZE_COUNTER_AREA = 4   # px: a counter of the Otsu-inked full-size box (smaller ones are print grain)
FAINT_MAX_EXTENT = 32        # px at working size: a mark larger shows its counters there (a lone mark), not faint
CLOSER_PAD = 1.0             # the closer crop reaches this many mark extents around its centre


def faint_blobs(image: np.ndarray, frame: Frame, scale: float, skip: set[int]) -> list[Blob]:
    """Mark-size blobs of the working frame (`MARK_MIN_EXTENT` to `FAINT_MAX_EXTENT` px) not in `skip` (the caller's
    lone marks, which already enclose `MARK_COUNTERS_MIN` counters there, and blobs a reading claimed), whose box in
    the full-size `image` (working px / `scale`) encloses `MARK_COUNTERS_MIN` counters.

    The upper bound keeps court art and big pips, which enclose counters at full size too, from costing the
    store's vote: faint Joker marks are smaller than the lone marks the store names at the working size."""
    if scale >= 1.0:
        return []   # the photo was read at its own size: there is nothing finer to see
    h, w = image.shape[:2]
    out = []
    for b in frame.blobs:
        if b.idx in skip or not MARK_MIN_EXTENT <= max(b.w, b.h) <= FAINT_MAX_EXTENT:
            continue
        x0, y0 = int(b.x / scale), int(b.y / scale)
        x1, y1 = min(w, int((b.x + b.w) / scale) + 1), min(h, int((b.y + b.h) / scale) + 1)
        box = image[y0:y1, x0:x1]
        if box.size == 0:
            continue
        if box.ndim == 3:   # grey pixel by pixel: only the boxes looked at (~30 a photo, not the whole photo)
            box = cv2.cvtColor(box, cv2.COLOR_BGR2GRAY)
        _, ink = cv2.threshold(box, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
        if count_enclosed(ink.view(bool), FULL_SIZE_COUNTER_AREA) >= MARK_COUNTERS_MIN:
            out.append(b)
    return out


def closer_marks(image: np.ndarray, blob: Blob, scale: float) -> tuple[Frame, list[Candidate], tuple[int, int]] | None:
    """The lone marks found in a full-size crop around a working-frame blob, centred within half its extent:
    (the crop's frame, those marks, the crop's (x, y) offset in the image); None for an empty crop."""
    h, w = image.shape[:2]
    extent = max(blob.w, blob.h) / scale
    cx, cy, half = blob.cx / scale, blob.cy / scale, CLOSER_PAD * extent
    x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
    crop = image[y0:min(h, int(cy + half) + 1), x0:min(w, int(cx + half) + 1)]
    if crop.size == 0:
        return None
    frame = find_blobs(crop)
    near = [c for c in mark_candidates(frame)
            if abs(c.cx - (cx - x0)) < extent / 2 and abs(c.cy - (cy - y0)) < extent / 2]
    return frame, near, (x0, y0)

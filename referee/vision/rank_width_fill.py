"""Stretch each rank glyph's patch to be as wide as it is tall: what the width-filled twin reader sees.

Faces draw the same digit narrow or wide; filled to the same width they look alike, and the glyph's own
proportions stay in the geometry features.
"""
from __future__ import annotations

import cv2
import numpy as np

from .index_features import RANK_PATCH

FILL_INK = 0.15  # a patch column or row with a pixel above this (of 1.0) holds ink


def fill_rank_width(p: np.ndarray) -> np.ndarray:
    """A rank patch (floats 0..1, glyph centred) with an upright glyph stretched to be as wide as it is tall.

    Glyphs wider than tall are left as they are. This per-patch cv2 form is the definition the width-filled
    twin was trained with; the reader runs `fill_rank_widths`, tested against it."""
    cols = np.flatnonzero(p.max(0) > FILL_INK)
    rows = np.flatnonzero(p.max(1) > FILL_INK)
    if len(cols) < 2 or len(rows) < 2:
        return p
    x0, x1, y0, y1 = cols[0], cols[-1] + 1, rows[0], rows[-1] + 1
    w, h = x1 - x0, y1 - y0
    if w >= h:
        return p
    out = np.zeros_like(p)
    ox = (p.shape[1] - h) // 2
    out[y0:y1, ox:ox + h] = cv2.resize(p[y0:y1, x0:x1], (int(h), int(h)), interpolation=cv2.INTER_LINEAR)
    return out


def _columns(patches: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Patch n's columns cols[n] (every row), for a stack of patches, in one flat take (quicker than
    take_along_axis)."""
    m, rows, width = patches.shape
    first = (np.arange(m) * (rows * width))[:, None, None] + (np.arange(rows) * width)[None, :, None]
    return np.take(patches.reshape(-1), first + cols[:, None, :])


def fill_rank_widths(X: np.ndarray) -> np.ndarray:
    """Feature rows (as `index_features.features` makes them), every rank patch width-filled as `fill_rank_width`
    does.

    All rows at once (it is on the hot path of the default reader): rows map 1:1, and each filled column
    interpolates two glyph columns with cv2's INTER_LINEAR coordinates and clamping, in float32."""
    X = X.copy()
    side = RANK_PATCH
    patches = X[:, :side * side].reshape(len(X), side, side)
    ink = patches > FILL_INK   # thresholded once: two maxima over the float patches took twice as long
    col_ink, row_ink = np.asarray(ink.any(1)), np.asarray(ink.any(2))
    x0, x1 = col_ink.argmax(1), side - col_ink[:, ::-1].argmax(1)
    y0, y1 = row_ink.argmax(1), side - row_ink[:, ::-1].argmax(1)
    w, h = x1 - x0, y1 - y0
    todo = np.flatnonzero((col_ink.sum(1) >= 2) & (row_ink.sum(1) >= 2) & (w < h))
    if len(todo) == 0:
        return X
    x0, w, h, y0, y1 = (a[todo, None] for a in (x0, w, h, y0, y1))
    j = np.arange(side)[None, :] - (side - h) // 2  # destination column within the h-wide glyph
    fx = ((j + 0.5) * (1.0 / (h / w)) - 0.5).astype(np.float32)
    sx = np.floor(fx)
    a = fx - sx
    sx = sx.astype(np.int64)
    a[sx < 0], sx[sx < 0] = 0, 0
    at_end = sx >= w - 1
    a[at_end] = 0
    sx = np.minimum(sx, w - 1)
    left = np.clip(x0 + sx, 0, side - 1)
    right = np.clip(x0 + np.minimum(sx + 1, w - 1), 0, side - 1)
    src = patches[todo]
    filled = _columns(src, left) * (np.float32(1) - a)[:, None, :] + _columns(src, right) * a[:, None, :]
    rows = np.arange(side)[None, :]
    keep = ((j >= 0) & (j < h))[:, None, :] & ((rows >= y0) & (rows < y1))[:, :, None]
    patches[todo] = np.where(keep, filled, np.float32(0))
    X[:, :side * side] = patches.reshape(len(X), side * side)
    return X

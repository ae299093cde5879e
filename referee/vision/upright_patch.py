"""Draw a candidate's glyphs upright in the index's own frame, as small square patches.

"Upright" means the rank-to-suit direction points down the patch. The batched forms (`_extents`,
`_upright_matrices`) repeat the per-glyph arithmetic bit for bit, so a patch never depends on which path drew it.
"""
from __future__ import annotations

import functools

import cv2
import numpy as np

from .ink_blobs import Blob, Frame


def _extent(pts: np.ndarray, ox: float, oy: float, ux: float, uy: float) -> tuple[float, float, float, float]:
    """Bounding box (left, right, top, bottom) of points in the frame at (ox, oy) whose x runs along
    v = (uy, -ux) and whose y runs along u = (ux, uy)."""
    dx, dy = pts[:, 0] - ox, pts[:, 1] - oy
    a = dx * uy - dy * ux
    b = dx * ux + dy * uy
    return float(a.min()), float(a.max()) + 1, float(b.min()), float(b.max()) + 1


def _extents(pts: list[np.ndarray], ox: np.ndarray, oy: np.ndarray, ux: np.ndarray, uy: np.ndarray
             ) -> np.ndarray:
    """`_extent` of many point sets at once, bit for bit (the same float32 arithmetic, one pass over all
    points): an (n, 4) array of a0, a1, b0, b1. `features` needs two per candidate."""
    counts = np.array([len(q) for q in pts])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    allp = np.concatenate(pts)
    ex, ey, eux, euy = (np.repeat(np.asarray(v, np.float32), counts) for v in (ox, oy, ux, uy))
    dx, dy = allp[:, 0] - ex, allp[:, 1] - ey
    a = dx * euy - dy * eux
    b = dx * eux + dy * euy
    return np.stack([np.minimum.reduceat(a, starts), np.maximum.reduceat(a, starts) + np.float64(1),
                     np.minimum.reduceat(b, starts), np.maximum.reduceat(b, starts) + np.float64(1)], 1)


def _blob_mask(frame: Frame, blobs: tuple[Blob, ...]) -> tuple[np.ndarray, int, int, np.ndarray]:
    """(mask of the blobs' ink over their bounding box, x0, y0, their points)."""
    if len(blobs) == 1:   # most glyphs: their own box
        b = blobs[0]
        return (frame.labels[b.y:b.y + b.h, b.x:b.x + b.w] == b.idx).astype(np.uint8) * 255, b.x, b.y, b.pts
    x0 = min(b.x for b in blobs)
    y0 = min(b.y for b in blobs)
    x1 = max(b.x + b.w for b in blobs)
    y1 = max(b.y + b.h for b in blobs)
    sub = frame.labels[y0:y1, x0:x1]
    mask = np.zeros(sub.shape, np.uint8)
    for b in blobs:
        mask[sub == b.idx] = 255
    return mask, x0, y0, np.concatenate([b.pts for b in blobs])


def _patch(frame: Frame, blobs: tuple[Blob, ...], ux: float, uy: float, size: int
           ) -> tuple[np.ndarray, float, float]:
    """The blobs' ink drawn upright in a size x size patch (aspect kept); returns (patch, w, h)."""
    mask, x0, y0, pts = _blob_mask(frame, blobs)
    ox, oy = float(blobs[0].cx), float(blobs[0].cy)
    return _warp_upright(mask, x0, y0, ox, oy, ux, uy, _extent(pts, ox, oy, ux, uy), size)


def _cached_mask(frame: Frame, blobs: tuple[Blob, ...], cache: dict) -> tuple[np.ndarray, int, int, np.ndarray]:
    """`_blob_mask`, kept in `cache` by blob numbers: a glyph is in many pairings."""
    key = tuple(b.idx for b in blobs)
    if key not in cache:
        cache[key] = _blob_mask(frame, blobs)
    return cache[key]


def _warp_upright(mask: np.ndarray, x0: int, y0: int, ox: float, oy: float, ux: float, uy: float,
                  extent: tuple[float, float, float, float], size: int) -> tuple[np.ndarray, float, float]:
    """`_patch` once the points' extent in the glyph's frame is known."""
    a0, a1, b0, b1 = extent
    w, h = a1 - a0, b1 - b0
    k = max(w, h) / (size - 2)
    ca, cb = (a0 + a1) / 2, (b0 + b1) / 2
    vx, vy = uy, -ux
    # dst (px, py) -> src = o + (ca + (px - size/2) k) v + (cb + (py - size/2) k) u
    m = np.array([[vx * k, ux * k, ox + (ca - size / 2 * k) * vx + (cb - size / 2 * k) * ux],
                  [vy * k, uy * k, oy + (ca - size / 2 * k) * vy + (cb - size / 2 * k) * uy]], np.float32)
    m[0, 2] -= x0
    m[1, 2] -= y0
    p = cv2.warpAffine(mask, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                       borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return p, w, h


def _as_scalars(f32: np.ndarray, value: np.ndarray) -> np.ndarray:
    """`value` (float64) as a Python float meets a candidate's direction in scalar arithmetic: cast to float32
    where the direction is an np.float32 (`f32`: pair candidates; lone marks carry Python floats)."""
    return np.where(f32, value.astype(np.float32).astype(np.float64), value)


def _scalar_op(f32: np.ndarray, result: np.ndarray) -> np.ndarray:
    """A result rounded to float32 where the scalar arithmetic it stands for ran in float32 (`f32`)."""
    return np.where(f32, result.astype(np.float32).astype(np.float64), result)


def _direction_times(f32: np.ndarray, direction: np.ndarray, value: np.ndarray) -> np.ndarray:
    """A candidate's direction component times a Python float, rounded as the scalar product is."""
    return _scalar_op(f32, direction * _as_scalars(f32, value))


def _upright_matrices(extents: np.ndarray, ox: np.ndarray, oy: np.ndarray, ux: np.ndarray, uy: np.ndarray,
                      f32: np.ndarray, x0: np.ndarray, y0: np.ndarray, size: int) -> np.ndarray:
    """`_warp_upright`'s warp matrices for many glyphs at once, bit for bit: (n, 2, 3) float32. Each operation
    is rounded as the scalar code's is (float32 where a candidate's direction is an np.float32, `f32`)."""
    a0, a1, b0, b1 = extents.T
    k = np.maximum(a1 - a0, b1 - b0) / (size - 2)
    ca, cb = (a0 + a1) / 2, (b0 + b1) / 2
    t1, t2 = ca - size / 2 * k, cb - size / 2 * k
    vx, vy = uy, -ux
    mul = functools.partial(_direction_times, f32)   # a direction component times a Python float

    def add(p: np.ndarray, q: np.ndarray) -> np.ndarray:   # a Python float (or float32) plus a float32
        return _scalar_op(f32, _as_scalars(f32, p) + q)

    m = np.empty((len(k), 2, 3), np.float32)
    m[:, 0, 0], m[:, 0, 1] = mul(vx, k), mul(ux, k)
    m[:, 1, 0], m[:, 1, 1] = mul(vy, k), mul(uy, k)
    m[:, 0, 2] = _scalar_op(f32, add(ox, mul(vx, t1)) + mul(ux, t2))
    m[:, 1, 2] = _scalar_op(f32, add(oy, mul(vy, t1)) + mul(uy, t2))
    m[:, 0, 2] -= x0.astype(np.float32)
    m[:, 1, 2] -= y0.astype(np.float32)
    return m

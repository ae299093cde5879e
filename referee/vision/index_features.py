"""The feature rows the index readers see: one per candidate, its rank patch, suit patch, context patch and
geometry, all drawn in the candidate's upright frame. The readers were trained on exactly these rows."""
from __future__ import annotations

import functools

import cv2
import numpy as np

from .index_pairing import Candidate
from .ink_blobs import Frame
from .upright_patch import (_as_scalars, _cached_mask, _direction_times, _extents, _scalar_op, _upright_matrices,
                            _warp_upright)

RANK_PATCH = 20  # px side of the rank glyph's patch
SUIT_PATCH = 14  # px side of the suit pip's patch
CTX_PATCH = 10   # px side of the coarse paper-brightness patch around the index
N_GEOM = 8       # geometry numbers: glyph sizes over the rank-to-suit distance, digit count, colour, ink ratio
N_FEATURES = RANK_PATCH * RANK_PATCH + SUIT_PATCH * SUIT_PATCH + CTX_PATCH * CTX_PATCH + N_GEOM


def _context_matrices(cands: list[Candidate], f32: np.ndarray) -> np.ndarray:
    """`_context`'s warp matrices for many candidates at once, bit for bit (as `_upright_matrices`)."""
    size = CTX_PATCH
    L = np.array([cd.scale for cd in cands], np.float64)
    ux = np.array([cd.ux for cd in cands], np.float64)
    uy = np.array([cd.uy for cd in cands], np.float64)
    cx = np.array([cd.cx for cd in cands], np.float64)
    cy = np.array([cd.cy for cd in cands], np.float64)
    k = 3.2 * L / size
    vx, vy = uy, -ux
    mul = functools.partial(_direction_times, f32)
    ox = _scalar_op(f32, _as_scalars(f32, cx) + mul(ux, 0.4 * L))
    oy = _scalar_op(f32, _as_scalars(f32, cy) + mul(uy, 0.4 * L))
    m = np.empty((len(cands), 2, 3), np.float32)
    m[:, 0, 0], m[:, 0, 1] = mul(vx, k), mul(ux, k)
    m[:, 1, 0], m[:, 1, 1] = mul(vy, k), mul(uy, k)
    m[:, 0, 2] = _scalar_op(f32, ox - mul(_scalar_op(f32, vx + ux), size / 2 * k))
    m[:, 1, 2] = _scalar_op(f32, oy - mul(_scalar_op(f32, vy + uy), size / 2 * k))
    return m


def _context(frame: Frame, cand: Candidate) -> np.ndarray:
    """Paper brightness around the index (edges, neighbours), coarse, in the index's frame."""
    size, L = CTX_PATCH, cand.scale
    k = 3.2 * L / size
    ux, uy = cand.ux, cand.uy
    vx, vy = uy, -ux
    ox, oy = cand.cx + 0.4 * L * ux, cand.cy + 0.4 * L * uy
    m = np.array([[vx * k, ux * k, ox - size / 2 * k * (vx + ux)],
                  [vy * k, uy * k, oy - size / 2 * k * (vy + uy)]], np.float32)
    return cv2.warpAffine(frame.norm, m, (size, size), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def blur3(patches: np.ndarray) -> np.ndarray:
    """cv2.GaussianBlur(p, (3, 3), 0) of every uint8 patch in an (n, h, w) stack at once, bit for bit: the
    [1 2 1] / 4 kernel both ways, mirrored borders (BORDER_REFLECT_101), rounded half up."""
    q = np.pad(patches.astype(np.uint16), ((0, 0), (1, 1), (1, 1)), mode="reflect")
    h = q[:, :, :-2] + 2 * q[:, :, 1:-1] + q[:, :, 2:]
    return ((h[:, :-2] + 2 * h[:, 1:-1] + h[:, 2:] + 8) >> 4).astype(np.uint8)


def features(frame: Frame, cands: list[Candidate]) -> np.ndarray:
    """One feature row per candidate (`N_FEATURES` floats): rank patch, suit patch, context patch, geometry."""
    n = len(cands)
    X = np.zeros((n, N_FEATURES), np.float32)
    ranks = np.zeros((n, RANK_PATCH, RANK_PATCH), np.uint8)
    suits = np.zeros((n, SUIT_PATCH, SUIT_PATCH), np.uint8)
    cache: dict = {}
    at_suit, at_ctx, at_geom = RANK_PATCH ** 2, RANK_PATCH ** 2 + SUIT_PATCH ** 2, N_FEATURES - N_GEOM
    if n == 0:
        return X
    glyphs = [g for cd in cands for g in (cd.rank, (cd.suit,))]       # rank, suit, rank, suit, ...
    masks = [_cached_mask(frame, g, cache) for g in glyphs]
    ox, oy = [float(g[0].cx) for g in glyphs], [float(g[0].cy) for g in glyphs]
    ux, uy = [cd.ux for cd in cands for _ in (0, 1)], [cd.uy for cd in cands for _ in (0, 1)]
    extents = _extents([m[3] for m in masks], np.array(ox), np.array(oy), np.array(ux, np.float32),
                       np.array(uy, np.float32))
    # every warp matrix at once, each number rounded as the scalar code rounds it (`_warp_upright`, `_context`)
    f32 = np.array([isinstance(cd.ux, np.float32) and isinstance(cd.uy, np.float32) for cd in cands])
    mixed = [k for k, cd in enumerate(cands) if isinstance(cd.ux, np.float32) != isinstance(cd.uy, np.float32)]
    x0, y0 = np.array([m[1] for m in masks]), np.array([m[2] for m in masks])
    ux2, uy2, ox2, oy2 = (np.array(v, np.float64) for v in (ux, uy, ox, oy))
    at_rank, at_pip = slice(0, None, 2), slice(1, None, 2)
    rank_m, suit_m = (_upright_matrices(extents[at], ox2[at], oy2[at], ux2[at], uy2[at], f32, x0[at], y0[at], side)
                      for at, side in ((at_rank, RANK_PATCH), (at_pip, SUIT_PATCH)))
    ctx_m = _context_matrices(cands, f32)
    ctx = np.empty((n, CTX_PATCH, CTX_PATCH), np.uint8)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    for k in range(n):
        ranks[k] = cv2.warpAffine(masks[2 * k][0], rank_m[k], (RANK_PATCH, RANK_PATCH), flags=flags,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        suits[k] = cv2.warpAffine(masks[2 * k + 1][0], suit_m[k], (SUIT_PATCH, SUIT_PATCH), flags=flags,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        ctx[k] = cv2.warpAffine(frame.norm, ctx_m[k], (CTX_PATCH, CTX_PATCH),
                                flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_CONSTANT,
                                borderValue=0)
    for k in mixed:   # a hand-made candidate mixing float types: the scalar code itself
        cd = cands[k]
        ranks[k] = _warp_upright(masks[2 * k][0], masks[2 * k][1], masks[2 * k][2], ox[2 * k], oy[2 * k], cd.ux,
                                 cd.uy, tuple(extents[2 * k].tolist()), RANK_PATCH)[0]
        suits[k] = _warp_upright(masks[2 * k + 1][0], masks[2 * k + 1][1], masks[2 * k + 1][2], ox[2 * k + 1],
                                 oy[2 * k + 1], cd.ux, cd.uy, tuple(extents[2 * k + 1].tolist()), SUIT_PATCH)[0]
        ctx[k] = _context(frame, cd)
    X[:, at_ctx:at_geom] = ctx.reshape(n, -1) / 255.0
    w, h = extents[:, 1] - extents[:, 0], extents[:, 3] - extents[:, 2]
    L = np.array([cd.scale for cd in cands], np.float64)
    X[:, at_geom:] = np.column_stack([
        w[at_rank] / L, h[at_rank] / L, w[at_pip] / L, h[at_pip] / L,
        [len(cd.rank) - 1 for cd in cands],
        [min(cd.suit.red, 150) / 100.0 for cd in cands],   # the rank's colour is its suit's (`pair_candidates`)
        [cd.suit.area / max(1.0, sum(b.area for b in cd.rank)) for cd in cands],
        [min(cd.suit.red, 150) / 100.0 for cd in cands]])
    # soften stroke-width differences between fonts
    X[:, :at_suit] = blur3(ranks).reshape(n, at_suit) / 255.0
    X[:, at_suit:at_ctx] = blur3(suits).reshape(n, at_ctx - at_suit) / 255.0
    return X

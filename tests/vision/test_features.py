"""The feature rows the index readers see (`index_features.features`)."""
from __future__ import annotations

import dataclasses
import random

import cv2
import numpy as np

from referee.core.cards import Card
from referee.vision import render
from referee.vision.index_features import (CTX_PATCH, N_FEATURES, N_GEOM, RANK_PATCH, SUIT_PATCH, _context, blur3,
                                           features)
from referee.vision.index_pairing import pair_candidates
from referee.vision.ink_blobs import find_blobs
from referee.vision.lone_marks import mark_candidates
from referee.vision.upright_patch import _extent, _extents, _patch
from referee.vision.working_size import prepare


def test_the_batch_blur_is_opencvs_gaussian_blur_bit_for_bit() -> None:
    # the readers were trained on patches softened by cv2.GaussianBlur one at a time; the batch must not differ
    rng = np.random.default_rng(7)
    patches = (rng.random((64, 20, 20)) * 256).astype(np.uint8)
    patches[:8] = 0
    patches[8:16, 5:9] = 255  # hard edges, and ink touching the border
    patches[16:24, :, 0] = 255
    for stack in (patches, patches[:, :14, :14].copy()):
        expected = np.stack([cv2.GaussianBlur(p, (3, 3), 0) for p in stack])
        assert np.array_equal(blur3(stack), expected)


def test_an_image_without_candidates_has_no_feature_rows() -> None:
    frame = find_blobs(np.full((120, 120, 3), 235, np.uint8))
    assert features(frame, []).shape == (0, N_FEATURES)


def test_the_batch_extents_are_each_point_sets_extent_bit_for_bit() -> None:
    # features() measures every glyph's extent in one pass; the patches must match the one-at-a-time path
    rng = np.random.default_rng(3)
    sets = [rng.integers(0, 384, (int(rng.integers(1, 400)), 2)).astype(np.float32) for _ in range(50)]
    ox, oy = rng.random(50) * 384, rng.random(50) * 384
    angles = rng.random(50) * 2 * np.pi
    ux, uy = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    batch = _extents(sets, ox, oy, ux, uy)
    for k, pts in enumerate(sets):
        assert tuple(batch[k]) == _extent(pts, float(ox[k]), float(oy[k]), ux[k], uy[k])


def test_batch_warps_are_the_scalar_warps_bit_for_bit_whatever_float_type_a_direction_has() -> None:
    # features() builds every warp matrix at once, rounding each step as the scalar code does: float32 for a pair
    # candidate's np.float32 direction, float64 for a lone mark's Python floats (a mixed one takes the scalar path)
    img = render.random_scene(random.Random(5), [Card.parse(c) for c in ("10H", "7C", "QS", "2D")])[0]
    frame = find_blobs(prepare(img)[0])
    pairs = pair_candidates(frame)
    assert pairs and all(isinstance(c.ux, np.float32) and isinstance(c.uy, np.float32) for c in pairs)
    as_floats = [dataclasses.replace(c, ux=float(c.ux), uy=float(c.uy)) for c in pairs]
    mixed = [dataclasses.replace(c, ux=float(c.ux)) for c in pairs]
    at_suit, at_ctx = RANK_PATCH ** 2, RANK_PATCH ** 2 + SUIT_PATCH ** 2
    for cands in (pairs, as_floats, mixed, pairs + as_floats + mixed):
        X = features(frame, cands)
        for k, cd in enumerate(cands):
            rank = _patch(frame, cd.rank, cd.ux, cd.uy, RANK_PATCH)[0]
            suit = _patch(frame, (cd.suit,), cd.ux, cd.uy, SUIT_PATCH)[0]
            assert np.array_equal(X[k, :at_suit], blur3(rank[None])[0].ravel() / np.float32(255.0))
            assert np.array_equal(X[k, at_suit:at_ctx], blur3(suit[None])[0].ravel() / np.float32(255.0))
            context = (_context(frame, cd).ravel() / 255.0).astype(np.float32)
            assert np.array_equal(X[k, at_ctx:at_ctx + CTX_PATCH ** 2], context)


def test_feature_rows_match_patches_drawn_one_candidate_at_a_time() -> None:
    img = render.random_scene(random.Random(5), [Card.parse(c) for c in ("10H", "7C", "QS", "2D")])[0]
    frame = find_blobs(prepare(img)[0])
    cands = pair_candidates(frame) + mark_candidates(frame)
    assert len(cands) > 10
    X = features(frame, cands)
    for k, cd in enumerate(cands):
        rank, rw, rh = _patch(frame, cd.rank, cd.ux, cd.uy, RANK_PATCH)
        suit, sw, sh = _patch(frame, (cd.suit,), cd.ux, cd.uy, SUIT_PATCH)
        assert np.array_equal(X[k, :RANK_PATCH ** 2], blur3(rank[None])[0].ravel() / np.float32(255.0))
        assert np.array_equal(X[k, RANK_PATCH ** 2:RANK_PATCH ** 2 + SUIT_PATCH ** 2],
                              blur3(suit[None])[0].ravel() / np.float32(255.0))
        assert np.allclose(X[k, N_FEATURES - N_GEOM:N_FEATURES - N_GEOM + 4],
                           np.array([rw, rh, sw, sh]) / cd.scale)

"""The rows a deck store keeps: an image's index candidates, their embedding, and their labels.

A store keeps the vision module's index features (`index_features.features`) of every candidate on the
deck's photos: rank-over-suit pairs and lone marks (a Joker's corner monogram, `lone_marks.mark_candidates`).
Rotation and scale are already normalised by the feature extractor.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from .index_features import CTX_PATCH, RANK_PATCH, SUIT_PATCH, features
from .index_pairing import Candidate, pair_candidates
from .ink_blobs import Frame, find_blobs
from .lone_marks import is_mark, mark_candidates
from .working_size import prepare

GEOM_WEIGHT = 3.0   # the geometry features' weight against the glyph patches in an embedding
_PATCHES = RANK_PATCH * RANK_PATCH + SUIT_PATCH * SUIT_PATCH
_GEOM_AT = _PATCHES + CTX_PATCH * CTX_PATCH


class Labelled(NamedTuple):
    """One image's candidates as a store learns them: their embeddings and labels (card or "-"), and the raw
    feature rows of its rank-over-suit candidates with their labels (the adapted reader learns from those)."""

    vectors: np.ndarray
    labels: Sequence[str]
    pair_rows: np.ndarray | None = None
    pair_labels: Sequence[str] = ()


def labelled(cands: Sequence[Candidate], x: np.ndarray, names: Sequence[str]) -> Labelled:
    """`Labelled` rows of an image's candidates (`candidates()`: their feature rows `x`) named `names`."""
    marks = mark_rows(cands)
    pairs = np.flatnonzero(~marks)
    return Labelled(embed(x, marks), list(names), x[pairs], [names[int(i)] for i in pairs])


def embed(x: np.ndarray, marks: np.ndarray | None = None) -> np.ndarray:
    """Unit-length vectors of rank patch, suit patch and geometry (the paper context is left out: it follows the
    lighting, not the card). Rows of lone marks (`marks`) are turned to point the other way: every feature is
    >= 0, so a mark is at least sqrt(2) from every rank-over-suit row and only marks can name a mark (else table
    texture read as a pair of blobs can sit near a Joker's mark in a small store)."""
    e = np.hstack([x[:, :_PATCHES], x[:, _GEOM_AT:] * GEOM_WEIGHT]).astype(np.float32)
    e /= np.linalg.norm(e, axis=1, keepdims=True) + 1e-6
    if marks is not None:
        e[marks] *= -1.0
    return e


def mark_rows(cands: Sequence[Candidate]) -> np.ndarray:
    """Which candidates are lone marks (`lone_marks.mark_candidates`), for `embed`."""
    return np.array([is_mark(c) for c in cands], bool)


def candidates(image: np.ndarray, *, marks: bool = True) -> tuple[list[Candidate], np.ndarray, float, tuple[int, int]]:
    """Index candidates of a BGR image at the vision module's working size, with `marks` lone marks too (a
    Joker's corner): (candidates, feature rows, scale, (w, h) of the working image)."""
    _, cands, x, scale, size = framed_candidates(image, marks=marks)
    return cands, x, scale, size


def framed_candidates(image: np.ndarray, *, marks: bool = True
                      ) -> tuple[Frame, list[Candidate], np.ndarray, float, tuple[int, int]]:
    """`candidates`, with the blob frame they were found in first (the stock reader's shape checks need it)."""
    small, scale = prepare(image)
    frame = find_blobs(small)
    cands = pair_candidates(frame) + (mark_candidates(frame) if marks else [])
    return frame, cands, features(frame, cands), scale, (small.shape[1], small.shape[0])

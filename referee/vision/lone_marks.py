"""Offer lone marks (a Joker's monogram) as candidates: a mark has no suit pip beside it to pair with."""
from __future__ import annotations

import numpy as np

from .glyph_counters import enclosed_counters
from .index_pairing import Candidate
from .ink_blobs import Blob, Frame

MARK_COUNTERS_MIN = 3  # a monogram Joker mark encloses several counters (Bicycle's: 4-6); digits, letters, pips 0-2
MARK_MIN_EXTENT = 12  # px at working size: smaller blobs' counters are print specks and noise


def mark_candidates(frame: Frame) -> list[Candidate]:
    """Lone marks: glyph-size blobs enclosing `MARK_COUNTERS_MIN` or more counters, each offered as its own
    rank and suit, upright along its long axis both ways. A Joker's corner mark has no suit glyph beside it,
    so `pair_candidates` never offers it; a deck store learns its deck's mark from these. The stock readers
    never see them (why not: docs/vision.md, Lone marks)."""
    return lone_marks([b for b in frame.blobs
                       if max(b.w, b.h) >= MARK_MIN_EXTENT and enclosed_counters(frame, b) >= MARK_COUNTERS_MIN])


def lone_marks(blobs: list[Blob]) -> list[Candidate]:
    """Each blob offered as a lone mark (`mark_candidates`), upright along its long axis both ways."""
    out: list[Candidate] = []
    for b in blobs:
        pts = b.pts - b.pts.mean(0)
        _, vecs = np.linalg.eigh(pts.T @ pts)
        ux, uy = float(vecs[0, 1]), float(vecs[1, 1])  # the long axis: the larger eigenvalue's vector
        length = float(np.ptp(pts @ vecs[:, 1]))
        for sign in (1.0, -1.0):
            out.append(Candidate((b,), b, sign * ux, sign * uy, max(length, 1.0), b.cx, b.cy))
    return out


def is_mark(cand: Candidate) -> bool:
    """Whether the candidate is a lone mark (`mark_candidates`), not a rank over a suit."""
    return len(cand.rank) == 1 and cand.rank[0] is cand.suit

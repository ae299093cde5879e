"""Shrink a photo to the working size the index reader is tuned for."""
from __future__ import annotations

import numpy as np

from .area_shrink import shrink_area

WORK_SIDE = 384  # px on the longer side: the size the readers were trained at, and quick to read


def prepare(bgr: np.ndarray, work_side: int = WORK_SIDE) -> tuple[np.ndarray, float]:
    """Shrink so the longer side is at most `work_side` px (speed); returns (image, scale)."""
    h, w = bgr.shape[:2]
    s = min(1.0, work_side / max(h, w))
    if s < 1.0:   # OpenCV's INTER_AREA pixels, sooner (`area_shrink`)
        bgr = shrink_area(bgr, (max(1, round(w * s)), max(1, round(h * s))))
    return bgr, s

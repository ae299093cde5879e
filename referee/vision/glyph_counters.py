"""Count a glyph's counters: the regions of paper its ink encloses."""
from __future__ import annotations

import cv2
import numpy as np

from .ink_blobs import Blob, Frame


def enclosed_paper(ink: np.ndarray, min_area: int = 2) -> list[float]:
    """Centre rows (in `ink`'s pixels) of the regions of paper a boolean ink mask encloses, 4-connected and at
    least `min_area` px: a glyph's counters."""
    # a one-pixel paper border joins all outside paper into one region (copyMakeBorder: quicker than np.pad)
    paper = cv2.copyMakeBorder((~ink).view(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=1)
    _, labels, stats, centres = cv2.connectedComponentsWithStats(paper, connectivity=4)
    counter = stats[:, cv2.CC_STAT_AREA] >= min_area
    counter[0] = counter[labels[0, 0]] = False   # ink, and the paper outside
    return (centres[counter, 1] - 1.0).tolist()


def count_enclosed(ink: np.ndarray, min_area: int = 2) -> int:
    """How many counters `enclosed_paper` finds, without their centres (OpenCV's labels alone, no stats: about
    half the time, and it runs on every glyph-size blob)."""
    paper = cv2.copyMakeBorder((~ink).view(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=1)
    n, labels = cv2.connectedComponents(paper, connectivity=4)
    counter = np.bincount(labels.ravel(), minlength=n) >= min_area
    counter[0] = counter[labels[0, 0]] = False   # ink, and the paper outside
    return int(np.count_nonzero(counter))


def enclosed_counters(frame: Frame, blob: Blob) -> int:
    """How many counters (enclosed paper, at least 2 px) the blob's ink has."""
    return count_enclosed(frame.labels[blob.y:blob.y + blob.h, blob.x:blob.x + blob.w] == blob.idx)

"""Find what changed on the table: bursts of motion that settle into a new still view.

Used by camera calibration (the card dropped where the pile will be) and by deck
calibration from video (each card dealt onto the pile). A hand that reaches in
and leaves settles back to the old view and yields nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

import cv2
import numpy as np

THUMB_W = 96


@dataclass
class Change:
    """A settled change: the new still frame, where it differs from the view before, and when."""

    frame: np.ndarray
    mask: np.ndarray                 # uint8 0/255, full frame size: the largest changed area
    before: np.ndarray
    t_start_ns: int                  # first frame of the burst
    t_settled_ns: int
    frames_seen: int

    @property
    def bbox(self) -> tuple[int, int, int, int]:
        """(x, y, w, h) of the changed area."""
        x, y, w, h = cv2.boundingRect(self.mask)
        return int(x), int(y), int(w), int(h)


def _thumb(frame: np.ndarray) -> np.ndarray:
    g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h = max(1, round(THUMB_W * g.shape[0] / g.shape[1]))
    return cv2.GaussianBlur(cv2.resize(g, (THUMB_W, h), interpolation=cv2.INTER_AREA), (3, 3), 0)


def change_mask(before: np.ndarray, after: np.ndarray, *, level: int = 28, min_area: float = 0.002) -> np.ndarray:
    """The largest connected area where `after` differs from `before` (0/255, holes filled)."""
    a = cv2.GaussianBlur(before, (5, 5), 0).astype(np.int16)
    b = cv2.GaussianBlur(after, (5, 5), 0).astype(np.int16)
    diff = np.abs(a - b).max(axis=2).astype(np.uint8)
    mask = (diff > level).astype(np.uint8) * 255
    k = max(3, (min(mask.shape) // 100) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = np.zeros_like(mask)
    if n <= 1:
        return out
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[best, cv2.CC_STAT_AREA] < min_area * mask.size:
        return out
    contours, _ = cv2.findContours((labels == best).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(out, contours, -1, 255, thickness=cv2.FILLED)
    return out


def settled_changes(frames: Iterable[tuple[np.ndarray, int]], *, settle_frames: int = 3,
                    still_level: float = 2.0, start_level: float = 0.004) -> Iterator[Change]:
    """Yield each settled change against the previous still view, in order."""
    ref = ref_thumb = prev = None
    burst_t: int | None = None
    still = 0
    seen = 0
    for frame, t_ns in frames:
        seen += 1
        thumb = _thumb(frame)
        if ref is None:
            ref, ref_thumb, prev = frame, thumb, thumb
            continue
        assert ref_thumb is not None and prev is not None
        motion = float(cv2.absdiff(thumb, prev).mean())
        prev = thumb
        if burst_t is None:
            changed = float(np.count_nonzero(cv2.absdiff(thumb, ref_thumb) > 25)) / thumb.size
            if changed >= start_level or motion >= still_level:
                burst_t, still = t_ns, 0
            continue
        still = still + 1 if motion < still_level else 0
        if still < settle_frames:
            continue
        mask = change_mask(ref, frame)
        before = ref
        ref, ref_thumb, burst_t_start, burst_t = frame, thumb, burst_t, None
        if np.count_nonzero(mask):
            yield Change(frame, mask, before, burst_t_start, t_ns, seen)

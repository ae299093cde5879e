"""When the named card came to lie where it lies: its stamp, not the stamp of whatever opened the landing.

A landing is opened by the first change on the pile. That change may not be the card: a sweep taking the
pile away, or hands over it, can open it, and the card named at its end landed later. Stamping that card
at the opening would place it before slaps that came before it (a wrong ruling). So every frame of a
landing keeps its watch thumbnail and hand mask, and once the card is named its area is looked at frame to
frame: the card's own arrival is the last stretch of movement there before it came to rest. If the whole
view lay still, with the card's place showing something else (the cloth after a sweep), before that
stretch, the card arrived at the stretch's first frame; otherwise (a normal landing, whose card moves from
its first frame, wherever it entered, or a card nudged where it lay) the opening stamp stands.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

SAME_LEVEL = 25          # thumbnail levels: the watch loop's own "changed" threshold
SAME_SHARE = 0.6         # ... and the area showed the card already when this share of it was the same
MOVED_LEVEL = 15         # thumbnail levels: the watch loop's own "moving" threshold
MOVING_SHARE = 0.05      # a frame moved in the card's area when this share of its visible part changed
VISIBLE_SHARE = 0.3      # a frame whose hands hide more than the rest of the area says nothing either way


@dataclass(frozen=True)
class _Frame:
    t_ns: int
    thumb: np.ndarray     # watch thumbnail (uint8), at the settled view's exposure
    hands: np.ndarray     # skin over the pile (uint8 0/255), the thumbnail's shape


class LandingFrames:
    """The frames of the landing being read, newest last (at most `keep`: a second at 30 fps)."""

    def __init__(self, still_share: float, keep: int = 30) -> None:
        """`still_share`: the view lay still when less than this share of it moved (the watch loop's own)."""
        self.still_share = still_share
        self._frames: deque[_Frame] = deque(maxlen=keep)

    def clear(self) -> None:
        self._frames.clear()

    def add(self, t_ns: int, thumb: np.ndarray, hands: np.ndarray) -> None:
        self._frames.append(_Frame(t_ns, thumb, hands))

    def card_since(self, area: np.ndarray) -> int | None:
        """The stamp of the first frame of the last movement into the card's `area` (uint8 0/255, thumbnail
        px) straight after the whole view lay still with something else in the area (the cloth after a sweep);
        None when no such stillness came first (a normal landing moves from its first frame; a card nudged
        where it lay keeps its landing's stamp)."""
        frames = list(self._frames)
        inside = area > 0
        total = int(np.count_nonzero(inside))
        if total == 0 or len(frames) < 2:
            return None
        newest = frames[-1]
        arrival: int | None = None
        still_before: _Frame | None = None       # the last frame the whole view lay still, while nothing moved since
        for before, after in zip(frames, frames[1:]):
            clear = (before.hands == 0) & (after.hands == 0)
            visible = inside & clear
            seen = int(np.count_nonzero(visible))
            if seen < VISIBLE_SHARE * total:
                continue                          # hidden by hands: neither still nor moving
            moving = clear & (cv2.absdiff(after.thumb, before.thumb) > MOVED_LEVEL)
            if np.count_nonzero(moving) < self.still_share * moving.size:
                still_before = after              # nothing moved anywhere in view (a card sliding in would)
                continue
            if still_before is not None and np.count_nonzero(moving & inside) >= MOVING_SHARE * seen \
                    and not self._same(still_before, newest, inside):
                arrival = after.t_ns              # it moved in after the view lay still showing something else
            still_before = None
        return arrival

    @staticmethod
    def _same(frame: _Frame, newest: _Frame, inside: np.ndarray) -> bool:
        """Whether the area showed on `frame` what it shows now (the card already there) where no hand hides it."""
        visible = inside & (frame.hands == 0) & (newest.hands == 0)
        seen = max(1, int(np.count_nonzero(visible)))
        alike = np.count_nonzero(visible & (cv2.absdiff(frame.thumb, newest.thumb) < SAME_LEVEL))
        return bool(alike >= SAME_SHARE * seen)

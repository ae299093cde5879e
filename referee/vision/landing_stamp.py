"""When the named card came to lie where it lies: its stamp, not the stamp of whatever opened the landing.

A landing is opened by the first change on the pile. That change may not be the card: a sweep taking the
pile away, or hands over it, can open it, and the card named at its end landed later. Stamping that card
at the opening would place it before slaps that came before it (a wrong ruling). So every frame of a
landing keeps its watch thumbnail and hand mask, and once the card is named its stamp is the earliest frame
from which, on every frame up to the naming one, the card's area looked as it does now where no hand hid
it. The card's paper is bright against any cloth (the thumbnails keep each pixel's least channel), so a
frame that showed the table there, after a sweep, ends the run (almost none of the area the same), while a
card still sliding in already covers a good part of its final place (it starts about half a card's width
away and decelerates, tabletop/scene_render.py `_slide`), so a normal landing keeps its opening stamp.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

SAME_LEVEL = 25          # thumbnail levels: the watch loop's own "changed" threshold
SAME_SHARE = 0.25        # a frame with less of the area the same showed something else there (the table)
VISIBLE_SHARE = 0.3      # a frame whose hands hide more than the rest of the area says nothing either way


@dataclass(frozen=True)
class _Frame:
    t_ns: int
    thumb: np.ndarray     # watch thumbnail (uint8), at the settled view's exposure
    hands: np.ndarray     # skin over the pile (uint8 0/255), the thumbnail's shape


class LandingFrames:
    """The frames of the landing being read, newest last (at most `keep`: a second at 30 fps)."""

    def __init__(self, keep: int = 30) -> None:
        self._frames: deque[_Frame] = deque(maxlen=keep)

    def clear(self) -> None:
        self._frames.clear()

    def add(self, t_ns: int, thumb: np.ndarray, hands: np.ndarray) -> None:
        self._frames.append(_Frame(t_ns, thumb, hands))

    def card_since(self, area: np.ndarray) -> int | None:
        """The stamp of the earliest frame of the unbroken run, ending at the newest frame, in which the card's
        `area` (uint8 0/255, thumbnail px) looked as it does on the newest one; None without frames."""
        if not self._frames:
            return None
        newest = self._frames[-1]
        inside = area > 0
        total = int(np.count_nonzero(inside))
        since = newest.t_ns
        if total == 0:
            return since
        for frame in reversed(self._frames):
            visible = inside & (frame.hands == 0) & (newest.hands == 0)
            seen = int(np.count_nonzero(visible))
            if seen < VISIBLE_SHARE * total:
                continue              # hidden by hands: neither the card nor not the card
            diff = np.abs(frame.thumb.astype(np.int16) - newest.thumb.astype(np.int16))
            if np.count_nonzero(visible & (diff < SAME_LEVEL)) < SAME_SHARE * seen:
                break
            since = frame.t_ns
        return since

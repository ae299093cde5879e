"""The settled-view reader: a card is read once the pile region has been still.

A change in the pile region opens a "burst" stamped with the first changed
frame's t_ns (the first frame that showed the new card). When the region has
been still for `settle_frames`, the recognizer reads it: a card not already on
the pile becomes `CardSeen` with the burst's stamp; a card-like change that
cannot be named becomes `CardUnreadable`; an emptied pile becomes
`PileCleared`. Hands (skin over the pile) never settle a burst, so they are
never cards. `pipeline.CardPipeline` reads landings first and keeps this reader
for what a landing read cannot name.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import cv2
import numpy as np

from ..core.cards import Card
from ..core.events import CardSeen, CardUnreadable, Event, PileCleared
from .recognize import MIN_CONFIDENCE, SUIT_PARTNER, Detection, recognize
from .working_size import WORK_SIDE

# The live pipeline names cards at the still-image cut: there the rendered 52-card pile sequence is named in order
# with no wrong card, where 0.9 named a pip pair as a second card (docs/vision.md, The cut on rendered scenes).
PIPELINE_MIN_CONFIDENCE = MIN_CONFIDENCE
# a reading this sure of a card not on the pile, after a lasting change, means a card landed
UNREADABLE_HINT = 0.5
# a new card's index lies in the changed area or within this share of the region's longer side of it; the
# closer look's crop reaches twice as far (room for a glyph's surroundings), and is worth it only when it is at
# most CLOSER_MAX_SHARE of the region's longer side
CHANGE_SLACK = 0.03
CLOSER_MAX_SHARE = 0.8


def split_suit_twins(new: list[Detection]) -> tuple[list[Detection], list[Detection]]:
    """New readings split into those that stand and suit twins: one rank in a suit and in its partner (spade
    and club, heart and diamond) named in the same landing. A landing brings one card, and those two are its
    corners read two ways (rendered rows, OpenCV 5: a 6S named 6C and 6S, a 2S 2C and 2S), so neither is
    named; the landing is reported unreadable instead."""
    twins = {a.card for a in new for b in new
             if not a.card.is_joker and a.card.rank == b.card.rank and b.card.suit == SUIT_PARTNER[a.card.suit]}
    return [d for d in new if d.card not in twins], [d for d in new if d.card in twins]


@dataclass(frozen=True)
class PileRegion:
    """The pile's bounding box in frame pixels (from calibration)."""

    x: int
    y: int
    w: int
    h: int

    def crop(self, frame: np.ndarray) -> np.ndarray:
        """The pile's part of a frame (a view, not a copy)."""
        return frame[self.y:self.y + self.h, self.x:self.x + self.w]


@dataclass(frozen=True)
class ChangeBox:
    """Where a settled view differs from the one before, in region pixels, with `slack` px of tolerance."""

    x0: float
    y0: float
    x1: float
    y1: float
    slack: float

    @classmethod
    def of(cls, change_mask: np.ndarray, shape: tuple[int, ...]) -> ChangeBox | None:
        """The bounding box of a thumbnail change mask scaled to a region of `shape`; None when nothing changed
        beyond single thumbnail pixels (noise)."""
        opened = cv2.morphologyEx(change_mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        ys, xs = np.nonzero(opened)
        if not len(xs):
            return None
        h, w = shape[:2]
        sx, sy = w / change_mask.shape[1], h / change_mask.shape[0]
        return cls(xs.min() * sx, ys.min() * sy, (xs.max() + 1) * sx, (ys.max() + 1) * sy,
                   CHANGE_SLACK * max(h, w))

    def near(self, xy: tuple[float, float]) -> bool:
        """Whether a point lies in the box or within its slack: a thin index at a card's edge may change too few
        thumbnail pixels to widen the box."""
        x, y = xy
        return self.x0 - self.slack <= x <= self.x1 + self.slack and self.y0 - self.slack <= y <= self.y1 + self.slack


Recognizer = Callable[..., list[Detection]]  # (image, *, min_conf, include_unsure) like recognize()


class SettlePipeline:
    """Feed it (frame, t_ns) in capture order; it returns the events each frame completes. Reads the pile once
    the region has been still for `settle_frames` (the reader before landings were read; `CardPipeline` keeps
    it where a landing could not be read)."""

    def __init__(self, region: PileRegion | Sequence[int] | None = None, *, settle_frames: int = 3,
                 still_level: float = 2.5, change_level: float = 0.004, min_conf: float = PIPELINE_MIN_CONFIDENCE,
                 unreadable_area: float = 0.04, hand_area: float = 0.04,
                 recognizer: Recognizer = recognize) -> None:
        self.region = PileRegion(*region) if region is not None and not isinstance(region, PileRegion) else region
        self.settle_frames = settle_frames
        self.still_level = still_level
        self.change_level = change_level
        self.min_conf = min_conf
        self.unreadable_area = unreadable_area
        self.hand_area = hand_area
        self.recognizer = recognizer
        self.on_pile: Counter[Card] = Counter()
        self.reset()

    def reset(self) -> None:
        """Forget the pile (new game)."""
        self.on_pile.clear()
        self._ref: np.ndarray | None = None
        self._ref_skin: np.ndarray | None = None
        self._empty: np.ndarray | None = None
        self._empty_skin: np.ndarray | None = None
        self._prev: np.ndarray | None = None
        self._burst_t: int | None = None
        self._still = 0
        self._last_t: int | None = None

    @staticmethod
    def _thumb(img: np.ndarray) -> np.ndarray:
        """A 96 px wide grey thumbnail: motion and change are measured on it."""
        g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        return cv2.resize(g, (96, max(1, round(96 * g.shape[0] / g.shape[1]))), interpolation=cv2.INTER_AREA)

    @staticmethod
    def _skin(img: np.ndarray) -> np.ndarray:
        """A 96 px wide mask of skin-coloured pixels (YCrCb range), specks opened away."""
        small = cv2.resize(img, (96, max(1, round(96 * img.shape[0] / img.shape[1]))), interpolation=cv2.INTER_AREA)
        ycc = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)
        skin = cv2.inRange(ycc, (40, 135, 80), (245, 175, 128))
        return cv2.morphologyEx(skin, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))

    def _skin_fraction(self, img: np.ndarray) -> float:
        """Share of the region that became skin-coloured since the last settled view
        (a skin-toned table is not a hand)."""
        assert self._ref_skin is not None
        new = cv2.subtract(self._skin(img), self._ref_skin)
        if self._empty_skin is not None:  # the bare table showing again is not a hand either
            new = cv2.subtract(new, self._empty_skin)
        return float(np.count_nonzero(new)) / new.size

    def feed(self, frame: np.ndarray, t_ns: int) -> list[Event]:
        """Process one frame captured at `t_ns` (never re-stamped)."""
        if self._last_t is not None and t_ns < self._last_t:
            raise ValueError("frames must arrive in capture order")
        self._last_t = t_ns
        img = self.region.crop(frame) if self.region else frame
        thumb = self._thumb(img)
        if self._ref is None:  # the first frame is the pile as it is; read it silently
            self._ref = self._prev = thumb
            self._ref_skin = cv2.dilate(self._skin(img), np.ones((3, 3), np.uint8))
            self.on_pile.update(d.card for d in self.recognizer(img, min_conf=self.min_conf))
            self._empty = None if self.on_pile else thumb
            self._empty_skin = None if self.on_pile else self._ref_skin
            return []
        assert self._prev is not None
        motion = float(cv2.absdiff(thumb, self._prev).mean())
        self._prev = thumb
        if self._burst_t is None:
            changed = float(np.count_nonzero(cv2.absdiff(thumb, self._ref) > 25)) / thumb.size
            if changed < self.change_level and motion < self.still_level:
                return []
            self._burst_t, self._still = t_ns, 0
            return []
        self._still = self._still + 1 if motion < self.still_level else 0
        if self._still < self.settle_frames:
            return []
        if self._skin_fraction(img) > self.hand_area:
            self._still = 0  # a hand is resting over the pile: wait for it to leave
            return []
        return self._settled(img, thumb)

    def _settled(self, img: np.ndarray, thumb: np.ndarray) -> list[Event]:
        """Read the region once its burst has settled: new cards, an unreadable landing or a cleared pile."""
        t = self._burst_t
        assert t is not None and self._ref is not None
        change_mask = cv2.absdiff(thumb, self._ref) > 30
        changed = float(np.count_nonzero(change_mask)) / thumb.size
        box = ChangeBox.of(change_mask, img.shape)
        self._burst_t = None
        self._ref = thumb
        self._ref_skin = cv2.dilate(self._skin(img), np.ones((3, 3), np.uint8))
        found = self.recognizer(img, min_conf=self.min_conf)
        if box is not None and not self._new(found, box):
            # a card read in both views is one card: the crop adds only the copies the whole view did not show
            whole, shown = Counter(d.card for d in found), Counter[Card]()
            for d in self._closer_look(img, box):
                shown[d.card] += 1
                if shown[d.card] > whole[d.card]:
                    found = found + [d]
        events: list[Event] = []
        if not found and self.on_pile and changed > 0.1 and (self._looks_empty(img) or self._is_empty_table(thumb)):
            self.on_pile.clear()
            return [PileCleared(t)]
        if not found and not self.on_pile:
            self._empty, self._empty_skin = thumb, self._ref_skin
        new, torn = split_suit_twins(self._new(found, box))
        for d in new:
            events.append(CardSeen(d.card, t, d.confidence))
            self.on_pile[d.card] += 1
        if torn:
            events.append(CardUnreadable(t, max(d.confidence for d in torn)))
        elif not new and changed > self.change_level:
            # something stayed changed but nothing new can be named: a large change, or a card
            # read half-surely that is not on the pile yet (a row's new end card may change
            # little of the view), is a card that landed unreadable, never silence
            unsure = self.recognizer(img, min_conf=0.0, include_unsure=True)
            hint = max((d.confidence for d in unsure if self.on_pile[d.card] == 0 and box is not None
                        and box.near(d.center)), default=0.0)
            if changed > self.unreadable_area or hint >= UNREADABLE_HINT:
                events.append(CardUnreadable(t, hint))
        return events

    def _new(self, found: list[Detection], box: ChangeBox | None) -> list[Detection]:
        """Readings of cards not yet on the pile (as many copies of a card as it shows more than before) whose
        index lies in or near the area that changed: an index the burst left unchanged did not just land (it is
        an old card misread, or one first read now, too late for this burst's stamp)."""
        if box is None:
            return []
        seen = Counter(d.card for d in found)
        return [d for d in found if seen[d.card] > self.on_pile[d.card] and box.near(d.center)]

    def _closer_look(self, img: np.ndarray, box: ChangeBox) -> list[Detection]:
        """Readings of cards whose index lies in the changed area, read from a crop at the frame's own resolution.

        The recognizer shrinks a region larger than its working size; a slapstick row spreads small cards over a
        wide region, so a new end card's index can be too small to name surely there (rendered row, seed 8: a 3S
        at 0.65 in the whole region, 0.997 in its crop). Only indices in or near the changed area count: a card
        cut by the crop's edge is an old card and could be misread as a new one.
        """
        h, w = img.shape[:2]
        if max(h, w) <= WORK_SIDE:
            return []
        pad = 2 * box.slack
        cx0, cy0 = max(0, int(box.x0 - pad)), max(0, int(box.y0 - pad))
        cx1, cy1 = min(w, int(box.x1 + pad + 1)), min(h, int(box.y1 + pad + 1))
        if max(cx1 - cx0, cy1 - cy0) > CLOSER_MAX_SHARE * max(h, w):
            return []
        shifted = (replace(d, center=(d.center[0] + cx0, d.center[1] + cy0))
                   for d in self.recognizer(img[cy0:cy1, cx0:cx1], min_conf=self.min_conf))
        return [d for d in shifted if box.near(d.center)]

    def _is_empty_table(self, thumb: np.ndarray) -> bool:
        """Back to how the table looked with no cards on it."""
        return self._empty is not None and float(cv2.absdiff(thumb, self._empty).mean()) < 6.0

    @staticmethod
    def _looks_empty(img: np.ndarray) -> bool:
        """No card stock left in view: little bright, unsaturated area."""
        hsv = cv2.cvtColor(cv2.resize(img, (96, 96)), cv2.COLOR_BGR2HSV)
        paper = (hsv[..., 2] > 150) & (hsv[..., 1] < 60)
        return float(paper.mean()) < 0.03

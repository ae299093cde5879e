"""Frames in, card events out: watch the pile region and report what landed.

A change in the pile region opens a "burst" stamped with the first changed
frame's t_ns (the first frame that showed the new card). When the region has
been still for `settle_frames`, the recognizer reads it: a card not already on
the pile becomes `CardSeen` with the burst's stamp; a card-like change that
cannot be named becomes `CardUnreadable`; an emptied pile becomes
`PileCleared`. Hands (skin over the pile) never settle a burst, so they are
never cards.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import cv2
import numpy as np

from ..cards import Card
from ..events import CardSeen, CardUnreadable, Event, PileCleared
from . import landing
from .index_detect import WORK_SIDE
from .recognize import MIN_CONFIDENCE, SUIT_PARTNER, Detection, recognize

# The live pipeline names cards at the still-image cut (calibrated on the hard rendered validation). It
# used 0.9 while an earlier model's 0.97 dropped cards from the rendered drop sequences; with the current
# model of session 3 0.9 named a pip pair as a second, wrong card on one settle of the 52-card pile sequence;
# the current model at its 0.97 names all 52 in order, no wrong card (bench/bench_vision.py pile_sequence).
PIPELINE_MIN_CONFIDENCE = MIN_CONFIDENCE
# a reading this sure of a card not on the pile, after a lasting change, means a card landed
UNREADABLE_HINT = 0.5
# a new card's index lies in the changed area or within this share of the region's longer side of it; the
# closer look's crop reaches twice as far (room for a glyph's surroundings), and is worth it only when it is at
# most CLOSER_MAX_SHARE of the region's longer side
CHANGE_SLACK = 0.03
# a landing whose corners read as some card at least this surely, and never named, was a card (CardUnreadable);
# a swept pile changes at least this share of the region
SAW_CARD = 0.3
SWEPT_CHANGE = 0.02
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
        g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        return cv2.resize(g, (96, max(1, round(96 * g.shape[0] / g.shape[1]))), interpolation=cv2.INTER_AREA)

    @staticmethod
    def _skin(img: np.ndarray) -> np.ndarray:
        small = cv2.resize(img, (96, max(1, round(96 * img.shape[0] / img.shape[1]))), interpolation=cv2.INTER_AREA)
        ycc = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)
        skin = cv2.inRange(ycc, (40, 135, 80), (245, 175, 128))
        return cv2.morphologyEx(skin, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))

    def _skin_fraction(self, img: np.ndarray) -> float:
        """Share of the region that became skin-coloured since the last settled view
        (a skin-toned table is not a hand)."""
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
        t = self._burst_t
        assert t is not None
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


class CardPipeline(SettlePipeline):
    """Feed it (frame, t_ns[, full]) in capture order; it returns the events each frame completes.

    Reads the landing, not the still pile: while a card lands its outline is found in the change and its index
    corners are read from `full` (the camera's full-resolution frame of the same instant, any size with the
    frame's proportions; the watch frame itself when None) on the first frames it has nearly stopped, before a
    hand can cover it. `pending_since` is the stamp of the first frame of a landing not yet named or found
    unreadable (None otherwise): the arbiter need hold slaps only while it is set. What the landing read cannot
    name surely is left to the settled view, read as `SettlePipeline` does.
    """

    def __init__(self, region: PileRegion | Sequence[int] | None = None, *, still_share: float = 0.003, pending_area: float = 0.01, move_max: float = 0.12,
                 **kwargs: object) -> None:
        self.still_share = still_share
        self.pending_area = pending_area
        self.move_max = move_max
        self.cpu_read_ns = 0        # CPU spent reading landings' corners (for the bench)
        self.reads = 0
        super().__init__(region, **kwargs)  # type: ignore[arg-type]

    def reset(self) -> None:
        super().reset()
        self._pending_t: int | None = None
        self._frame_no = 0
        self._widths: list[float] = []
        self._calm: tuple[np.ndarray, int] | None = None
        self._new_landing()

    def _new_landing(self) -> None:
        self._quad: landing.CardQuad | None = None
        self._stable: landing.CardQuad | None = None
        self._evidence = landing.Evidence(self.min_conf)
        self._saw_card = False

    @property
    def pending_since(self) -> int | None:
        """t_ns of the first frame of a landing not yet named or found unreadable, else None."""
        return self._pending_t

    @property
    def card_width(self) -> float | None:
        """The cards' width in region px, learned from the landings named (None until two were)."""
        return float(np.median(self._widths)) if len(self._widths) >= 2 else None

    @staticmethod
    def _thumb(img: np.ndarray) -> np.ndarray:
        return landing.watch_thumb(img)

    @staticmethod
    def _skin(img: np.ndarray) -> np.ndarray:
        h, w = img.shape[:2]
        shape = (max(1, round(landing.WATCH_WIDTH * h / w)), landing.WATCH_WIDTH)
        skin = landing.skin_mask(landing.colour_thumb(img, shape))
        return cv2.morphologyEx(skin, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))  # not pink ink edges

    def _exposed(self, thumb: np.ndarray) -> np.ndarray:
        """`thumb` brought to the settled view's exposure (the camera's exposure and gain drift; a card or a
        hand changes far less than half the view, so the median ratio over a sample is the exposure's)."""
        ref = self._ref
        assert ref is not None
        a, b = thumb[::4, ::4].astype(np.float32), ref[::4, ::4].astype(np.float32)
        ok = (b > 20) & (b < 235) & (a > 5) & (a < 250)
        if np.count_nonzero(ok) < 0.3 * ok.size:
            return thumb
        gain = float(np.median(a[ok] / b[ok]))
        return thumb if abs(gain - 1) < 0.03 else cv2.convertScaleAbs(thumb, alpha=1 / gain)

    def feed(self, frame: np.ndarray, t_ns: int, full: np.ndarray | None = None) -> list[Event]:
        """Process one frame captured at `t_ns` (never re-stamped); `full` is the same instant at full resolution."""
        if self._last_t is not None and t_ns < self._last_t:
            raise ValueError("frames must arrive in capture order")
        self._last_t = t_ns
        self._frame_no += 1
        img = self.region.crop(frame) if self.region else frame
        thumb = self._thumb(img)
        if self._ref is None:
            super().feed(frame, t_ns)   # the first frame is the pile as it is; read it silently
            return []
        if self._burst_t is None and self._calm is None and self._quiet(thumb):
            self._prev = thumb           # the watch loop's whole cost on a still pile
            return []
        thumb = self._exposed(thumb)
        moving = cv2.absdiff(thumb, self._prev) > 15
        self._prev = thumb
        changed = cv2.absdiff(thumb, self._ref) > 25
        if self._calm is not None:
            self._absorb(img, thumb, changed, moving)
        if self._burst_t is None:
            if np.count_nonzero(changed) < self.change_level * changed.size and \
                    np.count_nonzero(moving) < self.still_share * moving.size:
                return []
            self._burst_t, self._still = t_ns, 0
            self._new_landing()
        skin = landing.hands(cv2.subtract(self._skin(img), self._ref_skin))   # a skin-toned table is no hand
        events = self._land(img, full, frame.shape, thumb, changed, skin, t_ns)
        if events:
            return events
        self._still = self._still + 1 if np.count_nonzero(moving) < self.still_share * moving.size else 0
        if self._still < self.settle_frames:
            return []
        if self._skin_fraction(img) > self.hand_area:
            self._still = 0  # a hand is resting over the pile: wait for it to leave
            return []
        return self._settle_burst(img, thumb)

    def _quiet(self, thumb: np.ndarray) -> bool:
        """Nothing changed against the settled view and nothing moved since the last frame (at this exposure)."""
        def count(other: np.ndarray, level: int) -> int:
            return cv2.countNonZero(cv2.threshold(cv2.absdiff(thumb, other), level, 255, cv2.THRESH_BINARY)[1])
        return count(self._ref, 25) < self.change_level * thumb.size and \
            count(self._prev, 15) < self.still_share * thumb.size  # type: ignore[arg-type]

    def _absorb(self, img: np.ndarray, thumb: np.ndarray, changed: np.ndarray, moving: np.ndarray) -> None:
        """Just after a landing was named: the card's last slide (inside its grown outline) is taken into the
        settled view instead of opening a burst; skin there is not (a hand arriving opens one)."""
        assert self._calm is not None and self._ref is not None
        zone, left = self._calm
        inside = (zone > 0) & ~(landing.hands(self._skin(img)) > 0)
        self._ref = np.where(inside, thumb, self._ref)
        changed &= ~inside
        moving &= ~inside
        self._calm = (zone, left - 1) if left > 1 else None

    def _land(self, img: np.ndarray, full: np.ndarray | None, frame_shape: tuple[int, ...], thumb: np.ndarray,
              changed: np.ndarray, skin: np.ndarray, t_ns: int) -> list[Event]:
        """One frame of a burst: raise the landing signal, find the newest card, read it when nearly still."""
        near_skin = cv2.dilate(skin, np.ones((3, 3), np.uint8)) > 0
        card_change = (changed & ~near_skin).astype(np.uint8) * 255
        if self._pending_t is None:
            solid = cv2.morphologyEx(card_change, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
            if np.count_nonzero(solid) < self.pending_area * solid.size:
                return []
            self._pending_t = t_ns
        scale = img.shape[1] / thumb.shape[1]
        quad = landing.find_card(card_change, scale, self.card_width)
        if quad is None and self._stable is not None and np.any(skin):
            quad = self._stable     # a hand over the card hides its outline; the card lies where it came to rest
        elif quad is None:
            return []
        else:
            prev, self._quad = self._quad, quad
            if prev is None or quad.moved(prev) > self.move_max * quad.width:
                return []
            self._stable = quad
        started = time.thread_time_ns()
        covered = [self._covered(w / np.float32(scale), skin) for w in landing.corner_windows(quad)]
        found = self._read(img, full, frame_shape, quad, covered)
        self.cpu_read_ns += time.thread_time_ns() - started
        self.reads += 1
        if found is None:
            return []
        card, conf = found
        stamp = self._pending_t
        self.on_pile[card] += 1
        self._widths = (self._widths + [min(quad.width, quad.height)])[-9:]
        grow = landing.CardQuad(quad.corners / np.float32(scale)).mask(thumb.shape, grow=2.0)
        keep = cv2.dilate(skin, np.ones((5, 5), np.uint8)) > 0
        self._ref = np.where(keep, self._ref, thumb)  # type: ignore[arg-type]
        self._calm = (grow, 4)
        self._burst_t = self._pending_t = None
        self._new_landing()
        return [CardSeen(card, stamp, conf)]

    def _read(self, img: np.ndarray, full: np.ndarray | None, frame_shape: tuple[int, ...],
              quad: landing.CardQuad, covered: list[bool]) -> tuple[Card, float] | None:
        """The index corners of `quad` no hand covers, read on this frame and added to the landing's evidence;
        its decision."""
        source, q = img, quad
        if full is not None:
            sx, sy = full.shape[1] / frame_shape[1], full.shape[0] / frame_shape[0]
            ox, oy = (self.region.x, self.region.y) if self.region else (0, 0)
            source, q = full, quad.scaled(sx, sy, ox * sx, oy * sy)
        patches = landing.corner_patches(source, q)
        for corner, patch in enumerate(patches):
            if covered[corner]:
                continue
            found = [d for d in self.recognizer(patch, min_conf=0.0, include_unsure=True)
                     if not self.on_pile[d.card] and landing.in_index(d.center, patch.shape)]
            self._saw_card |= any(d.confidence >= SAW_CARD for d in found)
            self._evidence.add(self._frame_no, corner, found)
        return self._evidence.decide()

    @staticmethod
    def _covered(window: np.ndarray, skin: np.ndarray) -> bool:
        """Whether skin lies over a corner's window (thumbnail px)."""
        m = np.zeros(skin.shape, np.uint8)
        cv2.fillConvexPoly(m, np.round(window).astype(np.int32), 255)
        inside = max(1, np.count_nonzero(m))
        return np.count_nonzero(skin & m) > landing.SKIN_IN_CORNER * inside

    def _settle_burst(self, img: np.ndarray, thumb: np.ndarray) -> list[Event]:
        """The burst has settled without a landing named: a pile swept away (no card stock left, or the bare
        table again) is PileCleared without a read; otherwise the still view is read (`SettlePipeline`),
        stamped with the landing's first frame. A card seen landing and never named is unreadable, never
        silence."""
        self._burst_t = self._pending_t or self._burst_t
        stamp, saw = self._burst_t, self._saw_card
        assert stamp is not None and self._ref is not None
        self._pending_t = None
        self._new_landing()
        changed = float(np.count_nonzero(cv2.absdiff(thumb, self._ref) > 30)) / thumb.size
        if self.on_pile and changed > SWEPT_CHANGE and (self._looks_empty(img) or self._is_empty_table(thumb)):
            self.on_pile.clear()
            self._burst_t = None
            self._ref = thumb
            self._ref_skin = cv2.dilate(self._skin(img), np.ones((3, 3), np.uint8))
            return ([CardUnreadable(stamp, 0.0)] if saw else []) + [PileCleared(stamp)]
        events = self._settled(img, thumb)
        if saw and not any(isinstance(e, (CardSeen, CardUnreadable)) for e in events):
            events.insert(0, CardUnreadable(stamp, 0.0))
        return events

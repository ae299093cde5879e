"""Frames in, card events out: watch the pile region and report what landed.

`CardPipeline` reads the landing: a change in the pile region opens a burst,
and `pending_since` holds the stamp of its first changed frame until the card
is named or found unreadable (the arbiter need hold slaps only then). The
newest card's outline is found in the change against the last settled view,
its two index corners are read from the full-resolution frame on the first
frames it has nearly stopped (`landing.py`), and the readings of corners and
frames together name it: `CardSeen` stamped with the first changed frame,
usually 67-100 ms after it, before a slapping hand arrives (or, when a sweep
or hands opened the landing, with the frame from which the named card lay
where it lies: `landing_stamp.py`, whichever reader named it). A hand (skin
reaching the region's edge) is never read as a card; a hand arriving after a
card was read does not stop it being named.

What the landing read cannot name, `SettlePipeline` (the reader before it, kept
whole) reads once the region has been still for `settle_frames`: a card not
already on the pile becomes `CardSeen` with the burst's stamp; a card-like
change that cannot be named becomes `CardUnreadable`; an emptied pile becomes
`PileCleared`. Hands never settle a burst, so they are never cards.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Sequence

import cv2
import numpy as np

from ..core.cards import Card
from ..core.events import CardSeen, CardUnreadable, Event, PileCleared
from . import landing
from .landing_stamp import LandingFrames
from .settle import (CHANGE_SLACK, CLOSER_MAX_SHARE, PIPELINE_MIN_CONFIDENCE, UNREADABLE_HINT, ChangeBox,
                     PileRegion, Recognizer, SettlePipeline, split_suit_twins)

__all__ = ["CHANGE_SLACK", "CLOSER_MAX_SHARE", "PIPELINE_MIN_CONFIDENCE", "UNREADABLE_HINT", "CardPipeline",
           "ChangeBox", "PileRegion", "Recognizer", "SettlePipeline", "split_suit_twins"]

# a landing whose corners read as some card at least this surely, and never named, was a card (CardUnreadable);
# a swept pile changes at least this share of the region
SAW_CARD = 0.3
SWEPT_CHANGE = 0.02
# a hand resting this many still frames (2 s at 30 fps) over the pile is taken into the settled view, unread
HAND_PATIENCE = 60


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
        self._vouched: int | None = getattr(self, "_vouched", None)  # a new game keeps what was promised
        self._frame_no = 0
        self._widths: list[float] = []
        self._calm: tuple[np.ndarray, int] | None = None
        self._new_landing()

    def _new_landing(self) -> None:
        self._quad: landing.CardQuad | None = None
        self._stable: landing.CardQuad | None = None
        self._evidence = landing.Evidence(self.min_conf)
        self._saw_card = False
        self._waited = 0
        self._frames = LandingFrames(self.still_share)

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
        """Process one frame captured at `t_ns` (never re-stamped); `full` is the same instant at full resolution.

        A frame fed with no landing pending vouches that nothing seen so far happened at or before it: an event
        the settled-view reader stamps earlier (a card no landing signal covered, say one dealt under a hand) is
        stamped just after the last such frame instead, so a slap judged on that promise stays judged right."""
        if self._last_t is not None and t_ns < self._last_t:
            raise ValueError("frames must arrive in capture order")
        self._last_t = t_ns
        events = self._feed(frame, t_ns, full)
        if self._vouched is not None:
            events = [replace(e, t_ns=max(e.t_ns, self._vouched + 1)) for e in events]  # type: ignore[type-var]
        if self._pending_t is None:
            self._vouched = t_ns
        return events

    def _feed(self, frame: np.ndarray, t_ns: int, full: np.ndarray | None) -> list[Event]:
        self._frame_no += 1
        img = self.region.crop(frame) if self.region else frame
        thumb = self._thumb(img)
        if self._ref is None:
            super().feed(frame, t_ns)   # the first frame is the pile as it is; read it silently
            return []
        if self._burst_t is None and self._calm is None and self._quiet(thumb):
            self._prev = thumb           # the watch loop's whole cost on a still pile
            return []
        assert self._prev is not None and self._ref_skin is not None
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
        self._frames.add(t_ns, thumb, skin)
        events = self._land(img, full, frame.shape, thumb, changed, skin, t_ns)
        if events:
            return events
        self._still = self._still + 1 if np.count_nonzero(moving) < self.still_share * moving.size else 0
        if self._still < self.settle_frames:
            return []
        if self._skin_fraction(img) > self.hand_area or landing.reaches_edge(changed):
            # a hand is resting over the pile (on a skin-toned cloth only its arm, changed up to the region's edge,
            # tells it): wait for it to leave; after HAND_PATIENCE still frames take the view as it is, naming
            # nothing in it (a card half under a hand is misread)
            self._waited += 1
            if self._waited < HAND_PATIENCE:
                self._still = 0
                return []
            return self._settle_burst(img, thumb, read=False)
        return self._settle_burst(img, thumb)

    def _quiet(self, thumb: np.ndarray) -> bool:
        """Nothing changed against the settled view and nothing moved since the last frame (at this exposure)."""
        def count(other: np.ndarray | None, level: int) -> int:
            assert other is not None
            return cv2.countNonZero(cv2.threshold(cv2.absdiff(thumb, other), level, 255, cv2.THRESH_BINARY)[1])
        return count(self._ref, 25) < self.change_level * thumb.size and \
            count(self._prev, 15) < self.still_share * thumb.size

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
        # a hand over a corner: skin, or (on a skin-toned cloth) change joined to the region's edge, as an arm is
        over = cv2.bitwise_or(skin, landing.hands(changed.astype(np.uint8) * 255))
        covered = [self._covered(w / np.float32(scale), over) for w in landing.corner_windows(quad)]
        found = self._read(img, full, frame_shape, quad, covered)
        self.cpu_read_ns += time.thread_time_ns() - started
        self.reads += 1
        if found is None:
            return []
        card, conf = found
        on_thumb = landing.CardQuad(quad.corners / np.float32(scale))
        stamp = self._arrival(self._pending_t, self._frames, on_thumb, thumb.shape)
        self.on_pile[card] += 1
        self._widths = (self._widths + [min(quad.width, quad.height)])[-9:]
        grow = on_thumb.mask(thumb.shape, grow=2.0)
        keep = cv2.dilate(over, np.ones((5, 5), np.uint8)) > 0   # hands stay out of the settled view, arms of any colour too
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
        inside = max(1, int(np.count_nonzero(m)))
        return bool(np.count_nonzero(skin & m) > landing.SKIN_IN_CORNER * inside)

    @staticmethod
    def _arrival(opened: int, frames: LandingFrames, on_thumb: landing.CardQuad, thumb_shape: tuple[int, ...]) -> int:
        """The landing's opening stamp, or the card's own arrival in its place (thumbnail px) when a sweep or
        hands opened the landing before it came (`LandingFrames.card_since`)."""
        since = frames.card_since(on_thumb.mask(thumb_shape))
        return opened if since is None else max(opened, since)

    @staticmethod
    def _arrived(events: list[Event], frames: LandingFrames, quad: landing.CardQuad | None,
                 img_shape: tuple[int, ...], thumb_shape: tuple[int, ...]) -> list[Event]:
        """The one card the settled view names, where the landing saw a card come to rest, stamped as the
        landing reader stamps its cards (`_arrival`)."""
        seen = [e for e in events if isinstance(e, CardSeen)]
        if quad is None or len(seen) != 1:
            return events
        on_thumb = landing.CardQuad(quad.corners / np.float32(img_shape[1] / thumb_shape[1]))
        stamp = CardPipeline._arrival(seen[0].t_ns, frames, on_thumb, thumb_shape)
        return [replace(e, t_ns=stamp) if e is seen[0] else e for e in events]

    def _settle_burst(self, img: np.ndarray, thumb: np.ndarray, read: bool = True) -> list[Event]:
        """The burst has settled without a landing named: a pile swept away (no card stock left, or the bare
        table again) is PileCleared without a read; otherwise the still view is read (`SettlePipeline`),
        stamped with the landing's first frame. A card seen landing and never named is unreadable, never
        silence."""
        self._burst_t = self._pending_t or self._burst_t
        stamp, saw = self._burst_t, self._saw_card
        assert stamp is not None and self._ref is not None
        frames, quad = self._frames, self._stable
        self._pending_t = None
        self._new_landing()
        changed = float(np.count_nonzero(cv2.absdiff(thumb, self._ref) > 30)) / thumb.size
        if self.on_pile and changed > SWEPT_CHANGE and (self._looks_empty(img) or self._is_empty_table(thumb)):
            self.on_pile.clear()
            self._burst_t = None
            self._ref = thumb
            self._ref_skin = cv2.dilate(self._skin(img), np.ones((3, 3), np.uint8))
            swept: list[Event] = [CardUnreadable(stamp, 0.0)] if saw else []
            return swept + [PileCleared(stamp)]
        if read:
            events = self._arrived(self._settled(img, thumb), frames, quad, img.shape, thumb.shape)
        else:
            events, self._burst_t, self._ref = [], None, thumb
            self._ref_skin = cv2.dilate(self._skin(img), np.ones((3, 3), np.uint8))
        if saw and not any(isinstance(e, (CardSeen, CardUnreadable)) for e in events):
            events.insert(0, CardUnreadable(stamp, 0.0))
        return events

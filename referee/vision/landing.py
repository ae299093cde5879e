"""Read a card as it lands: its outline in the change, its two index corners, evidence over frames.

The watch loop keeps a small grey thumbnail of the pile region (`watch_thumb`,
cheap enough for a Raspberry Pi at 30 fps). While something changes, the
newest card is the card-sized quadrilateral in the change against the last
settled view, leaving out skin (`find_card`); once it has nearly stopped
moving, its two index corners are cut upright from the camera's
full-resolution frame (`corner_patches`) and read; `Evidence` names the card
when the corners and frames agree surely enough.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import cv2
import numpy as np

from ..core.cards import Card
from .recognize import Detection

WATCH_WIDTH = 160          # thumbnail width (px) of the pile region the watch loop compares
CARD_ASPECT = (1.22, 1.62)  # long over short side of a found outline (a card is 1.4; blur and overlap widen it)
MIN_FILL = 0.55            # the change must fill this share of its rotated box: a card, not a ring or an arm
CORNER_W = 0.36            # an index corner's window: this share of the card's width across...
CORNER_H = 0.54            # ... and this share down its long side, from the card's corner
CORNER_OUT = 0.05          # and this much beyond the outline (a found outline can fall short of the card)
PATCH_CARD_W = 170         # the card's width in the upright patches (px): index ranks ~29 px tall
SKIN_IN_CORNER = 0.02      # a corner with more new skin than this (share of its window) is not read
MAX_GROUPS = 5             # the largest change groups tried (alone and in pairs) for a card's outline
INDEX_REACH = (0.75, 0.8)  # an index's centre lies within these shares of its patch's width and height


def watch_thumb(img: np.ndarray) -> np.ndarray:
    """The region as a small grey image: each pixel's least channel (card stock is white, while ink, tables and
    skin are coloured or dark, so a card shows against any cloth), 2x subsampled, then area-averaged to
    WATCH_WIDTH. ~0.1 ms for 640x480, against ~0.9 ms for a grey conversion and area shrink of the region."""
    h, w = img.shape[:2]
    step = 2 if w >= 2 * WATCH_WIDTH else 1
    sub = img[::step, ::step]
    least = np.minimum(np.minimum(sub[..., 0], sub[..., 1]), sub[..., 2]) if sub.ndim == 3 else sub
    size = (WATCH_WIDTH, max(1, round(WATCH_WIDTH * h / w)))
    return cv2.resize(least, size, interpolation=cv2.INTER_AREA)


def colour_thumb(img: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The region in colour at the thumbnail's `shape`, by plain subsampling (only for the skin test)."""
    h, w = img.shape[:2]
    fy, fx = max(1, h // shape[0]), max(1, w // shape[1])
    small = img[::fy, ::fx]
    if small.shape[:2] != tuple(shape[:2]):
        small = cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_NEAREST)
    return small


def skin_mask(small_bgr: np.ndarray) -> np.ndarray:
    """Skin-coloured pixels (uint8 0/255): hands and arms over the pile."""
    ycc = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2YCrCb)
    return cv2.inRange(ycc, (40, 135, 80), (245, 175, 128))


def hands(skin: np.ndarray) -> np.ndarray:
    """The parts of a mask (uint8 0/255) that reach the region's edge, as an arm does: of skin, the hands (a
    court card's face or a skin-toned print lies inside its card); of the change, arms of any colour."""
    n, labels = cv2.connectedComponents(skin, connectivity=8)
    if n <= 1:
        return skin
    edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    edge = edge[edge > 0]
    return (np.isin(labels, edge) * 255).astype(np.uint8)


def reaches_edge(changed: np.ndarray, least: int = 3) -> bool:
    """Whether the change (bool, thumbnail px) reaches the region's edge in `least` px or more: an arm does,
    whatever its colour, while cards land inside the pile region."""
    edge = np.concatenate([changed[0], changed[-1], changed[1:-1, 0], changed[1:-1, -1]])
    return int(np.count_nonzero(edge)) >= least


@dataclass(frozen=True)
class CardQuad:
    """A card's outline: corners (4x2, region px) in order round the card, corners[0] -> corners[1] a short
    side, so the index corners are corners[0] and corners[2]."""

    corners: np.ndarray

    @property
    def center(self) -> np.ndarray:
        return self.corners.mean(0)

    @property
    def width(self) -> float:
        return float(np.linalg.norm(self.corners[1] - self.corners[0]))

    @property
    def height(self) -> float:
        return float(np.linalg.norm(self.corners[2] - self.corners[1]))

    def moved(self, other: CardQuad) -> float:
        """How far (px) the corners moved from `other`'s (a card turned half round is the same outline)."""
        a, b = self.corners, other.corners
        return float(min(np.abs(a - b).max(), np.abs(a - np.roll(b, 2, 0)).max()))

    def scaled(self, sx: float, sy: float, dx: float = 0.0, dy: float = 0.0) -> CardQuad:
        return CardQuad((self.corners * np.array([sx, sy], np.float32) + np.array([dx, dy], np.float32)).astype(np.float32))

    def mask(self, shape: tuple[int, ...], grow: float = 0.0) -> np.ndarray:
        """The outline filled (uint8 0/255) in an image of `shape`, grown by `grow` px each way."""
        c = self.center
        pts = c + (self.corners - c) * (1 + 2 * grow / max(1.0, min(self.width, self.height)))
        m = np.zeros(shape[:2], np.uint8)
        cv2.fillConvexPoly(m, np.round(pts).astype(np.int32), 255)
        return m


def find_card(change: np.ndarray, scale: float, card_w: float | None = None) -> CardQuad | None:
    """The newest card's outline in a change mask (uint8 0/255, thumbnail px), in region px (`scale` region px
    per thumbnail px), or None. A card over old cards changes only where ink differs (its own index and pips,
    the ink it hides) and where it lies over the table, so nearby changes are grouped and the group's rotated
    box is taken: it must have a card's proportions and, when `card_w` (region px) is known, a card's size; a
    box short of a card (plain paper over paper changed nothing) is grown round its centre to the card's size.
    A group too big for a card (the card touching a hand's shadow or a glare that changed too) is eroded apart
    and looked at again. The group with the most change that fits wins."""
    clean = cv2.morphologyEx(change, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    expect = None if card_w is None else card_w / scale        # card width in thumbnail px
    found, too_big = _card_groups(clean, cv2.dilate(clean, np.ones((7, 7), np.uint8)), expect)
    if found is None and too_big:
        core = cv2.erode(clean, np.ones((3, 3), np.uint8), iterations=2)
        found, _ = _card_groups(core, cv2.dilate(core, np.ones((3, 3), np.uint8)), expect, pad=2.0)
    return None if found is None else found.scaled(scale, scale)


def _card_groups(clean: np.ndarray, groups: np.ndarray, expect: float | None, pad: float = 0.0
                 ) -> tuple[CardQuad | None, bool]:
    """`find_card` on one grouping (thumbnail px): the best fitting outline, and whether a group was too big;
    `pad` px are added round each box (what erosion took off). A card lying almost on an older one may change in
    two parts (its ends over the table, little between), so pairs of groups are tried as one too."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(groups, connectivity=8)
    parts = []
    for i in np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:MAX_GROUPS] + 1:
        x, y, w, h, _area = stats[i]
        ys, xs = np.nonzero((labels[y:y + h, x:x + w] == i) & (clean[y:y + h, x:x + w] > 0))
        if len(xs) >= 12:
            parts.append(np.column_stack([xs + x, ys + y]).astype(np.float32))
    tries = [[p] for p in parts] + [[a, b] for k, a in enumerate(parts) for b in parts[k + 1:]]
    best: tuple[int, CardQuad] | None = None
    too_big = False
    for pts in tries:
        fit, big = _fit_card(np.concatenate(pts), expect, pad)
        too_big |= big and len(pts) == 1
        count = sum(len(p) for p in pts)
        if fit is not None and (best is None or count > best[0]):
            best = (count, fit)
    return (None if best is None else best[1]), too_big


def _fit_card(pts: np.ndarray, expect: float | None, pad: float) -> tuple[CardQuad | None, bool]:
    """The card outline round changed points (thumbnail px), or None; and whether they spread too far for one."""
    hull = cv2.convexHull(pts)
    (cx, cy), (bw, bh), ang = cv2.minAreaRect(hull)
    bw, bh = bw + 1 + 2 * pad, bh + 1 + 2 * pad               # pixel centres to pixel edges
    short, long_ = min(bw, bh), max(bw, bh)
    if short < 3 or cv2.contourArea(hull) < MIN_FILL * (bw - 2 * pad) * (bh - 2 * pad):
        return None, False
    if expect is None:
        if not CARD_ASPECT[0] <= long_ / short <= CARD_ASPECT[1]:
            return None, long_ / short > CARD_ASPECT[1]
    else:
        if short > 1.2 * expect or long_ > 1.2 * 1.4 * expect:
            return None, True
        if short < 0.75 * expect or long_ < 0.75 * 1.4 * expect:
            return None, False
        grow = (max(short, expect), max(long_, 1.4 * expect))
        bw, bh = grow if bw <= bh else grow[::-1]
    box = cv2.boxPoints(((cx, cy), (bw, bh), ang)).astype(np.float32)
    if np.linalg.norm(box[1] - box[0]) > np.linalg.norm(box[2] - box[1]):
        box = np.roll(box, 1, 0)           # start on a short side
    return CardQuad(box + np.float32(0.5)), False


def corner_windows(quad: CardQuad) -> list[np.ndarray]:
    """The two index corners' windows (4x2, quad px) that `corner_patches` cuts, for a hand-over-it test."""
    out = []
    for first in (0, 2):
        p = np.roll(quad.corners, -first, 0)
        ux, uy = p[1] - p[0], (p[3] - p[0]) / 1.4
        out.append(np.array([p[0] + a * ux + b * uy for a, b in
                             ((-CORNER_OUT, -CORNER_OUT), (CORNER_W, -CORNER_OUT), (CORNER_W, CORNER_H),
                              (-CORNER_OUT, CORNER_H))], np.float32))
    return out


def corner_patches(image: np.ndarray, quad: CardQuad, card_w: int = PATCH_CARD_W) -> list[np.ndarray]:
    """The card's two index corners cut upright from `image` (quad in its px), each `card_w * CORNER_W` wide
    plus the margin: corners[0]'s and, turned half round, corners[2]'s. Each is cut at the image's own scale and
    then area-shrunk to `card_w` (a warp alone, shrinking, samples thin strokes away)."""
    q = quad.corners.astype(np.float32)
    native = max(float(card_w), quad.width)
    out = []
    for first in (0, 2):
        src = np.roll(q, -first, 0)
        W, m = native, CORNER_OUT * native
        dst = np.array([[m, m], [W + m, m], [W + m, 1.4 * W + m], [m, 1.4 * W + m]], np.float32)
        size = (round(CORNER_W * W + m), round(CORNER_H * W + m))
        patch = cv2.warpPerspective(image, cv2.getPerspectiveTransform(src, dst), size, flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
        if native > card_w:
            k = card_w / native
            patch = cv2.resize(patch, (max(1, round(size[0] * k)), max(1, round(size[1] * k))),
                               interpolation=cv2.INTER_AREA)
        out.append(patch)
    return out


def in_index(xy: tuple[float, float], shape: tuple[int, ...]) -> bool:
    """Whether a reading centred at `xy` (patch px) is where a corner's index lies: near the patch's corner, not
    an old card's index showing at its far edges."""
    w, h = shape[1], shape[0]
    return 0 <= xy[0] <= INDEX_REACH[0] * w and 0 <= xy[1] <= INDEX_REACH[1] * h


@dataclass(frozen=True)
class Reading:
    """One corner read on one frame: the card named there and how surely (none: nothing read)."""

    frame: int
    corner: int
    card: Card | None
    confidence: float


@dataclass
class Evidence:
    """Corner readings of one landing, over frames; `decide()` names the card when they agree surely enough.

    A card is named when both corners of one frame read it (one at least `sure`, the other at least `floor`),
    or one corner reads it at least `sure` on `frames_needed` frames, or at least `lone` while the other corner,
    read on the same frame, shows no index at all (a glare or a shadow over it); never while another card has
    been read at `floor` or more on any corner (the readings then disagree: the settled view decides). Only
    frames of a card that has nearly stopped are read: a card still sliding smears a spade into a club.
    """

    sure: float
    floor: float = 0.5
    frames_needed: int = 2
    lone: float = 0.999
    readings: list[Reading] = field(default_factory=list)

    def add(self, frame: int, corner: int, found: list[Detection]) -> None:
        best = max(found, key=lambda d: d.confidence, default=None)
        self.readings.append(Reading(frame, corner, best.card if best else None, best.confidence if best else 0.0))

    def rivals(self, card: Card) -> bool:
        return any(r.card is not None and r.card != card and r.confidence >= self.floor for r in self.readings)

    def decide(self) -> tuple[Card, float] | None:
        sure = [r for r in self.readings if r.card is not None and r.confidence >= self.sure]
        for r in sorted(sure, key=lambda r: -r.confidence):
            if self.rivals(r.card):  # type: ignore[arg-type]
                continue
            same_frame = [o for o in self.readings if o.frame == r.frame and o.corner != r.corner]
            other = [o for o in same_frame if o.card == r.card and o.confidence >= self.floor]
            blank = r.confidence >= self.lone and any(o.card is None for o in same_frame)
            frames = {o.frame for o in sure if o.card == r.card}
            if other or blank or len(frames) >= self.frames_needed:
                return r.card, r.confidence  # type: ignore[return-value]
        return None


Reader = Callable[[np.ndarray], list[Detection]]


def read_corners(patches: list[np.ndarray], reader: Reader, covered: list[bool]) -> list[list[Detection] | None]:
    """Each corner patch read by `reader`, or None where a hand covers it."""
    return [None if hidden else reader(p) for p, hidden in zip(patches, covered)]

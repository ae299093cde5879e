"""The project's own card renderer: draws card faces and composites them on tables.

Faces (indices, pips, simple court panels, Jokers) come from `glyphs.py` in a
few styles; scenes add perspective, shadows, lighting, glare, blur, noise and
hands. Used for tests, classifier training and the simulated camera.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import cv2
import numpy as np

from ..core.cards import Card
from .glyphs import FONTS, draw_suit, monogram_mask, paste_mask, ten_aspect, text_mask

RED = (40, 40, 205)
BLACK = (35, 30, 30)
CARD_W = 250
CARD_H = 350

# Pip positions (x, y) as fractions of the card, for ranks 2..10; y > 0.5 are drawn upside down.
_COL_L, _COL_M, _COL_R = 0.3, 0.5, 0.7
_PIPS: dict[str, list[tuple[float, float]]] = {
    "2": [(_COL_M, 0.22), (_COL_M, 0.78)],
    "3": [(_COL_M, 0.22), (_COL_M, 0.5), (_COL_M, 0.78)],
    "4": [(_COL_L, 0.22), (_COL_R, 0.22), (_COL_L, 0.78), (_COL_R, 0.78)],
    "5": [(_COL_L, 0.22), (_COL_R, 0.22), (_COL_M, 0.5), (_COL_L, 0.78), (_COL_R, 0.78)],
    "6": [(_COL_L, 0.22), (_COL_R, 0.22), (_COL_L, 0.5), (_COL_R, 0.5), (_COL_L, 0.78), (_COL_R, 0.78)],
    "7": [(_COL_L, 0.22), (_COL_R, 0.22), (_COL_M, 0.36), (_COL_L, 0.5), (_COL_R, 0.5),
          (_COL_L, 0.78), (_COL_R, 0.78)],
    "8": [(_COL_L, 0.22), (_COL_R, 0.22), (_COL_M, 0.36), (_COL_L, 0.5), (_COL_R, 0.5),
          (_COL_M, 0.64), (_COL_L, 0.78), (_COL_R, 0.78)],
    "9": [(_COL_L, 0.22), (_COL_R, 0.22), (_COL_L, 0.41), (_COL_R, 0.41), (_COL_M, 0.5),
          (_COL_L, 0.59), (_COL_R, 0.59), (_COL_L, 0.78), (_COL_R, 0.78)],
    "10": [(_COL_L, 0.22), (_COL_R, 0.22), (_COL_M, 0.32), (_COL_L, 0.41), (_COL_R, 0.41),
           (_COL_L, 0.59), (_COL_R, 0.59), (_COL_M, 0.68), (_COL_L, 0.78), (_COL_R, 0.78)],
}


JOKER_MARK_H = 1.3  # a monogram Joker mark's height in index rank heights


@dataclass(frozen=True)
class CardStyle:
    """How a deck looks: index font, sizes (fractions of card width) and paper."""

    font: int | str = cv2.FONT_HERSHEY_COMPLEX  # Hershey id, or a TrueType path (training only)
    thickness: int = 2
    rank_h: float = 0.17
    rank_w: float = 0.11      # width of one character
    suit_h: float = 0.11
    index_x: float = 0.1      # centre of the index column
    index_y: float = 0.055    # top of the rank
    gap: float = 0.025        # between rank and suit
    four_corners: bool = False
    paper: tuple[int, int, int] = (240, 246, 248)
    frame: bool = True        # thin blue frame round the centre (as on many decks)
    pip_h: float = 0.15
    stroke: tuple[int, int] = (1, 1)  # extra (vertical, horizontal) stroke weight, see glyphs.text_mask
    suit_font: str | None = None  # TrueType path for the index suit (training only); None: glyphs.draw_suit shapes
    suit_aspect: float = 1.0      # index suit width stretch (TrueType suits)
    suit_dx: float = 0.0          # index suit offset sideways from the rank's centre (fraction of card width)
    ten_w: float = 1.6            # width of "10": in single-character widths, or with ten_gap, of its natural width
    ten_gap: float | None = None  # set "10" from a narrow "1" this close to the "0" (glyph heights), see glyphs
    ten_bar: bool = False         # with ten_gap: the "1" of "10" a plain bar (no flag, no foot)
    flat_three: bool | int = False  # index "3": True a flat top bar, 2 that bar with a left serif, 3 the drawn wide light 3
    joker_mark: bool = False      # a Joker's index is one monogram mark (glyphs.monogram_mask), not the word JOKER
    red: tuple[int, int, int] = RED
    black: tuple[int, int, int] = BLACK


def rank_width(st: CardStyle, rank: str, card_w: float) -> float:
    """Width in px of the index rank `rank` on a card `card_w` px wide."""
    if rank != "10":
        return st.rank_w * card_w
    if st.ten_gap is None:
        return st.rank_w * card_w * st.ten_w
    return st.rank_h * card_w * ten_aspect(st.font, st.thickness, st.ten_gap, st.ten_bar) * st.ten_w


STYLES: dict[str, CardStyle] = {
    "classic": CardStyle(),
    "jumbo": CardStyle(font=cv2.FONT_HERSHEY_TRIPLEX, rank_h=0.21, rank_w=0.13, suit_h=0.14,
                       index_x=0.115, thickness=3),
    "simple": CardStyle(font=cv2.FONT_HERSHEY_SIMPLEX, thickness=3, frame=False, paper=(232, 238, 240)),
    "vienna": CardStyle(font=cv2.FONT_HERSHEY_DUPLEX, rank_h=0.13, rank_w=0.09, suit_h=0.08,
                        index_x=0.085, four_corners=True, frame=False, paper=(220, 228, 232)),
}


def random_style(rng: random.Random) -> CardStyle:
    """A random deck look, for training and augmentation."""
    rank_h = rng.uniform(0.12, 0.22)
    return CardStyle(
        font=rng.choice(FONTS), thickness=rng.choice((1, 1, 1, 2, 2, 3, 4)), rank_h=rank_h,
        stroke=rng.choice(((1, 1), (1, 1), (rng.randint(3, 12), rng.randint(1, 4)))),
        rank_w=rank_h * rng.uniform(0.5, 0.8), suit_h=rank_h * rng.uniform(0.5, 0.8),
        index_x=rng.uniform(0.08, 0.13), index_y=rng.uniform(0.04, 0.07), gap=rng.uniform(0.01, 0.04),
        four_corners=rng.random() < 0.3,
        paper=tuple(int(rng.uniform(205, 252)) for _ in range(3)),  # type: ignore[arg-type]
        frame=rng.random() < 0.5, pip_h=rng.uniform(0.12, 0.17))


def _mark_aspect(st: CardStyle) -> float:
    """A monogram Joker mark's width over height: narrow or wide as the deck's rank glyphs (0.37-0.64)."""
    return 0.75 * st.rank_w / st.rank_h


def _draw_index(img: np.ndarray, card: Card, st: CardStyle, color: tuple[int, ...],
                flip: bool, right: bool = False) -> None:
    W, H = img.shape[1], img.shape[0]
    cx = (1 - st.index_x if right else st.index_x) * W
    if flip:
        cx = W - cx
    rh = st.rank_h * W
    if card.is_joker and st.joker_mark:
        mh = rh * JOKER_MARK_H
        m = monogram_mask(st.thickness, mh * _mark_aspect(st), mh)
        y = st.index_y * W
        paste_mask(img, m, int(cx - m.shape[1] / 2), int(H - y - mh) if flip else int(y), color, flip=flip)
        return
    if card.is_joker:
        lh = rh * 0.55
        y = st.index_y * W
        for ch in "JOKER":
            m = text_mask(ch, st.font, st.thickness, st.rank_w * W * 0.8, lh, st.stroke)
            yy = int(H - y - lh) if flip else int(y)
            paste_mask(img, m, int(cx - m.shape[1] / 2), yy, color, flip=flip)
            y += lh * 1.2
        return
    m = text_mask(card.rank, st.font, st.thickness, rank_width(st, card.rank, W), rh, st.stroke,
                  st.flat_three, st.ten_gap, st.ten_bar)
    y = st.index_y * W
    yy = int(H - y - rh) if flip else int(y)
    paste_mask(img, m, int(cx - m.shape[1] / 2), yy, color, flip=flip)
    sy = y + rh + st.gap * W + st.suit_h * W / 2
    sx = cx + (-st.suit_dx if flip else st.suit_dx) * W
    draw_suit(img, card.suit, (sx, H - sy if flip else sy), st.suit_h * W, color, flip=flip,
              font=st.suit_font, aspect=st.suit_aspect)


def _draw_court(img: np.ndarray, card: Card, st: CardStyle, color: tuple[int, ...], rng: random.Random) -> None:
    W, H = img.shape[1], img.shape[0]
    x0, y0, x1, y1 = int(0.24 * W), int(0.16 * H), int(0.76 * W), int(0.84 * H)
    cv2.rectangle(img, (x0, y0), (x1, y1), (170, 90, 40), 2, cv2.LINE_AA)
    palette = [(40, 160, 220), (160, 60, 40), (40, 40, 190), (60, 140, 60), (30, 30, 30)]
    for band in range(6):  # a simple robe of coloured bands, mirrored top/bottom
        c = palette[(band + len(card.rank)) % len(palette)]
        yy = y0 + 8 + band * (y1 - y0) // 14
        cv2.rectangle(img, (x0 + 6, yy), (x1 - 6, yy + (y1 - y0) // 30), c, -1)
        cv2.rectangle(img, (x0 + 6, y1 - (yy - y0) - (y1 - y0) // 30), (x1 - 6, y1 - (yy - y0)), c, -1)
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    cv2.circle(img, (cx, cy - (y1 - y0) // 5), (x1 - x0) // 6, (150, 190, 235), -1, cv2.LINE_AA)
    cv2.circle(img, (cx, cy + (y1 - y0) // 5), (x1 - x0) // 6, (150, 190, 235), -1, cv2.LINE_AA)
    m = text_mask(card.rank, cv2.FONT_HERSHEY_TRIPLEX, 3, (x1 - x0) * 0.35, (y1 - y0) * 0.18)
    paste_mask(img, m, cx - m.shape[1] // 2, cy - m.shape[0] // 2, color)
    draw_suit(img, card.suit, (x0 + 0.18 * (x1 - x0), y0 + 0.12 * (y1 - y0)), st.pip_h * W * 0.6, color)


def _draw_joker(img: np.ndarray, color: tuple[int, ...]) -> None:
    W, H = img.shape[1], img.shape[0]
    cx, cy = W // 2, H // 2
    hat = np.array([[cx - 60, cy], [cx - 80, cy - 70], [cx - 20, cy - 30], [cx, cy - 90],
                    [cx + 20, cy - 30], [cx + 80, cy - 70], [cx + 60, cy]], np.int32)
    cv2.fillPoly(img, [hat], color, cv2.LINE_AA)
    cv2.circle(img, (cx, cy + 45), 42, (150, 190, 235), -1, cv2.LINE_AA)
    cv2.ellipse(img, (cx, cy + 55), (20, 10), 0, 0, 180, color, 3, cv2.LINE_AA)


def render_card(card: Card, style: CardStyle | None = None, *, rng: random.Random | None = None,
                width: int = CARD_W) -> np.ndarray:
    """A card face as a BGR image `width` x 1.4*`width` (corners are cut by `card_mask`)."""
    st = style or STYLES["classic"]
    rng = rng or random.Random(0)
    W, H = CARD_W, CARD_H
    img = np.empty((H, W, 3), np.uint8)
    img[:] = st.paper
    color = st.red if card.suit in ("H", "D") or (card.is_joker and rng.random() < 0.5) else st.black
    if st.frame:
        cv2.rectangle(img, (int(0.2 * W), int(0.13 * H)), (int(0.8 * W), int(0.87 * H)), (200, 120, 90), 1)
    for flip in (False, True):
        _draw_index(img, card, st, color, flip)
        if st.four_corners:
            _draw_index(img, card, st, color, flip, right=True)
    if card.is_joker:
        _draw_joker(img, color)
    elif card.is_face:
        _draw_court(img, card, st, color, rng)
    elif card.rank == "A":
        draw_suit(img, card.suit, (W / 2, H / 2), W * 0.3, color)
    else:
        for fx, fy in _PIPS[card.rank]:
            draw_suit(img, card.suit, (fx * W, fy * H), st.pip_h * W, color, flip=fy > 0.5)
    if width != W:
        img = np.asarray(cv2.resize(img, (width, int(round(width * 1.4))), interpolation=cv2.INTER_AREA))
    return img


def card_mask(width: int = CARD_W) -> np.ndarray:
    """The card outline with rounded corners (uint8 0/255) matching `render_card`."""
    h = int(round(width * 1.4))
    m = np.zeros((h, width), np.uint8)
    r = max(2, int(width * 0.05))
    cv2.rectangle(m, (r, 0), (width - 1 - r, h - 1), 255, -1)
    cv2.rectangle(m, (0, r), (width - 1, h - 1 - r), 255, -1)
    for x, y in ((r, r), (width - 1 - r, r), (r, h - 1 - r), (width - 1 - r, h - 1 - r)):
        cv2.circle(m, (x, y), r, 255, -1, cv2.LINE_AA)
    return m


def random_table(rng: random.Random, size: tuple[int, int]) -> np.ndarray:
    """A table top: felt, wood grain, cloth pattern or speckle, in random colours."""
    h, w = size
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    base = np.array([rng.randint(20, 200) for _ in range(3)], np.float32)
    kind = rng.choice(("felt", "wood", "check", "speckle"))
    img = np.ones((h, w, 3), np.float32) * base
    if kind == "felt":
        img += nrng.normal(0, 8, (h, w, 1))
    elif kind == "wood":
        y = np.arange(h, dtype=np.float32)[:, None]
        x = np.arange(w, dtype=np.float32)[None, :]
        grain = np.sin(y / rng.uniform(3, 9) + 3 * np.sin(x / rng.uniform(40, 120))) * 18
        img += grain[..., None]
    elif kind == "check":
        s = rng.randint(12, 60)
        yy, xx = np.mgrid[0:h, 0:w]
        img += (((yy // s + xx // s) % 2) * rng.uniform(-60, 60))[..., None]
    else:
        n = nrng.normal(0, 1, (h // 4 + 1, w // 4 + 1)).astype(np.float32)
        n = np.asarray(cv2.resize(n, (w, h)), np.float32)[:h, :w]
        img += n[..., None] * np.array([rng.uniform(10, 50) for _ in range(3)], np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


@dataclass
class Placement:
    """Where one card lies in a scene: centre (px), width (px), angle (deg), tilt."""

    card: Card
    center: tuple[float, float]
    width: float
    angle: float
    style: CardStyle = field(default_factory=CardStyle)
    tilt: tuple[float, float] = (0.0, 0.0)  # perspective: corner offsets as fractions of width

    def quad(self) -> np.ndarray:
        """The four corners (TL, TR, BR, BL of the face) in scene pixels."""
        w, h = self.width, self.width * 1.4
        a = math.radians(self.angle)
        ca, sa = math.cos(a), math.sin(a)
        pts = []
        for i, (x, y) in enumerate(((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))):
            tx, ty = self.tilt
            x *= 1 + (tx if i in (1, 2) else -tx) * (1 if y < 0 else 1)
            y *= 1 + (ty if i in (2, 3) else -ty)
            pts.append((self.center[0] + x * ca - y * sa, self.center[1] + x * sa + y * ca))
        return np.array(pts, np.float32)


def composite(img: np.ndarray, p: Placement, *, rng: random.Random | None = None,
              shadow: float = 0.35, face: np.ndarray | None = None) -> None:
    """Draw card `p` on `img` in place, with a soft shadow under it."""
    face = face if face is not None else render_card(p.card, p.style, rng=rng)
    mask = card_mask(face.shape[1])
    src = np.array([[0, 0], [face.shape[1], 0], [face.shape[1], face.shape[0]], [0, face.shape[0]]], np.float32)
    dst = p.quad()
    H = cv2.getPerspectiveTransform(src, dst)
    size = (img.shape[1], img.shape[0])
    x0, y0 = np.floor(dst.min(0)).astype(int) - 12
    x1, y1 = np.ceil(dst.max(0)).astype(int) + 12
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(size[0], x1), min(size[1], y1)
    if x1 <= x0 or y1 <= y0:
        return
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ H
    roi_size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(face, T, roi_size, flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(mask, T, roi_size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
    roi = img[y0:y1, x0:x1].astype(np.float32)
    if shadow > 0:
        sh = cv2.GaussianBlur(np.roll(a[..., 0], (3, 3), (0, 1)), (0, 0), 3)[..., None]
        roi *= 1 - shadow * sh
    roi = np.asarray(roi * (1 - a) + warped.astype(np.float32) * a)
    img[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)


def draw_hand(img: np.ndarray, rng: random.Random, center: tuple[float, float], size: float,
              angle: float | None = None) -> None:
    """A skin-coloured hand (palm and fingers) reaching in, drawn in place."""
    ang = math.radians(angle if angle is not None else rng.uniform(0, 360))
    tone = rng.choice(((140, 170, 220), (110, 140, 200), (80, 105, 150), (60, 80, 115)))
    cx, cy = center
    layer = img.copy()
    ux, uy = math.cos(ang), math.sin(ang)
    px, py = -uy, ux
    cv2.ellipse(layer, (int(cx), int(cy)), (int(size * 0.45), int(size * 0.38)), math.degrees(ang), 0, 360,
                tone, -1, cv2.LINE_AA)
    arm_end = (int(cx - ux * size * 2), int(cy - uy * size * 2))
    cv2.line(layer, (int(cx), int(cy)), arm_end, tone, int(size * 0.6), cv2.LINE_AA)
    for k, off in enumerate((-0.3, -0.1, 0.1, 0.3)):
        bx, by = cx + px * off * size + ux * size * 0.3, cy + py * off * size + uy * size * 0.3
        ln = size * (0.5 + 0.15 * (k in (1, 2)))
        cv2.line(layer, (int(bx), int(by)), (int(bx + ux * ln), int(by + uy * ln)), tone,
                 max(2, int(size * 0.15)), cv2.LINE_AA)
    tx, ty = cx - px * 0.45 * size, cy - py * 0.45 * size
    cv2.line(layer, (int(tx), int(ty)), (int(tx + (ux - px) * 0.35 * size), int(ty + (uy - py) * 0.35 * size)),
             tone, max(2, int(size * 0.17)), cv2.LINE_AA)
    img[:] = cv2.addWeighted(layer, 1.0, img, 0.0, 0)


def finish(img: np.ndarray, rng: random.Random, *, light: float = 1.0, glare: float = 0.0,
           blur: float = 0.0, noise: float = 0.0) -> np.ndarray:
    """Camera effects: uneven light, a glare spot, defocus blur and sensor noise."""
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    if light != 1.0:
        gx, gy = rng.uniform(-1, 1), rng.uniform(-1, 1)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        grad = 1 + (light - 1) * ((xx / w - 0.5) * gx + (yy / h - 0.5) * gy)
        out *= grad[..., None] * light
    if glare > 0:
        g = np.zeros((h, w), np.float32)
        cv2.ellipse(g, (rng.randrange(w), rng.randrange(h)), (rng.randint(w // 20, w // 6), rng.randint(h // 30, h // 10)),
                    rng.uniform(0, 180), 0, 360, 1.0, -1)
        g = np.asarray(cv2.GaussianBlur(g, (0, 0), max(2, w / 60)))
        out += (g * 255 * glare)[..., None]
    if blur > 0:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), blur))
    if noise > 0:
        out += np.random.default_rng(rng.randrange(1 << 30)).normal(0, noise, out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def random_scene(rng: random.Random, cards: list[Card], *, size: int = 720,
                 style: CardStyle | None = None, hand: bool = False,
                 effects: bool = True) -> tuple[np.ndarray, list[Placement]]:
    """Cards dropped in a loose overlapping pile on a random table, bottom card first."""
    img = random_table(rng, (size, size))
    st = style or random_style(rng)
    width = rng.uniform(0.22, 0.34) * size
    cx, cy = rng.uniform(0.35, 0.65) * size, rng.uniform(0.35, 0.65) * size
    placed = []
    for card in cards:
        p = Placement(card, (cx + rng.uniform(-0.5, 0.5) * width, cy + rng.uniform(-0.5, 0.5) * width),
                      width * rng.uniform(0.95, 1.05), rng.uniform(0, 360), st,
                      (rng.uniform(-0.06, 0.06), rng.uniform(-0.06, 0.06)))
        composite(img, p, rng=rng)
        placed.append(p)
    if hand:
        draw_hand(img, rng, (rng.uniform(0.2, 0.8) * size, rng.uniform(0.2, 0.8) * size), width * 0.8)
    if effects:
        img = finish(img, rng, light=rng.uniform(0.75, 1.15), glare=rng.choice((0, 0, 0.3, 0.6)),
                     blur=rng.choice((0, 0, 0.8, 1.3)), noise=rng.uniform(0, 6))
    return img, placed


def index_layout(card: Card, st: CardStyle) -> list[tuple[tuple[float, float, float, float], tuple[float, float], float]]:
    """Where `render_card` printed each corner index, in face pixels (CARD_W x CARD_H):
    a list of (rank box x0, y0, x1, y1; suit centre; suit height). For a Joker the
    "rank" is the J of JOKER and the "suit" the O below it; for a monogram mark (`joker_mark`)
    the box is the mark's, its centre the "suit" centre and the suit height 0."""
    W, H = CARD_W, CARD_H
    out = []
    rh = st.rank_h * W
    for right in ((False, True) if st.four_corners else (False,)):
        for flip in (False, True):
            cx = (1 - st.index_x if right else st.index_x) * W
            if flip:
                cx = W - cx
            y = st.index_y * W
            if card.is_joker and st.joker_mark:  # one mark, no suit: index candidates never match it
                mh = rh * JOKER_MARK_H
                box = (cx - mh * _mark_aspect(st) / 2, y, cx + mh * _mark_aspect(st) / 2, y + mh)
                if flip:
                    box = (box[0], H - box[3], box[2], H - box[1])
                out.append((box, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), 0.0))
                continue
            if card.is_joker:
                lh = rh * 0.55
                hw = st.rank_w * W * 0.4
                box = (cx - hw, y, cx + hw, y + lh)
                sy, sh = y + lh * 1.7, lh
            else:
                hw = rank_width(st, card.rank, W) / 2
                box = (cx - hw, y, cx + hw, y + rh)
                sh = st.suit_h * W
                sy = y + rh + st.gap * W + sh / 2
            sx = cx if card.is_joker else cx + (-st.suit_dx if flip else st.suit_dx) * W
            if flip:
                box = (box[0], H - box[3], box[2], H - box[1])
                sy = H - sy
            out.append((box, (sx, sy), sh))
    return out

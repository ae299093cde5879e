"""A camera's view of the pile: the cards on it, hands over it, and what the camera does to light.

The kiosk demo's rendered camera and the fake picamera2 both draw their frames
here, so a frame is cheap: the table and the settled cards are drawn once per
pile state and cached; each frame adds only the card still landing (sliding in,
blurred by its motion during the exposure), the hands, exposure, glare, focus
and sensor noise. Cards come from the project's own renderer
(`referee.vision.render`), so the vision pipeline reads them as it reads the
simulator's.
"""
from __future__ import annotations

import math
import random
import zlib
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import cv2
import numpy as np

from referee.core.cards import Card
from referee.vision import render

#: Skin tones (BGR) the hands are drawn in, one per seat in turn.
SKIN_TONES = ((140, 170, 220), (110, 140, 200), (80, 105, 150), (60, 80, 115), (125, 155, 205), (95, 120, 170))
LANDING_NS = 90_000_000        # a dropped card slides and turns for this long before it rests
NOISE_ROWS = 61                # sensor noise: one cached map taller by this, read at a new row offset a frame


@dataclass(frozen=True)
class PileCard:
    """A card on the pile: its name, centre (fractions of the pile region), angle (degrees) and landing time."""

    card: str
    x: float = 0.5
    y: float = 0.5
    angle: float = 0.0
    landed_ns: int | None = None   # None: settled long ago


@dataclass(frozen=True)
class HandOver:
    """A hand reaching over the pile from `seat`, covering about `cover` (0..1) of the pile region."""

    seat: int
    cover: float = 0.5


@dataclass(frozen=True)
class Look:
    """What the camera does to the light: brightness (exposure x gain against a correct exposure),
    exposure time (motion blur of a landing card), glare, defocus (px) and sensor noise (grey levels)."""

    brightness: float = 1.0
    exposure_ns: int = 10_000_000
    glare: float = 0.0
    defocus: float = 0.0
    noise: float = 2.0


def pile_from(scene: Any) -> tuple[list[PileCard], list[HandOver]]:
    """Cards and hands from a world scene (objects or dicts with `cards` and `hands`): the README's
    card keys (card, x, y, angle, t_ns / t_us) and hand keys (seat, cover)."""
    def get(obj: Any, *names: str, default: Any = None) -> Any:
        for name in names:
            value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
            if value is not None:
                return value
        return default

    cards = []
    for c in get(scene, "cards", default=()) or ():
        landed = get(c, "landed_ns", "t_ns")
        cards.append(PileCard(str(get(c, "card", "name")), float(get(c, "x", default=0.5)),
                              float(get(c, "y", default=0.5)), float(get(c, "angle", default=0.0)),
                              None if landed is None else int(landed)))
    hands = [HandOver(int(get(h, "seat", default=0)), float(get(h, "cover", default=0.5)))
             for h in get(scene, "hands", default=()) or ()]
    return cards, hands


class SceneRenderer:
    """Renders pile scenes into BGR frames of `size` (w, h).

    `pile` is the pile region as fractions (x, y, w, h) of the frame; a card is
    `card_width` of the region's shorter side wide; `seats` places the hands'
    arms round the table (seat 0 at the bottom edge, then clockwise).
    """

    def __init__(self, size: tuple[int, int] = (640, 480), *, pile: Sequence[float] = (0.0, 0.0, 1.0, 1.0),
                 card_width: float = 0.3, seats: int = 4, seed: int = 0,
                 style: render.CardStyle | None = None) -> None:
        self.size = (int(size[0]), int(size[1]))
        w, h = self.size
        self.region = (pile[0] * w, pile[1] * h, pile[2] * w, pile[3] * h)
        self.card_px = card_width * min(self.region[2], self.region[3])
        self.seats = max(1, seats)
        self.seed = seed
        self.style = style or render.STYLES["classic"]
        rng = random.Random(seed)
        self.table = render.random_table(rng, (h, w))
        self._light = self._light_map(rng)
        self._glare_spot = (rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h, rng.uniform(0, 180))
        self._glare: dict[int, np.ndarray] = {}
        self._noise: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._faces: dict[str, np.ndarray] = {}
        self._mask = render.card_mask(render.CARD_W)
        self._static_key: tuple[PileCard, ...] = ()
        self._static = self.table.copy()
        self._frame_no = 0

    def __repr__(self) -> str:
        return f"SceneRenderer({self.size[0]}x{self.size[1]}, card {self.card_px:.0f} px, {len(self._static_key)} cached)"

    # -- cached parts ----------------------------------------------------------------
    def _light_map(self, rng: random.Random) -> np.ndarray:
        """Uneven light over the table as gains x128 (uint8), for one cv2.multiply a frame."""
        w, h = self.size
        gx, gy = rng.uniform(-0.25, 0.25), rng.uniform(-0.25, 0.25)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        gain = 1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
        return cv2.merge([np.clip(gain * 128, 0, 255).astype(np.uint8)] * 3)

    def _glare_map(self, level: float) -> np.ndarray:
        key = int(round(level * 20))
        if key not in self._glare:
            w, h = self.size
            spot = np.zeros((h, w), np.float32)
            x, y, ang = self._glare_spot
            cv2.ellipse(spot, (int(x), int(y)), (max(2, w // 9), max(2, h // 16)), ang, 0, 360, 1.0, -1)
            soft = cv2.GaussianBlur(spot, (0, 0), max(2.0, w / 60))
            self._glare[key] = cv2.merge([np.clip(soft * 255 * key / 20, 0, 255).astype(np.uint8)] * 3)
        return self._glare[key]

    def _noise_maps(self, level: float) -> tuple[np.ndarray, np.ndarray]:
        """Two maps of |normal| x level (uint8): one added, one subtracted, so the noise has mean zero."""
        key = int(round(level))
        if key not in self._noise:
            w, h = self.size
            nrng = np.random.default_rng(self.seed + key)
            up, down = (np.clip(np.abs(nrng.normal(0, key, (h + NOISE_ROWS, w, 3))), 0, 255).astype(np.uint8)
                        for _ in range(2))
            self._noise[key] = (up, down)
        return self._noise[key]

    def face(self, name: str) -> np.ndarray:
        """The card's face image (cached)."""
        if name not in self._faces:
            self._faces[name] = render.render_card(Card.parse(name), self.style, rng=random.Random(self.seed))
        return self._faces[name]

    def placement(self, card: PileCard, *, shift: tuple[float, float] = (0.0, 0.0), turn: float = 0.0) -> render.Placement:
        """Where `card` lies in frame pixels (optionally displaced and turned, for a card still landing)."""
        rx, ry, rw, rh = self.region
        centre = (rx + card.x * rw + shift[0], ry + card.y * rh + shift[1])
        return render.Placement(Card.parse(card.card), centre, self.card_px, card.angle + turn, self.style)

    def static_pile(self, cards: Sequence[PileCard]) -> np.ndarray:
        """The table with `cards` resting on it, bottom first; grown in place when cards were only added."""
        key = tuple(PileCard(c.card, c.x, c.y, c.angle) for c in cards)
        if key != self._static_key:
            if key[:len(self._static_key)] == self._static_key:
                img, start = self._static.copy(), len(self._static_key)
            else:
                img, start = self.table.copy(), 0
            for c in key[start:]:
                render.composite(img, self.placement(c), face=self.face(c.card))
            self._static, self._static_key = img, key
        return self._static

    # -- one frame -------------------------------------------------------------------
    def render(self, cards: Sequence[PileCard], hands: Iterable[HandOver] = (), *, t_ns: int | None = None,
               look: Look = Look()) -> np.ndarray:
        """The frame at `t_ns`: `cards` bottom first (those landed within LANDING_NS still sliding, those not
        landed yet left out), then hands."""
        if t_ns is not None:
            cards = [c for c in cards if c.landed_ns is None or c.landed_ns <= t_ns]
        landing = [i for i, c in enumerate(cards)
                   if t_ns is not None and c.landed_ns is not None and 0 <= t_ns - c.landed_ns < LANDING_NS]
        first_moving = landing[0] if landing else len(cards)
        img = self.static_pile(cards[:first_moving]).copy()
        for c in cards[first_moving:]:
            if c.landed_ns is not None and t_ns is not None and 0 <= t_ns - c.landed_ns < LANDING_NS:
                self._draw_landing(img, c, t_ns - c.landed_ns, look.exposure_ns)
            else:
                render.composite(img, self.placement(c), face=self.face(c.card))
        for hand in hands:
            self.draw_hand(img, hand)
        return self.camera(img, look)

    def render_scene(self, scene: Any, t_ns: int, look: Look = Look()) -> np.ndarray:
        """The frame of a world scene (see `pile_from`) at `t_ns`."""
        cards, hands = pile_from(scene)
        return self.render(cards, hands, t_ns=t_ns, look=look)

    def _slide(self, c: PileCard, age_ns: float) -> tuple[tuple[float, float], float, float]:
        """A landing card's displacement (px), extra turn (deg) and speed (px/ns) `age_ns` after it landed."""
        d = _rng(self.seed, c.card, c.landed_ns).uniform(0, 2 * math.pi)
        left = 1 - min(1.0, age_ns / LANDING_NS)          # decelerates to rest: offset ~ left^2
        dist = 0.6 * self.card_px * left * left
        speed = 2 * 0.6 * self.card_px * left / LANDING_NS
        return (math.cos(d) * dist, math.sin(d) * dist), 25 * left * left, speed

    def _draw_landing(self, img: np.ndarray, c: PileCard, age_ns: float, exposure_ns: int) -> None:
        """A card still moving: composited on a layer smeared along its motion over the exposure."""
        shift, turn, speed = self._slide(c, age_ns)
        p = self.placement(c, shift=shift, turn=turn)
        face = self.face(c.card)
        src = np.array([[0, 0], [face.shape[1], 0], [face.shape[1], face.shape[0]], [0, face.shape[0]]], np.float32)
        quad = p.quad()
        streak = min(speed * exposure_ns, self.card_px)
        pad = int(streak) + 4
        h, w = img.shape[:2]
        x0, y0 = (np.floor(quad.min(0)).astype(int) - pad).clip(0)
        x1, y1 = np.ceil(quad.max(0)).astype(int) + pad
        x1, y1 = min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return
        M = cv2.getPerspectiveTransform(src, (quad - np.array([x0, y0], np.float32)).astype(np.float32))
        size = (x1 - x0, y1 - y0)
        colour = cv2.warpPerspective(face, M, size, flags=cv2.INTER_LINEAR).astype(np.float32)
        alpha = cv2.warpPerspective(self._mask, M, size, flags=cv2.INTER_LINEAR).astype(np.float32) / 255
        layer: np.ndarray = np.dstack([colour * alpha[..., None], alpha])
        if streak >= 1.5:
            ang = math.atan2(shift[1], shift[0]) if shift != (0.0, 0.0) else 0.0
            layer = _smear(layer, math.cos(ang) * streak, math.sin(ang) * streak)
        roi = img[y0:y1, x0:x1].astype(np.float32)
        blended = roi * (1 - layer[..., 3:]) + layer[..., :3]
        img[y0:y1, x0:x1] = np.clip(blended, 0, 255).astype(np.uint8)

    def draw_hand(self, img: np.ndarray, hand: HandOver) -> None:
        """A skin-toned hand with its arm reaching in from `hand.seat`'s edge, drawn in place."""
        rx, ry, rw, rh = self.region
        cx, cy = rx + rw / 2, ry + rh / 2
        jitter = _rng(self.seed, hand.seat).uniform(-12, 12)
        theta = math.radians(90 + 360 * hand.seat / self.seats + jitter)
        ux, uy = math.cos(theta), math.sin(theta)      # from the pile towards the seat
        px, py = -uy, ux
        size = 0.9 * self.card_px
        reach = (min(rw, rh) / 2 + size * 0.6) * (1 - max(0.0, min(1.0, hand.cover)))
        hx, hy = cx + ux * reach, cy + uy * reach        # palm centre
        tone = SKIN_TONES[hand.seat % len(SKIN_TONES)]
        far = 2 * (img.shape[0] + img.shape[1])

        def pt(x: float, y: float) -> tuple[int, int]:
            return int(round(x)), int(round(y))

        cv2.line(img, pt(hx, hy), pt(hx + ux * far, hy + uy * far), tone, max(3, int(size * 0.55)), cv2.LINE_AA)
        cv2.ellipse(img, pt(hx, hy), (max(2, int(size * 0.42)), max(2, int(size * 0.36))),
                    math.degrees(theta), 0, 360, tone, -1, cv2.LINE_AA)
        for k, off in enumerate((-0.27, -0.09, 0.09, 0.27)):   # fingers point at the pile
            bx, by = hx + px * off * size - ux * size * 0.3, hy + py * off * size - uy * size * 0.3
            ln = size * (0.45 + 0.12 * (k in (1, 2)))
            cv2.line(img, pt(bx, by), pt(bx - ux * ln, by - uy * ln), tone, max(2, int(size * 0.13)), cv2.LINE_AA)
        tx, ty = hx + px * 0.42 * size, hy + py * 0.42 * size
        cv2.line(img, pt(tx, ty), pt(tx + (px - ux) * 0.3 * size, ty + (py - uy) * 0.3 * size), tone,
                 max(2, int(size * 0.15)), cv2.LINE_AA)

    def camera(self, img: np.ndarray, look: Look) -> np.ndarray:
        """Uneven light and exposure, glare, defocus and sensor noise on a drawn frame (in place where possible)."""
        out = cv2.multiply(img, self._light, scale=max(0.0, look.brightness) / 128)
        if look.glare > 0:
            cv2.add(out, self._glare_map(min(1.0, look.glare)), dst=out)
        if look.defocus >= 0.3:  # a kernel of +-2 sigma: a third of OpenCV's default +-3 sigma's time, the same look
            k = 2 * math.ceil(2 * look.defocus) + 1
            out = cv2.GaussianBlur(out, (k, k), look.defocus)
        if look.noise >= 0.5:
            up, down = self._noise_maps(look.noise)
            k = (self._frame_no * 7) % NOISE_ROWS
            h = out.shape[0]
            cv2.add(out, up[k:k + h], dst=out)
            cv2.subtract(out, down[NOISE_ROWS - k:NOISE_ROWS - k + h], dst=out)
        self._frame_no += 1
        return out


def _smear(layer: np.ndarray, dx: float, dy: float, steps: int = 7) -> np.ndarray:
    """`layer` averaged over `steps` copies shifted along (dx, dy) px: motion blur, ~10x cheaper than
    a line-kernel filter2D of the same length."""
    h, w = layer.shape[:2]
    acc = np.zeros_like(layer)
    n = max(2, min(steps, int(math.hypot(dx, dy))))
    for i in range(n):
        f = i / (n - 1) - 0.5
        sx, sy = int(round(f * dx)), int(round(f * dy))
        acc[max(0, sy):h + min(0, sy), max(0, sx):w + min(0, sx)] += \
            layer[max(0, -sy):h + min(0, -sy), max(0, -sx):w + min(0, -sx)]
    return acc / n


def _rng(*parts: object) -> random.Random:
    """A generator seeded from `parts`, the same in every process (str hashes are salted per process)."""
    return random.Random(zlib.crc32(repr(parts).encode()))

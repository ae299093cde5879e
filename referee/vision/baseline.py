"""The classic Raspberry Pi card reader, kept as a measured baseline.

Threshold, find four-cornered card contours, warp each to an upright card,
cut the top-left corner, split it into rank and suit blobs and match them
against templates drawn by our own glyphs. Fragile with overlap and light.
"""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from ..core.cards import RANKS, SUITS, Card
from .glyphs import FONTS, draw_suit, text_mask
from .recognize import Detection

WARP_W, WARP_H = 200, 280
RANK_T = (40, 60)
SUIT_T = (40, 40)


@lru_cache(maxsize=1)
def _templates() -> tuple[list[tuple[str, np.ndarray]], list[tuple[str, np.ndarray]]]:
    ranks = []
    for rank in RANKS:
        for font in FONTS:
            m = text_mask(rank, font, 3, 60 if rank == "10" else 40, 60)
            ranks.append((rank, cv2.resize(m, RANK_T)))
    suits = []
    for suit in SUITS:
        m = np.zeros((80, 80), np.uint8)
        draw_suit(m, suit, (40, 40), 76, (255,))
        ys, xs = np.nonzero(m > 127)
        suits.append((suit, cv2.resize(m[ys.min():ys.max() + 1, xs.min():xs.max() + 1], SUIT_T)))
    return ranks, suits


def _order(quad: np.ndarray) -> np.ndarray:
    """Corners ordered so the card is portrait: TL, TR, BR, BL."""
    s = quad.sum(1)
    d = np.diff(quad, axis=1)[:, 0]
    tl, br, tr, bl = quad[np.argmin(s)], quad[np.argmax(s)], quad[np.argmin(d)], quad[np.argmax(d)]
    q = np.array([tl, tr, br, bl], np.float32)
    if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[3] - q[0]):
        q = np.roll(q, -1, axis=0)  # landscape: rotate so the short side is on top
    return q


def _best(glyph: np.ndarray, templates: list[tuple[str, np.ndarray]], size: tuple[int, int]) -> tuple[str, float]:
    g = cv2.resize(glyph, size)
    scores = [(float(cv2.absdiff(g, t).mean()) / 255.0, name) for name, t in templates]
    diff, name = min(scores)
    return name, diff


def recognize_baseline(image: np.ndarray, *, max_diff: float = 0.28) -> list[Detection]:
    """Cards whose whole outline is visible, named by corner template matching."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    _, th = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(th, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area_min = 0.02 * image.shape[0] * image.shape[1]
    ranks, suits = _templates()
    out: dict[Card, Detection] = {}
    for c in contours:
        if cv2.contourArea(c) < area_min:
            continue
        approx = cv2.approxPolyDP(c, 0.02 * cv2.arcLength(c, True), True)
        if len(approx) != 4:
            continue
        q = _order(approx.reshape(4, 2).astype(np.float32))
        dst = np.array([[0, 0], [WARP_W, 0], [WARP_W, WARP_H], [0, WARP_H]], np.float32)
        warp = cv2.warpPerspective(gray, cv2.getPerspectiveTransform(q, dst), (WARP_W, WARP_H))
        corner = warp[4:int(0.32 * WARP_H), 2:int(0.2 * WARP_W)]
        _, ink = cv2.threshold(corner, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
        n, lab, st, _ = cv2.connectedComponentsWithStats(ink)
        blobs = sorted((i for i in range(1, n) if st[i, 4] > 15), key=lambda i: -st[i, 4])[:3]
        if len(blobs) < 2:
            continue
        blobs = sorted(blobs[:2], key=lambda i: st[i, 1])  # rank above suit
        crops = []
        for i in blobs:
            x, y, w, h = st[i, :4]
            crops.append(((lab[y:y + h, x:x + w] == i) * 255).astype(np.uint8))
        rank, dr = _best(crops[0], ranks, RANK_T)
        suit, ds = _best(crops[1], suits, SUIT_T)
        if max(dr, ds) > max_diff:
            continue
        conf = float(1 - max(dr, ds))
        card = Card(rank, suit)
        cx, cy = q.mean(0)
        if card not in out or out[card].confidence < conf:
            out[card] = Detection(card, conf, (float(cx), float(cy)), tuple(map(tuple, q.tolist())))
    return sorted(out.values(), key=lambda d: -d.confidence)

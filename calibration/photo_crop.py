"""Find the one card in a still photo and where its corner indices are, so a deal's landings can be learned.

A deck store learns a card's corner indices where a flattened card has them
(`card_shots.index_mask`); a photo of a card lying on the table has them anywhere.
The card's outline is the largest card-shaped closed edge in the photo (a pale card
on a darker table, or the reverse), and its corners give boxes round the indices.
An image that is itself card-shaped, with no smaller card in it, is already a flattened card.
"""
from __future__ import annotations

import cv2
import numpy as np

from .card_crop import ASPECTS, card_quad

CARD_ASPECTS = (1.35, 1.75)   # a whole image that is itself a card: poker 1.40 to tarot 1.7 (a 4:3 photo is not)
MIN_SIDE = 0.1                # the card's short side, as a share of the photo's short side
FILLED = 0.9                  # the outline's hull fills this much of its rectangle (a card, not a hand)
LEVELS = 8                    # brightness cuts tried for the card's region, from Otsu's to the brightest 1%
INDEX_W, INDEX_H = 0.25, 0.3  # a corner index's rank and suit lie this far into the card (of its width, height)


def card_outline(photo: np.ndarray) -> np.ndarray | None:
    """A 0/255 mask of the largest card-shaped outline in `photo`, or None. Outlines are closed edges (a
    card on a plain table, glare beside it) and bright regions with their holes filled (a card on a
    patterned cloth, whose edges join the pattern's)."""
    gray = cv2.GaussianBlur(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    edges = cv2.dilate(cv2.Canny(gray, 40, 120), np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    otsu, _ = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    regions: list[np.ndarray] = []
    for cut in np.linspace(otsu, float(np.percentile(gray, 99)), LEVELS):   # Otsu's may split off only the ink
        _, bright = cv2.threshold(gray, float(cut), 255, cv2.THRESH_BINARY)
        regions += list(cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0])
    short = min(gray.shape)
    best: tuple[float, np.ndarray] | None = None
    for c in list(contours) + regions:
        _, (w, h), _ = cv2.minAreaRect(c)
        if min(w, h) < MIN_SIDE * short or not ASPECTS[0] <= max(w, h) / min(w, h) <= ASPECTS[1]:
            continue
        hull = cv2.convexHull(c)
        if cv2.contourArea(hull) < FILLED * w * h:
            continue
        if best is None or w * h > best[0]:
            best = (w * h, hull)
    if best is None:
        return None
    mask = np.zeros_like(gray)
    cv2.drawContours(mask, [best[1]], -1, 255, -1)
    return mask


def find_card(image: np.ndarray) -> tuple[np.ndarray, bool] | None:
    """The card's four corners in `image` (clockwise from the top-left of the portrait card) and whether
    the card is the whole image (a flattened crop); None when there is no card to find."""
    h, w = image.shape[:2]
    mask = card_outline(image)
    quad = card_quad(mask) if mask is not None and cv2.countNonZero(mask) < 0.7 * h * w else None
    if quad is not None:
        return quad, False
    ratio = max(h, w) / max(1, min(h, w))
    if not CARD_ASPECTS[0] <= ratio <= CARD_ASPECTS[1]:
        return None
    whole = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    return (np.roll(whole, -1, axis=0) if w > h else whole), True


def index_boxes(quad: np.ndarray) -> list[tuple[float, float, float, float]]:
    """Boxes (x1, y1, x2, y2) round the four corners of the card with corners `quad` where its indices are
    printed: a store learned from a photo as it is reads photos as they are."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    to_image = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
    boxes = []
    for u0, v0 in ((0.0, 0.0), (1 - INDEX_W, 0.0), (1 - INDEX_W, 1 - INDEX_H), (0.0, 1 - INDEX_H)):
        region = np.array([[[u0, v0], [u0 + INDEX_W, v0], [u0 + INDEX_W, v0 + INDEX_H], [u0, v0 + INDEX_H]]],
                          np.float32)
        pts = cv2.perspectiveTransform(region, to_image)[0]
        (x1, y1), (x2, y2) = pts.min(0), pts.max(0)
        boxes.append((float(x1), float(y1), float(x2), float(y2)))
    return boxes

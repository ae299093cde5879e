"""Cut one card out of a frame, flattened and portrait, from where the frame changed.

The card just dropped is on top, so the changed area is (most of) its outline;
its minimum-area rectangle is the card when the aspect is card-like.
"""
from __future__ import annotations

import cv2
import numpy as np

CARD_W, CARD_H = 250, 350            # the renderer's card size; the index features are scale-free
ASPECTS = (1.2, 1.75)                # long side / short side of a playing card, with slack


def card_quad(mask: np.ndarray) -> np.ndarray | None:
    """Four corners (float32, clockwise from the top-left of the portrait card) or None."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    c = max(contours, key=cv2.contourArea)
    (cx, cy), (w, h), angle = cv2.minAreaRect(c)
    if min(w, h) < 10 or not ASPECTS[0] <= max(w, h) / min(w, h) <= ASPECTS[1]:
        return None
    if cv2.contourArea(c) < 0.8 * w * h:     # not a filled rectangle: a hand, or a partial view
        return None
    box = cv2.boxPoints(((cx, cy), (w, h), angle)).astype(np.float32)
    e1, e2 = box[1] - box[0], box[2] - box[1]
    if e1[0] * e2[1] - e1[1] * e2[0] < 0:   # same turning sense as the target, or the card comes out mirrored
        box = box[::-1].copy()
    # order so that the first edge is a short one (portrait top)
    if np.linalg.norm(box[1] - box[0]) > np.linalg.norm(box[2] - box[1]):
        box = np.roll(box, -1, axis=0)
    return box


def crop_card(frame: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """The card flattened to CARD_W x CARD_H (either way up: indices are in all corners)."""
    quad = card_quad(mask)
    if quad is None:
        return None
    dst = np.array([[0, 0], [CARD_W - 1, 0], [CARD_W - 1, CARD_H - 1], [0, CARD_H - 1]], np.float32)
    m = cv2.getPerspectiveTransform(quad, dst)
    return cv2.warpPerspective(frame, m, (CARD_W, CARD_H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)

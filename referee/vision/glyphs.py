"""The project's own vector drawings of suit symbols and index text.

Shared by the card renderer (faces) and the classifier's training script
(isolated glyphs), so both draw exactly the same shapes.
"""
from __future__ import annotations

import cv2
import numpy as np

FONTS: tuple[int, ...] = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)


def _pts(center: tuple[float, float], h: float, pts: list[tuple[float, float]]) -> np.ndarray:
    cx, cy = center
    return np.array([[(cx + x * h) * 16, (cy + y * h) * 16] for x, y in pts], np.int32)


def _circle(img: np.ndarray, center: tuple[float, float], h: float, dx: float, dy: float,
            r: float, color: tuple[int, ...]) -> None:
    cx, cy = center
    cv2.circle(img, (int((cx + dx * h) * 16), int((cy + dy * h) * 16)), int(r * h * 16),
               color, -1, cv2.LINE_AA, 4)


def _heart(img: np.ndarray, c: tuple[float, float], h: float, col: tuple[int, ...], flip: bool) -> None:
    s = -1.0 if flip else 1.0
    _circle(img, c, h, -0.24, -0.22 * s, 0.265, col)
    _circle(img, c, h, 0.24, -0.22 * s, 0.265, col)
    poly = [(-0.49, -0.14 * s), (0.49, -0.14 * s), (0.0, 0.5 * s)]
    cv2.fillPoly(img, [_pts(c, h, poly)], col, cv2.LINE_AA, 4)


def draw_suit(img: np.ndarray, suit: str, center: tuple[float, float], h: float,
              color: tuple[int, ...], *, flip: bool = False, font: str | None = None,
              aspect: float = 1.0) -> None:
    """Fill a suit symbol of height `h` px centred at `center` (upside down if `flip`).
    With `font` (a TrueType path, training only) the font's own suit glyph is drawn,
    its width scaled by `aspect`."""
    if font is not None:
        m = ttf_canvas(SUIT_CHARS[suit], font)
        ys, xs = np.nonzero(m > 64)
        m = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        hh = max(2, int(round(h)))
        ww = max(2, int(round(h * aspect * m.shape[1] / m.shape[0])))
        m = cv2.resize(m, (ww, hh), interpolation=cv2.INTER_AREA)
        paste_mask(img, m, int(round(center[0] - ww / 2)), int(round(center[1] - hh / 2)), color, flip=flip)
        return
    s = -1.0 if flip else 1.0
    if suit == "D":
        poly = [(0, -0.5), (0.37, 0), (0, 0.5), (-0.37, 0)]
        cv2.fillPoly(img, [_pts(center, h, poly)], color, cv2.LINE_AA, 4)
    elif suit == "H":
        _heart(img, center, h, color, flip)
    elif suit == "S":
        cx, cy = center
        _heart(img, (cx, cy - 0.1 * h * s), h * 0.82, color, not flip)
        stem = [(0, 0.05 * s), (0.2, 0.5 * s), (-0.2, 0.5 * s)]
        cv2.fillPoly(img, [_pts(center, h, stem)], color, cv2.LINE_AA, 4)
    elif suit == "C":
        _circle(img, center, h, 0, -0.25 * s, 0.215, color)
        _circle(img, center, h, -0.245, 0.07 * s, 0.215, color)
        _circle(img, center, h, 0.245, 0.07 * s, 0.215, color)
        _circle(img, center, h, 0, 0.0, 0.12, color)
        stem = [(0, -0.05 * s), (0.19, 0.5 * s), (-0.19, 0.5 * s)]
        cv2.fillPoly(img, [_pts(center, h, stem)], color, cv2.LINE_AA, 4)
    else:
        raise ValueError(f"unknown suit {suit!r}")


SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
_TTF_CACHE: dict[tuple[str, str], np.ndarray] = {}


def ttf_canvas(text: str, path: str, px: int = 96) -> np.ndarray:
    """`text` drawn white on black from a TrueType font file, with a 20 px margin.

    Training-time only (the classifier is trained on cards drawn in real fonts):
    Pillow is imported here, so the referee itself never needs it."""
    key = (text, path)
    if key not in _TTF_CACHE:
        from PIL import Image, ImageDraw, ImageFont  # noqa: PLC0415  (training-only dependency)

        f = ImageFont.truetype(path, px)
        x0, y0, x1, y1 = f.getbbox(text)
        im = Image.new("L", (int(x1 - x0) + 40, int(y1 - y0) + 40), 0)
        ImageDraw.Draw(im).text((20 - x0, 20 - y0), text, fill=255, font=f)
        _TTF_CACHE[key] = np.asarray(im, np.uint8)
    return _TTF_CACHE[key].copy()


def _flat_top_three(m: np.ndarray, serif: bool = False) -> np.ndarray:
    """A "3" redrawn with a flat top bar and a diagonal into its lower bowl (as on many card indices);
    with `serif`, the bar spans the glyph and ends in a short downward serif at its left end."""
    h, w = m.shape
    sw = _stroke_width(m)
    out = m.copy()
    cut = int(0.44 * h)
    out[:cut] = 0
    cv2.rectangle(out, (0 if serif else int(0.08 * w), 0), (w - 1, sw - 1), 255, -1)
    if serif:
        cv2.rectangle(out, (0, 0), (max(1, sw - 1), int(0.18 * h)), 255, -1)
    cv2.line(out, (int(w - 0.6 * sw), sw // 2), (int(0.4 * w), cut + sw // 2), 255, sw, cv2.LINE_AA)
    return out


def _drawn_three(m: np.ndarray) -> np.ndarray:
    """A wide "3" of two stacked elliptic arcs in the stroke width of the font's own `m` (open at the left,
    the lower bowl the larger, the middle a point, both ends turned back), as on Bicycle-like indices."""
    h = m.shape[0]
    w = int(round(0.85 * h))
    sw = max(2, min(_stroke_width(m), round(0.07 * h)))  # such indices are light: at most 7% of the height
    out = np.zeros((h, w), np.uint8)
    r = sw / 2
    top = ((w / 2, 0.26 * h), (w / 2 - r, 0.26 * h - r))
    low = ((w / 2, 0.69 * h), (w / 2 - r, 0.31 * h - r))
    for (cx, cy), (ax, ay), a0, a1 in ((*top, 195, 455), (*low, 265, 520)):
        cv2.ellipse(out, (int(cx * 16), int(cy * 16)), (int(ax * 16), int(ay * 16)), 0, a0, a1, 255, sw,
                    cv2.LINE_AA, 4)
    return out


def _glyph_canvas(text: str, font: int | str, thickness: int) -> np.ndarray:
    """`text` drawn white on black in a Hershey font or a TrueType file, with a margin."""
    if isinstance(font, str):
        canvas = ttf_canvas(text, font)
        if thickness != 1:  # 0: thinner, 2+: bolder than the face itself
            k = 2 * abs(thickness - 1) + 1
            op = cv2.erode if thickness < 1 else cv2.dilate
            canvas = op(canvas, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    else:
        scale = 4.0
        (tw, th), base = cv2.getTextSize(text, font, scale, thickness * 4)
        canvas = np.zeros((th + base + 40, tw + 40), np.uint8)
        cv2.putText(canvas, text, (20, th + 20), font, scale, 255, thickness * 4, cv2.LINE_AA)
    return canvas


def _ink_crop(canvas: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(canvas > 64)
    return canvas[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _stroke_width(mask: np.ndarray) -> int:
    """A glyph's typical stroke width in px (twice its 90th-percentile inner distance)."""
    dt = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 3)
    return max(2, int(round(2 * np.percentile(dt[dt > 0], 90))))


def _set_ten(font: int | str, thickness: int, gap: float, bar: bool = False) -> np.ndarray:
    """ "10" set as on many card indices: a narrow "1" close beside the "0" (`gap` in glyph heights),
    not a font's tabular pair, whose "1" sits alone in a full digit width. With `bar`, the "1" is a
    plain upright bar of the "0"'s stroke width (no flag, no foot), as on Bicycle-like indices."""
    zero = _ink_crop(_glyph_canvas("0", font, thickness))
    if bar:
        one = np.full((zero.shape[0], _stroke_width(zero)), 255, np.uint8)
    else:
        one = _ink_crop(_glyph_canvas("1", font, thickness))
    h = max(one.shape[0], zero.shape[0])
    one = np.asarray(cv2.resize(one, (max(1, round(one.shape[1] * h / one.shape[0])), h), interpolation=cv2.INTER_AREA))
    zero = cv2.resize(zero, (max(1, round(zero.shape[1] * h / zero.shape[0])), h), interpolation=cv2.INTER_AREA)
    return np.hstack([one, np.zeros((h, max(1, round(gap * h))), np.uint8), zero])


def ten_aspect(font: int | str, thickness: int, gap: float, bar: bool = False) -> float:
    """Width over height of `_set_ten`'s "10" (the renderer sizes the index from it)."""
    m = _set_ten(font, thickness, gap, bar)
    return m.shape[1] / m.shape[0]


def text_mask(text: str, font: int | str, thickness: int, w: float, h: float,
              stroke: tuple[int, int] = (1, 1), flat_three: bool | int = False,
              ten_gap: float | None = None, ten_bar: bool = False) -> np.ndarray:
    """`text` drawn in a Hershey font (or a TrueType file when `font` is a path),
    stretched to exactly w x h px (uint8 0/255).
    `stroke` (kx, ky) thickens vertical/horizontal strokes unequally, like a serif face;
    `ten_gap` sets "10" from its two digits that far apart, its "1" a plain bar with `ten_bar` (see `_set_ten`)."""
    if text == "10" and ten_gap is not None:
        canvas = _set_ten(font, thickness, ten_gap, ten_bar)
    else:
        canvas = _glyph_canvas(text, font, thickness)
    if stroke != (1, 1):
        canvas = cv2.dilate(canvas, np.ones((max(1, stroke[1]), max(1, stroke[0])), np.uint8))
    canvas = _ink_crop(canvas)
    if flat_three == 3 and text == "3":
        canvas = _drawn_three(canvas)
    elif flat_three and text == "3":
        canvas = _flat_top_three(canvas, serif=flat_three == 2)
    return cv2.resize(canvas, (max(1, int(w)), max(1, int(h))), interpolation=cv2.INTER_AREA)


def monogram_mask(thickness: int, w: float, h: float, bars: int = 2) -> np.ndarray:
    """A Joker's corner mark: a thin-stroked "S" over a "U" with `bars` upright strokes through both (a
    dollar-like monogram, as some decks print instead of the word JOKER), w x h px. Drawn with arcs, not a
    font, so its counters stay open: `thickness` 1-3 sets the stroke from light to medium."""
    canvas = np.zeros((160, 100), np.uint8)
    t = 6 + max(0, min(3, thickness) - 1)
    cv2.ellipse(canvas, (50, 42), (30, 26), 0, 90, 330, 255, t, cv2.LINE_AA)     # the S's upper bowl
    cv2.ellipse(canvas, (50, 94), (30, 26), 0, -90, 150, 255, t, cv2.LINE_AA)    # and its lower bowl
    cv2.line(canvas, (20, 70), (20, 118), 255, t, cv2.LINE_AA)                   # the U's sides and foot
    cv2.line(canvas, (80, 70), (80, 118), 255, t, cv2.LINE_AA)
    cv2.ellipse(canvas, (50, 118), (30, 28), 0, 0, 180, 255, t, cv2.LINE_AA)
    xs = [50] if bars == 1 else [42, 58]
    for x in xs:
        cv2.line(canvas, (x, 4), (x, 156), 255, t, cv2.LINE_AA)
    canvas = _ink_crop(canvas)
    return cv2.resize(canvas, (max(1, int(w)), max(1, int(h))), interpolation=cv2.INTER_AREA)


def paste_mask(img: np.ndarray, mask: np.ndarray, x: int, y: int, color: tuple[int, ...],
               *, flip: bool = False) -> None:
    """Ink `img` with `color` where `mask` is set, top-left at (x, y); rotated 180 if `flip`."""
    if flip:
        mask = mask[::-1, ::-1]
    h, w = mask.shape
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    a = mask[y0 - y:y1 - y, x0 - x:x1 - x].astype(np.float32)[..., None] / 255.0
    roi = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = (roi * (1 - a) + np.array(color, np.float32) * a).astype(np.uint8)

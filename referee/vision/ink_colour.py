"""Red or black ink, decided against the card's own paper rather than on absolute hue or saturation.

A camera's white balance, a warm lamp or a dull sensor move every pixel's colour, but not the order of the
ink's contrasts against the paper it is printed on. Each glyph's contrast is summed per channel over the
glyph and a `GROW` px ring around it (paper minus pixel), so blur, thin strokes and a sensor's
smeared chroma move ink and paper alike and the sums keep their proportions. Red ink darkens green and
blue far more than red; black ink darkens all three alike. That proportion is read two ways, and the
paper's colour is taken for either kind of cast:

- normalised: each channel's contrast over the local paper's value in it (a multiplicative cast:
  the lamp's or the camera's white balance scales ink and paper alike);
- raw: the plain differences (an additive cast: coloured light or a tint laid over the whole image
  adds to ink and paper alike, as on the pink-lit photos of crops-piatnik, where black ink sits at 0.83
  normalised and 1.02 raw).

A glyph is black where either reading finds it neutral (its three contrasts within `NEUTRAL_MIN` of each
other), and red where one reads it red (its red contrast under `RED_MAX` of its green and blue ones) and
neither neutral: a maroon under a warm lamp is red normalised and nothing raw (the lamp lifts its red
and lowers its blue), black ink under a pink veil red normalised but neutral raw. Dark ink
that is neither (a thin red stroke whose chroma the sensor smeared into the paper, a warm black) is dull:
it may be read as the rank of an index whose suit pip, a larger solid glyph, has a colour. Anything else
(court art in blue, green or yellow) is not read.

On paper clipped in red (at `CLIPPED`) the ink's red contrast is only a lower bound (the paper's true red is
hidden), which leans every glyph towards red: red there needs the red contrast under `CLIPPED_RED_SHARE` of
green's, chosen on overexposed rendered casts (`casts.OVEREXPOSED`) as the other constants are.

`paper_gains` balances the image's brightest near-white pixels to grey for the tests that ask whether a
pixel is paper at all (bright and colourless), so a warm kitchen light does not turn the card into table.
"""
from __future__ import annotations

import cv2
import numpy as np

# Chosen on rendered cards only (tools/measure_ink_colour.py --scenes 800, seeds 91 and 92: one number card a scene,
# inks maroon to bright red and warm to cool black, casts.CastRange); the real decks only measure them.
RED_MAX = 0.84      # red ink: its red contrast is under 0.84 of the smaller of its green and blue contrasts (the
#                     black glyphs' 0.1th percentile: 0.840 / 0.840)
NEUTRAL_MIN = 0.77  # black ink: its smallest channel contrast is at least 0.77 of its largest (where as many red
#                     glyphs reach it as black ones fall short: 0.789 / 0.752, 0.2% / 0.4% of each)
CLIPPED = 250      # a paper channel this bright may be clipped: the ink's contrast there is only a lower bound
CLIPPED_RED_SHARE = 0.57  # on paper clipped in red, red ink may read red only if it darkens red by under 0.57 of
#                           green: the black glyphs' 0.1th percentile of that share on overexposed rendered casts
#                           (tools/measure_ink_colour.py --clipped --scenes 300, seeds 91 / 92: 0.576 / 0.670; red
#                           glyphs: median 0.28 / 0.30, 20% over 0.5). It was 0.15, a guess no clipped paper had
#                           measured: the rendered red (205 of 248 in red) darkens red by 0.2 of green, so every red
#                           pip on a bright table read dull and went unread (bench_landing's red misses)
GROW = 2           # px at working size around a glyph whose contrast counts with it (a sensor's smeared chroma)
RING = 3           # px: the paper read around a glyph, beyond GROW
WHITE_SHARE = 0.03  # the brightest 3% of pixels (by their darkest channel) set the image's paper white
GAIN_LIMITS = (0.5, 2.0)
SAMPLE_STEP = 6   # every 6th pixel each way: 3,000 of a 384 x 288 image
RED, BLACK, DULL, OTHER = 1, 0, 2, -1
_GROW_KERNEL = np.ones((2 * GROW + 1, 2 * GROW + 1), np.uint8)


def paper_gains(bgr: np.ndarray) -> np.ndarray:
    """Per-channel gains (B, G, R; green 1.0) that make the image's paper white grey: the median colour of
    the `WHITE_SHARE` of pixels brightest in their darkest channel (white paper is bright in all three, a
    coloured table in one or two), each channel scaled to green's level."""
    sample = np.ascontiguousarray(bgr[::SAMPLE_STEP, ::SAMPLE_STEP])   # a robust statistic from few pixels
    lo = cv2.min(cv2.min(sample[..., 0], sample[..., 1]), sample[..., 2]).ravel()
    at = int((1 - WHITE_SHARE) * (len(lo) - 1))
    white = sample.reshape(-1, 3)[lo >= np.partition(lo, at)[at]]
    med = np.median(white, 0).astype(np.float64) if len(white) else np.full(3, 255.0)
    gains = med[1] / np.maximum(med, 1.0)
    return np.clip(gains, *GAIN_LIMITS).astype(np.float32)


def balance(bgr: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """`bgr` with each channel scaled by its gain (uint8, saturating)."""
    if np.allclose(gains, 1.0, atol=0.01):
        return bgr
    return cv2.transform(bgr, np.diag(gains.astype(np.float32)))


def ink_contrasts(bgr: np.ndarray, labels: np.ndarray, ids: np.ndarray, paper: np.ndarray, ink: np.ndarray,
                  stats: np.ndarray | None = None, grow: int = GROW) -> tuple[np.ndarray, np.ndarray]:
    """(contrast, paper colour) for each blob `ids` (its label in `labels`): the per-channel sum of paper minus
    pixel over the blob grown by `grow` px (other ink left out), and the per-channel median of the `paper`
    pixels in a ring `RING` px wide around that (no ink within `GROW` px of them). Both (n, 3) float64 in B,
    G, R; a blob with no such paper gets nan. With the labels' `stats` (OpenCV's x, y, w, h, area) only the
    part of the image holding those blobs is looked at."""
    if not len(ids):
        return np.zeros((0, 3)), np.zeros((0, 3))
    if stats is not None:   # the window round the blobs: a card fills a fraction of a photo
        pad = grow + GROW + RING + 1
        x, y, w, h = (stats[ids, k] for k in range(4))
        x0, y0 = max(0, int(x.min()) - pad), max(0, int(y.min()) - pad)
        x1, y1 = min(labels.shape[1], int((x + w).max()) + pad), min(labels.shape[0], int((y + h).max()) + pad)
        bgr, labels, paper, ink = (a[y0:y1, x0:x1] for a in (bgr, labels, paper, ink))
    n_lab = int(ids.max()) + 1
    lut = np.zeros(max(n_lab, int(labels.max()) + 1), np.uint16 if n_lab < 1 << 16 else np.float32)
    lut[ids] = ids
    kept = np.take(lut, labels)   # uint16 labels: a third of float32's time to gather and a tenth to dilate
    grown = cv2.dilate(kept, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8)) if grow else kept
    region = np.flatnonzero((grown > 0) & ((ink == 0) | (kept == grown)))
    owner = grown.ravel()[region].astype(np.intp)
    flat = bgr.reshape(-1, 3)
    inside = flat[region]
    count = np.bincount(owner, minlength=n_lab)[ids].astype(np.float64)
    sums = np.stack([np.bincount(owner, weights=inside[:, c], minlength=n_lab)[ids] for c in range(3)], 1)
    near = cv2.dilate(kept, np.ones((2 * (GROW + RING) + 1,) * 2, np.uint8))
    ring = np.flatnonzero((near > 0) & paper & (cv2.dilate(ink, _GROW_KERNEL) == 0))
    col = _medians(near.ravel()[ring].astype(np.intp), flat[ring], ids, n_lab)
    return count[:, None] * col - sums, col


def _medians(owner: np.ndarray, values: np.ndarray, ids: np.ndarray, n_lab: int) -> np.ndarray:
    """Per-channel median of `values` (m, 3 uint8) grouped by `owner`, for each label in `ids` (nan if none)."""
    out = np.full((len(ids), 3), np.nan)
    if not len(owner):
        return out
    counts = np.bincount(owner, minlength=n_lab)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    has = counts[ids] > 0
    mid = starts[ids[has]] + counts[ids[has]] // 2
    key = owner.astype(np.int32) << 8   # int32 keys sort in about half int64's time
    for c in range(3):
        ranked = np.sort(key | values[:, c])
        out[has, c] = ranked[mid] & 255
    return out


def ink_colour(contrast: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """RED, BLACK, DULL or OTHER for each row of `ink_contrasts`' (contrast, paper colour). DULL: dark ink
    that is neither clearly red nor clearly black but no bluer or greener than black (a thin red stroke
    whose colour the sensor smeared away, a warm black): its index's suit pip must tell. OTHER: anything
    else (court art in blue, green or yellow; no paper around it)."""
    normalised = contrast / np.maximum(paper, 1.0)
    # paper at the sensor's ceiling in red hides how much the ink darkens red: it may not read red from that
    unclipped = (paper[:, 2] < CLIPPED) | (contrast[:, 2] <= CLIPPED_RED_SHARE * contrast[:, 1])
    black = _reads_neutral(normalised) | _reads_neutral(contrast)
    red = (_reads_red(normalised) | _reads_red(contrast)) & ~black & unclipped
    return np.where(red, RED, np.where(black, BLACK, np.where(could_be_red(contrast, paper), DULL, OTHER)))


def could_be_red(contrast: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """Whether each row's ink darkens red less than green and blue, read either way (`ink_colour`): red ink,
    or dark ink that may be red ink whose colour a thin stroke lost (a rank is read with its suit's colour
    unless its own contradicts it)."""
    normalised = contrast / np.maximum(paper, 1.0)
    return ((np.minimum(contrast[:, 0], contrast[:, 1]) > 0) & (red_share(normalised) < 1.0)
            & (red_share(contrast) < 1.0))


def red_share(contrast: np.ndarray) -> np.ndarray:
    """Each row's red contrast over the smaller of its green and blue ones (B, G, R columns): about 1 for
    black ink, near 0 (or below) for bright red ink."""
    return contrast[:, 2] / np.maximum(np.minimum(contrast[:, 0], contrast[:, 1]), 1e-9)


def neutrality(contrast: np.ndarray) -> np.ndarray:
    """Each row's smallest channel contrast over its largest: 1 for ink darkening all channels alike."""
    return contrast.min(1) / np.maximum(contrast.max(1), 1e-9)


def _reads_red(contrast: np.ndarray) -> np.ndarray:
    return (np.minimum(contrast[:, 0], contrast[:, 1]) > 0) & (red_share(contrast) < RED_MAX)


def _reads_neutral(contrast: np.ndarray) -> np.ndarray:
    return (contrast.max(1) > 0) & (neutrality(contrast) >= NEUTRAL_MIN)

"""A camera's colour, applied to rendered scenes: white balance, lamp colour, saturation, tint, noise, chroma.

The renderer draws ideal ink on ideal paper; a real camera does not see it so. This module moves a rendered
image the ways a kitchen webcam does, each drawn at random within `CastRange`: the lamp's colour temperature
and a white-balance error (per-channel gains on linear light), a dull or vivid sensor (saturation about the
pixel's grey), a coloured veil over everything (an additive tint), an exposure brighter than the paper needs
(a dark table metered, or a lamp's glare: the paper clips at 255), sensor noise, and JPEG's chroma halved
in each direction, so thin red strokes lose colour as they do on a webcam. Used to verify the ink colour
decision (`ink_colour`) and to choose its constants (tools/measure_ink_colour.py); never by the referee.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class CastRange:
    """The envelope a cast is drawn from (each uniform between its limits)."""

    kelvin: tuple[float, float] = (2700.0, 7500.0)   # the lamp, against a camera balanced for 6500 K
    wb_error: float = 0.15           # each channel's gain off by up to this fraction (the camera's own guess)
    saturation: tuple[float, float] = (0.5, 1.3)    # 1.0 as rendered; below: a dull sensor
    tint: float = 25.0               # an additive veil of up to this much per channel (0-255 scale)
    noise: tuple[float, float] = (0.0, 6.0)         # sensor noise, standard deviation (0-255 scale)
    jpeg: tuple[int, int] = (55, 90)                # quality; OpenCV's JPEG halves chroma both ways
    exposure: tuple[float, float] = (1.0, 1.0)      # over 1: exposed brighter than the paper needs (it clips)


# Overexposed casts: the paper clips in one channel or all (a dark cloth metered, a lamp's glare, the landing
# bench's bright tables), where an ink's contrast in a clipped channel is only a lower bound (`ink_colour.CLIPPED`)
OVEREXPOSED = CastRange(exposure=(1.0, 1.6))


@dataclass(frozen=True)
class Cast:
    """One drawn cast (see `CastRange`); `gains` are B, G, R on linear light."""

    gains: tuple[float, float, float]
    saturation: float
    tint: tuple[float, float, float]
    noise: float
    jpeg: int
    exposure: float = 1.0


def lamp_gains(kelvin: float) -> tuple[float, float, float]:
    """B, G, R gains of a blackbody lamp at `kelvin` seen by a camera balanced for 6500 K (green 1.0): warm
    lamps (low K) give red more than blue. Tanner Helland's fit of the blackbody colour, ratioed to 6500 K's."""

    def rgb(k: float) -> tuple[float, float, float]:
        t = k / 100.0
        r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
        g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
        return tuple(min(255.0, max(1.0, v)) for v in (b, g, r))  # type: ignore[return-value]

    here, ref = rgb(kelvin), rgb(6500.0)
    b, g, r = (h / f for h, f in zip(here, ref))
    return b / g, 1.0, r / g


def draw_cast(rng: random.Random, envelope: CastRange = CastRange()) -> Cast:
    """A random cast within `envelope`."""
    lamp = lamp_gains(rng.uniform(*envelope.kelvin))
    gains = tuple(g * rng.uniform(1 - envelope.wb_error, 1 + envelope.wb_error) for g in lamp)
    tint = tuple(rng.uniform(0, envelope.tint) for _ in range(3))
    cast = Cast(gains, rng.uniform(*envelope.saturation), tint, rng.uniform(*envelope.noise),  # type: ignore[arg-type]
                rng.randint(*envelope.jpeg))
    if envelope.exposure != (1.0, 1.0):   # drawn last, and only then: the default envelope's draws stay as they were
        cast = Cast(cast.gains, cast.saturation, cast.tint, cast.noise, cast.jpeg, rng.uniform(*envelope.exposure))
    return cast


def apply_cast(img: np.ndarray, cast: Cast, seed: int = 0) -> np.ndarray:
    """`img` (BGR uint8, as rendered: sRGB-like) seen through `cast`: gains on linear light, exposed so the
    brightest channel's 99th percentile stays where it was (a camera's exposure follows the lamp), then
    saturation about each pixel's grey, the veil (exposed for as well), the cast's overexposure (clipped at 255
    below), noise and a JPEG round trip."""
    lin = (img.astype(np.float32) / 255.0) ** 2.2
    before = max(float(np.percentile(lin[..., c], 99)) for c in range(3))
    lin *= np.array(cast.gains, np.float32)
    lin *= before / max(max(float(np.percentile(lin[..., c], 99)) for c in range(3)), 1e-6)
    out = np.clip(lin, 0, 1) ** (1 / 2.2) * 255.0
    grey = out @ np.array([0.114, 0.587, 0.299], np.float32)
    out = grey[..., None] + cast.saturation * (out - grey[..., None])
    top = max(float(np.percentile(out[..., c], 99)) for c in range(3))
    out += np.array(cast.tint, np.float32)
    out *= top / max(max(float(np.percentile(out[..., c], 99)) for c in range(3)), 1e-6)   # exposed with the veil
    out *= cast.exposure
    if cast.noise > 0:
        out += np.random.default_rng(seed).normal(0, cast.noise, out.shape).astype(np.float32)
    out8 = np.clip(out, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out8, [cv2.IMWRITE_JPEG_QUALITY, cast.jpeg])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return out8 if decoded is None else np.asarray(decoded)

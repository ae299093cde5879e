"""Camera calibration: the pile region from one dropped card, frame rate and capture latency.

The person drops one card where the pile will be; the area that changed
between the still empty table and the still table with the card is the card,
and the pile region is that box grown by a margin (a pile spreads). Every
frame's capture latency is `clock() - t_ns` taken the moment the frame is
handed over (t_ns is picamera2's SensorTimestamp on the Pi); a high percentile
of it becomes the arbiter's hold-back. A recording has no live clock to
compare with, so its latency is reported as not measured.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from .motion import Change, settled_changes

Frame = tuple[np.ndarray, int]
PILE_MARGIN = 0.25                    # of the card's longer side, on every side


@dataclass
class CameraResult:
    """What one run measured."""

    frame_size: tuple[int, int] = (0, 0)
    card: tuple[int, int, int, int] | None = None
    pile: tuple[int, int, int, int] | None = None
    pile_from: str = "none"           # found | manual | none
    fps: float = 0.0
    frames: int = 0
    dropped: int = 0                  # gaps longer than 1.5 frame periods
    latencies_ns: list[int] = field(default_factory=list)
    latency_measured: bool = False

    def latency_ms(self, pct: float = 99.0) -> float:
        return float(np.percentile(self.latencies_ns, pct)) / 1e6 if self.latencies_ns else 0.0

    def lines(self, pct: float = 99.0) -> list[str]:
        out = [f"frames: {self.frames} at {self.fps:.1f} fps ({self.frame_size[0]}x{self.frame_size[1]}),"
               f" {self.dropped} gaps"]
        if self.pile:
            out.append(f"pile region ({self.pile_from}): x={self.pile[0]} y={self.pile[1]} w={self.pile[2]} h={self.pile[3]}")
        else:
            out.append("pile region: NOT FOUND (drop one card where the pile will be, or give --pile x,y,w,h)")
        if self.latency_measured:
            out.append(f"capture latency: median {self.latency_ms(50):.1f} ms, p{pct:g} {self.latency_ms(pct):.1f} ms"
                       f" (hold-back), max {self.latency_ms(100):.1f} ms")
        else:
            out.append("capture latency: not measurable from a recording (kept from before)")
        return out


def grow(box: tuple[int, int, int, int], size: tuple[int, int], margin: float = PILE_MARGIN) -> tuple[int, int, int, int]:
    """`box` grown by `margin` x its longer side on every side, clipped to the frame."""
    x, y, w, h = box
    m = margin * max(w, h)
    x0, y0 = max(0, int(round(x - m))), max(0, int(round(y - m)))
    x1, y1 = min(size[0], int(round(x + w + m))), min(size[1], int(round(y + h + m)))
    return x0, y0, x1 - x0, y1 - y0


def _timed(frames: Iterable[Frame], clock: Callable[[], int], result: CameraResult,
           live: bool) -> Iterator[Frame]:
    """Pass frames through, noting each one's latency and stamp."""
    stamps: list[int] = []
    for frame, t_ns in frames:
        if live:
            result.latencies_ns.append(clock() - t_ns)
        stamps.append(t_ns)
        result.frames += 1
        result.frame_size = (frame.shape[1], frame.shape[0])
        if len(stamps) >= 2:
            periods = np.diff(stamps)
            period = float(np.median(periods))
            result.fps = 1e9 / period if period > 0 else 0.0
            result.dropped = int(np.count_nonzero(periods > 1.5 * period)) if period > 0 else 0
        yield frame, t_ns


def calibrate_camera(frames: Iterable[Frame], *, clock: Callable[[], int] = time.monotonic_ns,
                     live: bool = True, pile: Sequence[int] | None = None, min_frames: int = 60,
                     max_frames: int = 900, progress: Callable[[str], None] | None = None) -> CameraResult:
    """Watch frames until a dropped card has settled (unless `pile` is given) and at
    least `min_frames` were timed, or `max_frames` pass."""
    result = CameraResult(latency_measured=live)
    if pile is not None:
        result.pile, result.pile_from = (int(pile[0]), int(pile[1]), int(pile[2]), int(pile[3])), "manual"

    def limited() -> Iterator[Frame]:
        for n, item in enumerate(_timed(frames, clock, result, live)):
            if n >= max_frames or (result.pile is not None and n >= min_frames):
                return
            if progress and n and n % 30 == 0:
                progress(f"  {n} frames, {result.fps:.1f} fps" + ("" if result.pile else ": waiting for the card to settle"))
            yield item

    change: Change | None = None
    for change in settled_changes(limited()):
        if result.pile is None:
            result.card = change.bbox
            result.pile = grow(change.bbox, result.frame_size)
            result.pile_from = "found"
            if progress:
                progress(f"card found at {result.card}")
    return result


def iou(a: Sequence[int], b: Sequence[int]) -> float:
    """Intersection over union of two (x, y, w, h) boxes."""
    ax1, ay1, bx1, by1 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    iw = max(0, min(ax1, bx1) - max(a[0], b[0]))
    ih = max(0, min(ay1, by1) - max(a[1], b[1]))
    inter = iw * ih
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union else 0.0

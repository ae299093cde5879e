"""Opening the camera and the pads for calibration from command-line options."""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

Frame = tuple[np.ndarray, int]


@dataclass
class CameraFeed:
    """Frames to calibrate on, the clock to time them with, and whether that timing means anything."""

    frames: Iterable[Frame]
    clock: Callable[[], int]
    live: bool
    camera: Any = None                # the picamera2 object, for controls
    close: Callable[[], None] = lambda: None


def open_camera(args: argparse.Namespace) -> CameraFeed:
    from hardware import camera as cams

    source = args.source
    if source == "sim":
        from .sim_camera import SimClock, lagged, one_card_drop
        clock = SimClock()
        sim = one_card_drop(args.sim_card, seed=args.seed)
        return CameraFeed(lagged(sim.frames(), clock, int(args.sim_latency_ms * 1e6),
                                 int(args.sim_jitter_ms * 1e6), args.seed), clock, True)
    if source == "picamera2":
        picam = cams.Picamera2Source()
        return CameraFeed(picam.frames(), time.monotonic_ns, True, camera=picam.camera, close=picam.close)
    if source in ("opencv", "video"):
        capture = cams.VideoCaptureSource(args.device if source == "opencv" else args.path)
        if source == "video" and not capture.is_file:
            raise SystemExit(f"referee calibrate: no video file at {args.path!r}")
        return CameraFeed(capture.frames(), time.monotonic_ns, source == "opencv", close=capture.close)
    if source == "folder":
        folder = cams.FolderSource(args.path, fps=args.fps)
        return CameraFeed(folder.frames(), time.monotonic_ns, False, close=folder.close)
    raise SystemExit(f"referee calibrate: unknown camera source {source!r}")


def parse_ints(text: str, n: int | None = None, what: str = "values") -> list[int]:
    try:
        values = [int(round(float(v))) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what}: expected numbers separated by commas, got {text!r}") from None
    if n is not None and len(values) != n:
        raise argparse.ArgumentTypeError(f"{what}: expected {n} numbers, got {len(values)}")
    return values

"""picamera2.request.CompletedRequest: one frame's buffers and metadata, held until released.

As picamera2/request.py: `get_metadata()` gives the frame's metadata
(SensorTimestamp, ExposureTime, AnalogueGain, FrameDuration, LensPosition, ...);
`make_array(name)` copies a stream out (shapes and byte orders in
sensor.stream_array); `release()` hands the buffers back, and a request used
after its last release, or released once too often, raises RuntimeError as the
real one's ref_count checks do. Pixels are drawn by the event loop as the frame
is read out (or, for a request made without them, when first asked for).
"""
from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from . import sensor


class CompletedRequest:
    """A frame handed to the application; it holds one of the camera's buffers until released."""

    def __init__(self, frame: sensor.Frame, config: dict[str, Any], world: Any,
                 on_free: Callable[["CompletedRequest"], None], picture: np.ndarray | None = None) -> None:
        """`picture`: the frame's BGR image at main's size, if the event loop drew it already."""
        self.frame = frame
        self.config = config
        self._world = world
        self._on_free = on_free
        self.ref_count = 1
        self.lock = threading.Lock()
        self._bgr: np.ndarray | None = picture

    def __repr__(self) -> str:
        return f"<CompletedRequest #{self.frame.sequence} t={self.frame.sensor_timestamp_ns} refs={self.ref_count}>"

    def acquire(self) -> None:
        with self.lock:
            if self.ref_count == 0:
                raise RuntimeError("CompletedRequest: acquiring lock with ref_count 0")
            self.ref_count += 1

    def release(self) -> None:
        with self.lock:
            self.ref_count -= 1
            if self.ref_count < 0:
                raise RuntimeError("CompletedRequest: lock now has negative ref_count")
            freed = self.ref_count == 0
        if freed:
            self._bgr = None
            self._on_free(self)

    def _alive(self) -> None:
        if self.ref_count <= 0:
            raise RuntimeError("CompletedRequest: used after release (its buffers went back to the camera)")

    def get_metadata(self) -> dict[str, Any]:
        self._alive()
        f = self.frame
        return {"SensorTimestamp": f.sensor_timestamp_ns, "ExposureTime": f.exposure_us,
                "AnalogueGain": round(f.gain, 4), "DigitalGain": 1.0, "FrameDuration": f.frame_us,
                "LensPosition": round(f.lens, 3), "AfState": 0, "Lux": 400.0, "ColourTemperature": 4000,
                "ColourGains": (1.9, 1.6), "SensorTemperature": 40.0, "FocusFoM": int(1000 / (1 + f.focus_error)),
                "ScalerCrop": (0, 0, 4608, 2592)}

    def make_array(self, name: str) -> np.ndarray:
        self._alive()
        stream = self.config.get(name)
        if stream is None:
            raise RuntimeError(f"Stream {name!r} is not defined")
        with self.lock:
            if self._bgr is None:
                main = self.config["main"]["size"]
                self._bgr = sensor.render_bgr(self.frame, tuple(main), self._world)
            bgr = self._bgr
        return np.array(sensor.stream_array(bgr, stream["format"], tuple(stream["size"])), copy=True)

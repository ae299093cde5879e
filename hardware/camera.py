"""Camera sources: each yields (BGR frame, t_ns) with t_ns on CLOCK_MONOTONIC.

Every source takes its backend or configuration as arguments, can be used as
a context manager, and is iterable. Stamps come from the capture itself where
the backend gives one (picamera2's SensorTimestamp); otherwise the moment the
frame was handed over, which is the best the backend allows.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

Frame = tuple[np.ndarray, int]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


class CameraSource:
    """Base: iterate for (frame, t_ns); close() releases the device."""

    def frames(self) -> Iterator[Frame]:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Frame]:
        return self.frames()

    def close(self) -> None:
        """Release the device; safe to call twice."""

    def __enter__(self) -> "CameraSource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Picamera2Source(CameraSource):
    """A Raspberry Pi camera via picamera2: the lores stream for vision, main kept for evidence.

    `camera` may be an already built Picamera2 (or a fake with the same
    methods) for tests; otherwise one is made here (picamera2 is imported only then).
    """

    def __init__(self, *, camera: Any = None, main_size: tuple[int, int] = (1280, 960),
                 lores_size: tuple[int, int] = (640, 480), fps: float = 50.0) -> None:
        if camera is None:
            from picamera2 import Picamera2  # optional extra `pi`
            camera = Picamera2()
            config = camera.create_video_configuration(
                main={"size": main_size, "format": "RGB888"}, lores={"size": lores_size, "format": "YUV420"},
                controls={"FrameRate": fps})
            camera.configure(config)
        self.camera = camera
        self.lores_size = lores_size
        self.fps = fps
        self.last_main: np.ndarray | None = None
        self._started = False

    def __repr__(self) -> str:
        return f"Picamera2Source(lores={self.lores_size}, fps={self.fps})"

    def frames(self) -> Iterator[Frame]:
        import cv2

        if not self._started:
            self.camera.start()
            self._started = True
        while True:
            request = self.camera.capture_request()
            try:
                t_ns = int(request.get_metadata()["SensorTimestamp"])
                yuv = request.make_array("lores")
                self.last_main = request.make_array("main")  # evidence frame for this instant
            finally:
                request.release()
            bgr = cv2.cvtColor(yuv, cv2.COLOR_YUV2BGR_I420) if yuv.ndim == 2 else yuv
            yield bgr, t_ns

    def close(self) -> None:
        if self._started:
            self.camera.stop()
            self._started = False
        closer = getattr(self.camera, "close", None)
        if closer:
            closer()


class VideoCaptureSource(CameraSource):
    """A USB camera (device number) or a video file through OpenCV's VideoCapture.

    For a file, t_ns is `t0_ns` plus the file's own position (CAP_PROP_POS_MSEC),
    so replays are deterministic; for a live device, the monotonic clock on grab.
    """

    def __init__(self, device: int | str, *, capture: Any = None, t0_ns: int = 0,
                 clock: Callable[[], int] = time.monotonic_ns) -> None:
        import cv2

        self.device = device
        self.cap = capture if capture is not None else cv2.VideoCapture(device)
        self.is_file = isinstance(device, str) and Path(device).exists()
        self.t0_ns = t0_ns
        self.clock = clock

    def __repr__(self) -> str:
        return f"VideoCaptureSource({self.device!r})"

    def frames(self) -> Iterator[Frame]:
        import cv2

        while True:
            if not self.cap.grab():
                return
            t_ns = (self.t0_ns + int(self.cap.get(cv2.CAP_PROP_POS_MSEC) * 1e6)) if self.is_file else self.clock()
            ok, frame = self.cap.retrieve()
            if not ok:
                return
            yield frame, t_ns

    def close(self) -> None:
        self.cap.release()


class FolderSource(CameraSource):
    """Still images from a folder in name order, stamped `t0_ns + i * period_ns`."""

    def __init__(self, folder: str | Path, *, fps: float = 30.0, t0_ns: int = 0,
                 suffixes: Sequence[str] = IMAGE_SUFFIXES) -> None:
        self.folder = Path(folder)
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in suffixes)
        self.period_ns = int(round(1e9 / fps))
        self.t0_ns = t0_ns

    def __repr__(self) -> str:
        return f"FolderSource({str(self.folder)!r}, {len(self.paths)} images)"

    def frames(self) -> Iterator[Frame]:
        import cv2

        for i, path in enumerate(self.paths):
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None:
                continue  # skip unreadable files, keep the timeline
            yield frame, self.t0_ns + i * self.period_ns


class SimulatedSource(CameraSource):
    """The simulated table's rendered frames (`referee.vision.simulate.PileSimulator`)
    or any iterable of (frame, t_ns). `realtime` paces delivery to the stamps."""

    def __init__(self, simulator: Any, *, realtime: bool = False) -> None:
        self.simulator = simulator
        self.realtime = realtime
        self._closed = False

    def __repr__(self) -> str:
        return f"SimulatedSource({self.simulator!r}, realtime={self.realtime})"

    def frames(self) -> Iterator[Frame]:
        source: Iterable[Frame] = self.simulator.frames() if hasattr(self.simulator, "frames") else self.simulator
        start_wall = start_t = None
        for frame, t_ns in source:
            if self._closed:
                return
            if self.realtime:
                if start_wall is None:
                    start_wall, start_t = time.monotonic_ns(), t_ns
                delay = (t_ns - start_t) - (time.monotonic_ns() - start_wall)
                if delay > 0:
                    time.sleep(delay / 1e9)
            yield frame, t_ns

    def close(self) -> None:
        self._closed = True

"""Camera sources: each yields (BGR frame, t_ns) with t_ns on CLOCK_MONOTONIC.

Every source takes its backend or configuration as arguments, can be used as
a context manager, and is iterable. Stamps come from the capture itself where
the backend gives one (picamera2's SensorTimestamp); otherwise the moment the
frame was handed over, which is the best the backend allows.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar

import numpy as np

Frame = tuple[np.ndarray, int]
_S = TypeVar("_S", bound="CameraSource")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
MAX_EXPOSURE_US = 10_000   # 1/100 s: a card sliding in still reads (as calibration.picam_controls locks it)


class CameraSource:
    """Base: iterate for (frame, t_ns); close() releases the device."""

    def frames(self) -> Iterator[Frame]:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Frame]:
        return self.frames()

    def close(self) -> None:
        """Release the device; safe to call twice."""

    def __enter__(self: _S) -> _S:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CameraStalled(TimeoutError):
    """No frame came within the source's bound (a stalled camera); the camera has been closed."""


class Picamera2Source(CameraSource):
    """A Raspberry Pi camera via picamera2: the lores stream to watch the pile, main at full resolution.

    Opening acquires the camera (picamera2 is imported only then, so the
    module loads anywhere); `camera` may be an already built Picamera2, or a
    stand-in with its methods, used as it is. `fps` is `[camera] fps`; `controls`
    are picamera2 controls as a calibration profile holds them (`[camera.controls]`:
    ExposureTime, AnalogueGain, LensPosition, AfMode, ...; a `FrameRate` there
    overrides `fps`); controls this camera does not have are skipped. Without a
    fixed ExposureTime the auto exposure is capped at `max_exposure_us` so a
    landing card does not smear. Frames are `stream` ("lores" or "main") as BGR,
    stamped with SensorTimestamp (the first row's readout: its exposure began
    1000 * ExposureTime ns earlier, picamera2's timestamp_capture.py); the other stream of the newest frames stays
    available (`last_main`, `main_at(t_ns)`, `last_lores`), and the newest
    frame's metadata (`last_metadata`: exposure, gain, lens). `want_main`, set by
    the consumer, says which frames need main (a landing being read): copying
    a full-resolution frame thirty times a second costs a Pi core for nothing
    while the pile lies still; None keeps every frame's. A capture waits at
    most `timeout_s` (raising CameraStalled), and any failure closes the camera
    so the next Picamera2 can acquire it.
    """

    def __init__(self, *, camera: Any = None, camera_num: int = 0, main_size: tuple[int, int] = (1280, 960),
                 lores_size: tuple[int, int] | None = (640, 480), fps: float = 30.0,
                 controls: Mapping[str, Any] | None = None, stream: str = "lores", timeout_s: float | None = None,
                 max_exposure_us: int | None = MAX_EXPOSURE_US, keep_main: int = 4, buffer_count: int = 6) -> None:
        if stream not in ("lores", "main") or (stream == "lores" and lores_size is None):
            raise ValueError(f"stream: 'lores' (with a lores_size) or 'main', not {stream!r}")
        self.main_size = main_size
        self.lores_size = lores_size
        self.fps = fps
        self.stream = stream
        self.timeout_s = timeout_s if timeout_s is not None else max(1.0, 10 / fps)
        self.max_exposure_us = max_exposure_us
        self.last_main: np.ndarray | None = None
        self.last_lores: np.ndarray | None = None
        self.last_metadata: dict[str, Any] = {}
        self.want_main: Callable[[], bool] | None = None
        self._mains: deque[tuple[int, np.ndarray]] = deque(maxlen=max(1, keep_main))
        self._started = False
        self._closed = False
        self._close_lock = threading.Lock()
        self.controls: dict[str, Any] = {}
        self.skipped: dict[str, Any] = {}
        self._capped = False
        if camera is not None:
            self.camera = camera
            self.set_controls(dict(controls or {}))
            return
        from picamera2 import Picamera2  # the OS package python3-picamera2

        self.camera = Picamera2(camera_num)
        try:
            streams: dict[str, Any] = {"main": {"size": tuple(main_size), "format": "RGB888"},
                                       "buffer_count": buffer_count, "controls": {"FrameRate": float(fps)}}
            if lores_size is not None:
                streams["lores"] = {"size": tuple(lores_size), "format": "YUV420"}
            self.camera.configure(self.camera.create_video_configuration(**streams))
            self.set_controls(dict(controls or {}))
        except BaseException:
            self.close()
            raise

    def __repr__(self) -> str:
        state = "closed" if self._closed else "running" if self._started else "open"
        return f"Picamera2Source({self.stream}={self.frame_size}, fps={self.fps}, {state})"

    @property
    def frame_size(self) -> tuple[int, int]:
        """(w, h) of the frames this source yields."""
        return tuple(self.lores_size if self.stream == "lores" else self.main_size)  # type: ignore[arg-type,return-value]

    def set_controls(self, controls: Mapping[str, Any]) -> dict[str, Any]:
        """Send the controls the camera has (lists as tuples, as picamera2 wants); returns what was sent."""
        available = getattr(self.camera, "camera_controls", None)
        send: dict[str, Any] = {}
        skip: dict[str, Any] = {}
        for name, value in controls.items():
            known = not isinstance(available, dict) or name in available or name == "FrameRate"
            (send if known else skip)[name] = tuple(value) if isinstance(value, list) else value
        if send:
            self.camera.set_controls(send)
        self.controls.update(send)
        self.skipped.update(skip)
        return send

    def main_at(self, t_ns: int) -> np.ndarray | None:
        """The full-resolution frame stamped `t_ns`, while it is among the newest few."""
        return next((img for t, img in reversed(self._mains) if t == t_ns), None)

    def _capture(self) -> Any:
        try:
            return self.camera.capture_request(wait=self.timeout_s)
        except TimeoutError:
            flush = getattr(self.camera, "cancel_all_and_flush", None)
            if flush is not None:  # a timed-out job stays queued and would keep the next frame's buffer
                flush()
            raise CameraStalled(f"no frame from the camera for {self.timeout_s:.1f} s") from None

    def _cap_exposure(self, metadata: Mapping[str, Any]) -> None:
        """Once: a longer auto exposure becomes `max_exposure_us` (the auto gain makes up the light)."""
        self._capped = True
        if self.max_exposure_us is None or "ExposureTime" in self.controls:
            return
        if int(metadata.get("ExposureTime", 0)) > self.max_exposure_us:
            self.set_controls({"ExposureTime": int(self.max_exposure_us)})

    def frames(self) -> Iterator[Frame]:
        import cv2

        try:
            if not self._started:
                self.camera.start()
                self._started = True
            while True:
                request = self._capture()
                try:
                    metadata = request.get_metadata()
                    t_ns = int(metadata["SensorTimestamp"])
                    yuv = request.make_array("lores") if self.lores_size is not None else None
                    keep = self.stream == "main" or self.want_main is None or self.want_main()
                    main = request.make_array("main") if keep else None
                finally:
                    request.release()
                self.last_metadata = metadata
                if not self._capped:
                    self._cap_exposure(metadata)
                if main is not None:
                    self.last_main = main
                    self._mains.append((t_ns, main))
                if yuv is not None:
                    w = self.lores_size[0]  # type: ignore[index]
                    bgr = cv2.cvtColor(yuv, cv2.COLOR_YUV2BGR_I420) if yuv.ndim == 2 else yuv
                    self.last_lores = np.ascontiguousarray(bgr[:, :w]) if bgr.shape[1] > w else bgr  # stride padding
                yield (self.last_lores if self.stream == "lores" else main), t_ns  # type: ignore[misc]
        except BaseException:
            self.close()  # let the next Picamera2 acquire the camera
            raise

    def close(self) -> None:
        """Stop and close the camera; safe to call twice and from another thread."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        try:
            if self._started:
                self._started = False
                self.camera.stop()
        except Exception:
            pass  # a camera that failed may fail to stop; closing it still frees it
        finally:
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
                if start_wall is None or start_t is None:
                    start_wall, start_t = time.monotonic_ns(), t_ns
                delay = (t_ns - start_t) - (time.monotonic_ns() - start_wall)
                if delay > 0:
                    time.sleep(delay / 1e9)
            yield frame, t_ns

    def close(self) -> None:
        self._closed = True

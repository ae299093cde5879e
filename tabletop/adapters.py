"""Adapters from hardware devices to the referee's ports.

Pads and the camera speak their own APIs (`PadSource`, `CameraSource` plus the
vision pipeline); the runtime wants `EventSource.poll()`. These wrappers
translate, and turn device trouble into notices instead of exceptions.
"""
from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable

from hardware.pad_events import PadNotice
from hardware.pad_source import PadSource
from referee.core.events import Event
from referee.table.ports import Notice, Watermark
from referee.core.rulings import Ruling

NOTICE_KINDS = {"stuck": "pad_stuck", "unstuck": "pad_ok", "lost_edges": "check_table", "overcurrent": "check_table"}


class PadEventSource:
    """A pad device as an EventSource: its events, and its notices ("pad 3 is stuck")."""

    def __init__(self, pads: PadSource, name: str = "pads") -> None:
        self.name = name
        self.pads = pads
        self._notices: queue.SimpleQueue[Notice] = queue.SimpleQueue()
        self._keep = self._on_notice          # strong reference for the callback
        pads.on_notice = self._keep

    def _on_notice(self, notice: PadNotice) -> None:
        self._notices.put(Notice(NOTICE_KINDS.get(notice.kind, "check_table"),
                                 notice.message[:1].upper() + notice.message[1:], notice.seat, notice.t_ns))

    def poll(self, timeout_s: float) -> list[Event | Notice]:
        items: list[Event | Notice] = []
        while not self._notices.empty():
            items.append(self._notices.get())
        try:
            items.append(self.pads.get(timeout=timeout_s if not items else 0.0).event)
        except queue.Empty:
            return items
        except Exception:                     # closed
            return items
        items.extend(pad_event.event for pad_event in self.pads.drain())
        return items

    def close(self) -> None:
        self.pads.close()

    def __repr__(self) -> str:
        return f"<PadEventSource {self.pads!r}>"


class CameraEventSource:
    """Camera frames through the vision pipeline, on their own thread.

    A camera that raises, ends, or delivers no frame for `frozen_after_s` is
    reported lost once (the runtime pauses judging), closed, and opened again
    with `open_camera` after a backoff that doubles from `retry_s[0]` to
    `retry_s[1]`; the first frame after that is reported once as "back". A
    camera stuck in a read is closed by the watchdog, so no thread stays blocked
    (sources with bounded waits, like Picamera2Source, return on their own).
    """

    def __init__(self, open_camera: Callable[[], Any], pipeline: Any, *, frozen_after_s: float = 2.0,
                 name: str = "camera", clock: Callable[[], int] = time.monotonic_ns,
                 retry_s: tuple[float, float] = (0.5, 5.0)) -> None:
        self.name = name
        self.pipeline = pipeline
        self._reads_landings = hasattr(pipeline, "pending_since")   # a landing reader: reads `full` too
        self._open = open_camera
        self._frozen_ns = int(frozen_after_s * 1e9)
        self._clock = clock
        self._retry_s = retry_s
        self._queue: queue.SimpleQueue[Event | Notice | Watermark] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._state = threading.Lock()
        self._camera: Any = None          # the camera open now (closed by the watchdog when stuck)
        self._last_frame = clock()
        self._lost = False
        self.frames = 0
        self.reopens = 0
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._watch = threading.Thread(target=self._watchdog, name="camera-watchdog", daemon=True)
        self._thread.start()
        self._watch.start()

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            camera = None
            try:
                camera = self._open()
                if self._reads_landings and hasattr(camera, "want_main"):
                    camera.want_main = self._landing_pending   # full frames only while a landing is read
                with self._state:
                    self._camera = camera
                    self._last_frame = self._clock()  # opening is not freezing
                for frame, t_ns in camera:
                    if self._stop.is_set():
                        break
                    failures = 0
                    self._seen_frame()
                    for event in self._read(camera, frame, t_ns):
                        self._queue.put(event)
                    self._vouch(t_ns)
                else:
                    if not self._stop.is_set():
                        self._lose("Camera stopped: please pause the game")
            except Exception as exc:
                if not self._stop.is_set():
                    self._lose(f"Camera lost ({type(exc).__name__}): please pause the game")
            finally:
                self._close(camera)
            if not self._stop.is_set():
                self._stop.wait(min(self._retry_s[1], self._retry_s[0] * 2 ** failures))
                failures += 1
                self.reopens += 1

    def _close(self, camera: Any) -> None:
        with self._state:
            if self._camera is camera:
                self._camera = None
        if camera is not None:
            try:
                camera.close()
            except Exception:
                pass              # a broken camera may fail to close; the next open tells

    def _landing_pending(self) -> bool:
        return self.pipeline.pending_since is not None

    def _read(self, camera: Any, frame: Any, t_ns: int) -> list[Event]:
        """The pipeline's events for this frame; a landing reader also gets the camera's full-resolution frame
        of the same instant when the camera kept one."""
        if not self._reads_landings:
            return list(self.pipeline.feed(frame, t_ns))
        main_at = getattr(camera, "main_at", None)
        return list(self.pipeline.feed(frame, t_ns, main_at(t_ns) if main_at is not None else None))

    def _vouch(self, t_ns: int) -> None:
        """Every card still to come happened after this frame, or after the landing being read now."""
        if not hasattr(self.pipeline, "pending_since"):
            return                                   # a pipeline that cannot tell vouches for nothing
        pending = self.pipeline.pending_since
        self._queue.put(Watermark(t_ns if pending is None else pending - 1, looked_ns=t_ns))

    def _seen_frame(self) -> None:
        with self._state:
            self.frames += 1
            self._last_frame = self._clock()
            back, self._lost = self._lost, False
        if back:
            self._queue.put(Notice("camera_back", "Camera is back: play on"))

    def _lose(self, message: str) -> None:
        with self._state:
            first, self._lost = not self._lost, True
        if first:
            self._queue.put(Notice("camera_lost", message))

    def _watchdog(self) -> None:
        while not self._stop.wait(0.25):
            with self._state:
                frozen = self._clock() - self._last_frame > self._frozen_ns
                stuck = self._camera if frozen else None
            if frozen:
                self._lose("Camera frozen: please pause the game")
            if stuck is not None:  # unblock a read that does not return by itself
                self._close(stuck)

    def poll(self, timeout_s: float) -> list[Event | Notice | Watermark]:
        try:
            taken: list[Event | Notice | Watermark] = [self._queue.get(timeout=timeout_s)]
        except queue.Empty:
            return []
        while not self._queue.empty():
            taken.append(self._queue.get())
        # only the newest watermark counts; it stays after every event the camera sent before it
        marks = [item for item in taken if isinstance(item, Watermark)]
        items = [item for item in taken if not isinstance(item, Watermark)]
        return items + marks[-1:]

    @property
    def running(self) -> bool:
        """True while the camera thread is alive (it ends after close())."""
        return self._thread.is_alive()

    def close(self, timeout_s: float = 3.0) -> None:
        """Stop the threads and close the camera; waits up to `timeout_s` for the camera thread."""
        self._stop.set()
        with self._state:
            camera = self._camera
        self._close(camera)
        self._thread.join(timeout_s)
        self._watch.join(timeout_s)

    def __repr__(self) -> str:
        return f"<CameraEventSource {'lost' if self._lost else 'ok'} frames={self.frames} reopens={self.reopens}>"


class LightsObserver:
    """Shows each ruling on the lights through a pattern mapping."""

    def __init__(self, lights: Any, patterns_for: Callable[[Ruling], list[tuple[int | None, str]]]) -> None:
        self.lights = lights
        self.patterns_for = patterns_for

    def __call__(self, ruling: Ruling) -> None:
        for seat, pattern in self.patterns_for(ruling):
            self.lights.show(seat, pattern)

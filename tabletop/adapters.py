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
from referee.events import Event
from referee.ports import Notice
from referee.rulings import Ruling

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

    A camera that stops delivering frames for `frozen_after_s`, or raises, is
    reported lost (the runtime pauses judging) and reopened with `reopen`.
    """

    def __init__(self, open_camera: Callable[[], Any], pipeline: Any, *, frozen_after_s: float = 2.0,
                 name: str = "camera", clock: Callable[[], int] = time.monotonic_ns,
                 on_frame: Callable[[Any, int], None] | None = None) -> None:
        self.name = name
        self.on_frame = on_frame          # every frame with its capture stamp (evidence, dashboard)
        self.pipeline = pipeline
        self._open = open_camera
        self._frozen_ns = int(frozen_after_s * 1e9)
        self._clock = clock
        self._queue: queue.SimpleQueue[Event | Notice] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._last_frame = clock()
        self._lost = False
        self.frames = 0
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._watch = threading.Thread(target=self._watchdog, name="camera-watchdog", daemon=True)
        self._thread.start()
        self._watch.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                camera = self._open()
                for frame, t_ns in camera:
                    if self._stop.is_set():
                        break
                    self._seen_frame()
                    if self.on_frame is not None:
                        self.on_frame(frame, t_ns)
                    for event in self.pipeline.feed(frame, t_ns):
                        self._queue.put(event)
                camera.close()
                if not self._stop.is_set():
                    self._lose("Camera stopped: please pause the game")
                    self._stop.wait(1.0)
            except Exception as exc:
                self._lose(f"Camera lost ({type(exc).__name__}): please pause the game")
                self._stop.wait(1.0)

    def _seen_frame(self) -> None:
        self.frames += 1
        self._last_frame = self._clock()
        if self._lost:
            self._lost = False
            self._queue.put(Notice("camera_back", "Camera is back: play on"))

    def _lose(self, message: str) -> None:
        if not self._lost:
            self._lost = True
            self._queue.put(Notice("camera_lost", message))

    def _watchdog(self) -> None:
        while not self._stop.wait(0.25):
            if self._clock() - self._last_frame > self._frozen_ns:
                self._lose("Camera frozen: please pause the game")

    def poll(self, timeout_s: float) -> list[Event | Notice]:
        try:
            items: list[Event | Notice] = [self._queue.get(timeout=timeout_s)]
        except queue.Empty:
            return []
        while not self._queue.empty():
            items.append(self._queue.get())
        return items

    def close(self) -> None:
        self._stop.set()

    def __repr__(self) -> str:
        return f"<CameraEventSource {'lost' if self._lost else 'ok'} frames={self.frames}>"


class LightsObserver:
    """Shows each ruling on the lights through a pattern mapping."""

    def __init__(self, lights: Any, patterns_for: Callable[[Ruling], list[tuple[int | None, str]]]) -> None:
        self.lights = lights
        self.patterns_for = patterns_for

    def __call__(self, ruling: Ruling) -> None:
        for seat, pattern in self.patterns_for(ruling):
            self.lights.show(seat, pattern)

"""Device trouble becomes notices, never exceptions: a camera that stops or freezes, a stuck pad."""
from __future__ import annotations

import threading
import time
from typing import Any, Iterator

import numpy as np

from hardware.pads_sim import SimPads
from referee.core.events import MS, Slap
from referee.table.ports import Notice
from tabletop.adapters import CameraEventSource, PadEventSource


class FakeCamera:
    """Yields `frames` frames, then either ends (a camera that disappears) or hangs (frozen)."""

    def __init__(self, frames: int, *, hang: threading.Event | None = None) -> None:
        self.frames, self.hang = frames, hang

    def __iter__(self) -> Iterator[tuple[Any, int]]:
        for i in range(self.frames):
            yield np.zeros((48, 48, 3), np.uint8), time.monotonic_ns()
            time.sleep(0.01)
        if self.hang is not None:
            self.hang.wait(5)

    def close(self) -> None:
        return None


class CountingPipeline:
    def __init__(self) -> None:
        self.fed = 0

    def feed(self, frame: Any, t_ns: int) -> list[Any]:
        self.fed += 1
        return []


def notices(source: Any, kinds: set[str], timeout_s: float = 5.0) -> list[Notice]:
    seen: list[Notice] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and not kinds <= {n.kind for n in seen}:
        seen += [n for n in source.poll(0.1) if isinstance(n, Notice)]
    return seen


def test_a_camera_that_disappears_is_reported_lost_then_back() -> None:
    opened = []

    def open_camera() -> FakeCamera:
        opened.append(1)
        return FakeCamera(5)            # each opening delivers a few frames, then the camera goes away

    pipeline = CountingPipeline()
    source = CameraEventSource(open_camera, pipeline, frozen_after_s=10)
    try:
        seen = notices(source, {"camera_lost", "camera_back"})
    finally:
        source.close()
    kinds = [n.kind for n in seen]
    assert "camera_lost" in kinds and "camera_back" in kinds[kinds.index("camera_lost"):]
    assert len(opened) >= 2 and pipeline.fed >= 5


def test_a_frozen_camera_is_reported() -> None:
    hang = threading.Event()
    source = CameraEventSource(lambda: FakeCamera(3, hang=hang), CountingPipeline(), frozen_after_s=0.3)
    try:
        seen = notices(source, {"camera_lost"})
    finally:
        hang.set()
        source.close()
    assert any(n.kind == "camera_lost" and "frozen" in n.message.lower() for n in seen)


def test_a_stuck_pad_is_announced_and_its_slaps_still_flow() -> None:
    clock = [1_000 * MS]
    pads = SimPads(2, stuck_after_s=1.0, clock=lambda: clock[0])
    source = PadEventSource(pads)
    pads.slap(1, 1_000 * MS)
    pads.edge(0, 1_000 * MS, True)                 # seat 0 pressed and never released
    clock[0] = 3_000 * MS
    pads.poll(clock[0])
    items = source.poll(0.1)
    assert Slap(1, 1_000 * MS) in items
    stuck = [n for n in items if isinstance(n, Notice)]
    assert stuck and stuck[0].kind == "pad_stuck" and stuck[0].seat == 0 and "1" in stuck[0].message
    source.close()

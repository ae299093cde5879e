"""Camera sources yield (frame, t_ns) and close cleanly."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera import FolderSource, Picamera2Source, SimulatedSource, VideoCaptureSource
from referee.core.cards import Card
from referee.vision.simulate import PileSimulator


def test_folder_source_stamps_by_frame_rate(tmp_path: Path) -> None:
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((20, 30, 3), i * 50, np.uint8))
    (tmp_path / "notes.txt").write_text("not a frame")
    with FolderSource(tmp_path, fps=10, t0_ns=5) as src:
        got = list(src)
    assert [t for _, t in got] == [5, 100_000_005, 200_000_005]
    assert got[2][0][0, 0, 0] == 100
    assert "3 images" in repr(src)


def test_video_file_source_uses_file_time(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25, (64, 48))
    for i in range(5):
        out.write(np.full((48, 64, 3), i * 40, np.uint8))
    out.release()
    with VideoCaptureSource(str(path), t0_ns=1000) as src:
        stamps = [t for _, t in src]
    assert len(stamps) == 5
    assert stamps[1] - stamps[0] == 40_000_000


class _FakeRequest:
    def __init__(self, t: int) -> None:
        self.t = t
        self.released = False

    def get_metadata(self) -> dict:
        return {"SensorTimestamp": self.t}

    def make_array(self, name: str) -> np.ndarray:
        return np.zeros((12, 16, 3), np.uint8) if name == "lores" else np.ones((24, 32, 3), np.uint8)

    def release(self) -> None:
        self.released = True


class _FakePicamera2:
    """A stand-in with Picamera2's methods, handed in as `camera=`; it fails on the capture numbered `fail_at`."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.started = self.stopped = self.closed = False
        self.t = 0
        self.waits: list[float | None] = []
        self.fail_at = fail_at
        self.controls: dict = {}
        self.camera_controls = {"ExposureTime": (26, 200_000, 20_000), "LensPosition": (0.0, 15.0, 1.0)}

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.stopped = True

    def close(self) -> None:
        self.closed = True

    def set_controls(self, controls: dict) -> None:
        self.controls.update(controls)

    def capture_request(self, wait: float | None = None) -> _FakeRequest:
        self.waits.append(wait)
        if self.fail_at is not None and len(self.waits) >= self.fail_at:
            raise RuntimeError("frame error")
        self.t += 20_000_000
        return _FakeRequest(self.t)


def test_picamera2_source_carries_sensor_timestamp() -> None:
    cam = _FakePicamera2()
    with Picamera2Source(camera=cam, timeout_s=0.5) as src:
        it = iter(src)
        (f1, t1), (f2, t2) = next(it), next(it)
    assert (t1, t2) == (20_000_000, 40_000_000)
    assert f1.shape == (12, 16, 3) and src.last_main is not None and src.last_main.shape == (24, 32, 3)
    assert src.main_at(t2) is src.last_main
    assert cam.started and cam.stopped and cam.closed
    assert cam.waits == [0.5, 0.5]                    # every capture is a bounded wait


def test_picamera2_source_sends_only_controls_the_camera_has() -> None:
    cam = _FakePicamera2()
    src = Picamera2Source(camera=cam, controls={"ExposureTime": 8000, "LensPosition": 2.0, "AfMode": 0,
                                                "ColourGains": [1.5, 1.7]})
    assert cam.controls == {"ExposureTime": 8000, "LensPosition": 2.0}
    assert set(src.skipped) == {"AfMode", "ColourGains"}


def test_picamera2_source_closes_the_camera_when_a_capture_fails() -> None:
    cam = _FakePicamera2(fail_at=2)
    src = Picamera2Source(camera=cam)
    with pytest.raises(RuntimeError, match="frame error"):
        list(src)
    assert cam.stopped and cam.closed and "closed" in repr(src)


def test_simulated_source_passes_rendered_frames() -> None:
    sim = PileSimulator([Card.parse("2C")], size=120, idle_frames=1)
    with SimulatedSource(sim) as src:
        frames = list(src)
    stamps = [t for _, t in frames]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    assert frames[0][0].shape == (120, 120, 3)
    assert sim.drops[0].card == Card.parse("2C")

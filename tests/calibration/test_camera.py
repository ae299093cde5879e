"""Camera calibration on rendered video with a known card position and capture latency."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera_cal import calibrate_camera, iou
from calibration.picam_controls import lock_controls
from calibration.profile import load
from calibration.sim_camera import SimClock, lagged, rest_box
from hardware.camera import FolderSource
from referee.cli import main

LATENCY_NS = 45_000_000
JITTER_NS = 10_000_000


@pytest.mark.parametrize("seed", [0, 1])
def test_finds_the_card_and_measures_latency(seed: int) -> None:
    sim, truth = rest_box("QH", seed=seed)
    clock = SimClock()
    result = calibrate_camera(lagged(sim.frames(), clock, LATENCY_NS, JITTER_NS, seed), clock=clock)
    assert result.card is not None and result.pile is not None
    assert iou(result.card, truth) >= 0.9, (result.card, truth)
    x, y, w, h = result.pile                      # the pile region holds the card with room to spare
    assert x <= truth[0] and y <= truth[1] and x + w >= truth[0] + truth[2] and y + h >= truth[1] + truth[3]
    assert abs(result.fps - 30.0) < 0.01
    p99 = result.latency_ms(99)
    assert LATENCY_NS / 1e6 + 0.9 * JITTER_NS / 1e6 <= p99 <= (LATENCY_NS + JITTER_NS) / 1e6 + 0.01
    assert abs(result.latency_ms(50) - (LATENCY_NS + JITTER_NS / 2) / 1e6) < 2.0


def test_manual_pile_and_recorded_frames_have_no_latency(tmp_path: Path) -> None:
    sim, _ = rest_box("9S", seed=4)
    for n, (frame, _t) in enumerate(sim.frames()):
        cv2.imwrite(str(tmp_path / f"{n:04d}.png"), frame)
    result = calibrate_camera(FolderSource(tmp_path, fps=25.0), live=False, pile=[10, 20, 30, 40], min_frames=20)
    assert result.pile == (10, 20, 30, 40) and result.pile_from == "manual"
    assert not result.latency_measured and result.latency_ms() == 0.0
    assert abs(result.fps - 25.0) < 0.01


def test_empty_table_finds_nothing() -> None:
    frames = [(np.full((240, 240, 3), 90, np.uint8), i * 33_000_000) for i in range(40)]
    assert calibrate_camera(iter(frames), live=False).pile is None


class FakePicam:
    camera_controls = {"AeEnable": (False, True, True), "AwbEnable": (False, True, True),
                       "ExposureTime": (100, 1_000_000, 20000), "AnalogueGain": (1.0, 16.0, 1.0),
                       "ColourGains": (0.0, 32.0, None)}

    def __init__(self) -> None:
        self.sent: list[dict] = []

    def set_controls(self, c: dict) -> None:
        self.sent.append(c)

    def capture_metadata(self) -> dict:
        return {"ExposureTime": 30000, "AnalogueGain": 2.0, "ColourGains": (1.8, 1.5)}


def test_picamera_controls_are_locked_short() -> None:
    cam = FakePicam()
    got = lock_controls(cam, sleep=lambda s: None)
    assert got["ExposureTime"] == 10000 and got["AnalogueGain"] == pytest.approx(6.0)  # same brightness
    assert got["AeEnable"] is False and got["AwbEnable"] is False and got["ColourGains"] == [1.8, 1.5]
    assert "LensPosition" not in got                                # no autofocus on this module
    assert cam.sent[-1]["ColourGains"] == (1.8, 1.5)
    assert lock_controls(object()) == {}


def test_cli_sim_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["calibrate", "camera", "--source", "sim", "--yes", "--profile-dir", str(tmp_path),
                 "--min-frames", "40", "--sim-latency-ms", "30", "--sim-jitter-ms", "5"])
    out = capsys.readouterr().out
    assert code == 0, out
    cam = load(tmp_path / "table.toml").camera
    assert cam is not None and cam.latency_measured and 30 <= cam.latency_ms <= 35.01 and len(cam.pile) == 4

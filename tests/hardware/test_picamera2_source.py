"""Picamera2Source and CameraEventSource against the picamera2 fake of tests/fakeos, on a short world timeline.

The fake stands where Raspberry Pi OS's python3-picamera2 stands (it is
imported by its real name, with default arguments); the world decides what the
camera sees and when it fails.
"""
from __future__ import annotations

import sys
import time
from typing import Any, Iterator

import pytest

from hardware.camera import CameraStalled, Picamera2Source
from tabletop.adapters import CameraEventSource
from tests.conftest import ROOT

SMALL: dict[str, Any] = {"main_size": (320, 240), "lores_size": (160, 120)}   # 160 wide: lores rows padded to 192 bytes


@pytest.fixture
def fakeos(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """tests/fakeos first on the import path (as PYTHONPATH on a test Pi); yields the `world` module."""
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "fakeos"))
    for name in [m for m in sys.modules if m == "world" or m.split(".")[0] == "picamera2"]:
        monkeypatch.delitem(sys.modules, name)
    import world

    yield world
    from picamera2 import picamera2 as fake

    leaked = list(fake._ACQUIRED.values())
    for camera in leaked:
        camera.close()
    world.install(None)
    assert not leaked, "a test left a camera acquired"


def start_world(world: Any, spec: dict[str, Any] | None = None, lead_s: float = 0.0) -> Any:
    w = world.install(world.World(spec or {}))
    w.start(time.monotonic_ns() + int(lead_s * 1e9))
    return w


def take(source: Picamera2Source, n: int) -> list[tuple[Any, int]]:
    frames = []
    for item in source:
        frames.append(item)
        if len(frames) == n:
            break
    return frames


def test_frames_carry_sensor_timestamps_at_the_frame_rate(fakeos: Any) -> None:
    start_world(fakeos, {"cards": [{"t_us": 0, "card": "JH", "x": 0.5, "y": 0.5, "angle": 5}]})
    with Picamera2Source(**SMALL, max_exposure_us=None) as src:   # a fixed exposure: readouts a period apart
        frames = take(src, 8)
        now = time.monotonic_ns()
        stamps = [t for _, t in frames]
        assert all(f.shape == (120, 160, 3) for f, _ in frames)        # stride padding cut off
        newest = src.main_at(stamps[-1])
        assert newest is not None and newest.shape == (240, 320, 3) and src.main_at(stamps[0]) is None
        meta = src.last_metadata
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    assert all(g % 33_333_000 < 1_000_000 for g in gaps), gaps          # [camera] fps default 30 (slow first frames drop)
    assert all(abs(g - 33_333_000) < 1_000_000 for g in gaps[-4:]), gaps
    assert 0 < now - stamps[-1] < 100_000_000                          # CLOCK_MONOTONIC, read out just now
    assert meta["SensorTimestamp"] == stamps[-1] and meta["ExposureTime"] == 20_000
    assert frames[-1][0].mean() > 20                                    # a picture, not a blank buffer


def test_main_is_copied_only_for_the_frames_the_consumer_wants(fakeos: Any) -> None:
    start_world(fakeos, {"cards": [{"t_us": 0, "card": "JH", "x": 0.5, "y": 0.5, "angle": 5}]})
    wanted: list[bool] = []
    with Picamera2Source(**SMALL, max_exposure_us=None) as src:
        src.want_main = lambda: len(wanted) >= 3          # a landing starts being read at the fourth frame
        stamps = []
        for _frame, t in src:
            assert (src.main_at(t) is not None) == (len(wanted) >= 3)
            wanted.append(True)
            stamps.append(t)
            if len(stamps) == 6:
                break
    assert [src.main_at(t) is not None for t in stamps] == [False] * 3 + [True] * 3


def test_fps_and_profile_controls_reach_the_camera(fakeos: Any) -> None:
    w = start_world(fakeos)
    controls = {"AeEnable": False, "ExposureTime": 6000, "AnalogueGain": 3.0, "AfMode": 0, "LensPosition": 1.8,
                "ColourGains": [1.9, 1.6], "AwbEnable": False}
    with Picamera2Source(**SMALL, fps=50, controls=controls) as src:
        stamps = [t for _, t in take(src, 8)]
        meta = src.last_metadata
    assert abs((stamps[-1] - stamps[-2]) - 20_000_000) < 1_000_000
    assert (meta["ExposureTime"], meta["AnalogueGain"], meta["LensPosition"], meta["FrameDuration"]) == (6000, 3.0, 1.8, 20000)
    sent = [r["controls"] for r in w.records if r.get("op") == "controls"]
    assert sent[0]["FrameRate"] == 50.0 and sent[1]["ColourGains"] == (1.9, 1.6)
    assert [r["op"] for r in w.records if r.get("fake") == "picamera2"][-2:] == ["stop", "close"]


def test_auto_exposure_is_capped_so_landing_cards_do_not_smear(fakeos: Any) -> None:
    start_world(fakeos)
    with Picamera2Source(**SMALL) as src:
        first: dict[str, Any] = {}
        for _ in src:
            first = first or dict(src.last_metadata)
            if src.last_metadata["SensorTimestamp"] - first["SensorTimestamp"] > 150_000_000:
                break
        last = src.last_metadata
    assert first["ExposureTime"] > 10_000          # the camera's own choice for this light
    assert last["ExposureTime"] == 10_000 and last["AnalogueGain"] > first["AnalogueGain"]


def test_a_second_open_fails_as_busy_until_the_first_closes(fakeos: Any) -> None:
    start_world(fakeos)
    first = Picamera2Source(**SMALL)
    with pytest.raises(RuntimeError, match="did not complete") as busy:
        Picamera2Source(**SMALL)
    assert "busy" in str(busy.value.__cause__)
    first.close()
    with Picamera2Source(**SMALL) as again:
        assert take(again, 1)


def test_a_stalled_capture_returns_within_the_bound_and_frees_the_camera(fakeos: Any) -> None:
    start_world(fakeos, {"camera": {"faults": [{"kind": "stall", "t_us": 300_000, "until_us": 5_000_000}]}})
    src = Picamera2Source(**SMALL, timeout_s=0.3)
    it = iter(src)
    next(it)
    t0 = time.monotonic()
    with pytest.raises(CameraStalled):
        for _ in it:
            t0 = time.monotonic()
    assert time.monotonic() - t0 < 0.3 + 0.2
    assert not src.camera.is_open                   # closed on the way out: the next open acquires
    Picamera2Source(**SMALL).close()


def test_an_error_closes_the_camera_and_the_next_open_delivers(fakeos: Any) -> None:
    start_world(fakeos, {"camera": {"faults": [{"kind": "error", "t_us": 200_000}]}})
    src = Picamera2Source(**SMALL)
    with pytest.raises(RuntimeError, match="error"):
        for _ in src:
            pass
    assert not src.camera.is_open
    with Picamera2Source(**SMALL) as again:
        assert len(take(again, 2)) == 2


def test_a_gone_camera_cannot_be_opened_until_it_is_back(fakeos: Any) -> None:
    start_world(fakeos, {"camera": {"faults": [{"kind": "gone", "t_us": 0, "until_us": 300_000}]}})
    with pytest.raises(IndexError):
        Picamera2Source(**SMALL)
    time.sleep(0.35)
    with Picamera2Source(**SMALL) as src:
        assert take(src, 1)


class CountingPipeline:
    """The vision port: counts frames, finds no cards."""

    def __init__(self) -> None:
        self.fed: list[int] = []

    def feed(self, frame: Any, t_ns: int) -> list[Any]:
        self.fed.append(t_ns)
        return []


@pytest.mark.parametrize("fault", [{"kind": "error", "t_us": 300_000},
                                   {"kind": "stall", "t_us": 300_000, "until_us": 900_000},
                                   {"kind": "gone", "t_us": 300_000, "until_us": 900_000}])
def test_camera_event_source_reopens_after_a_fault_and_says_so_once(fakeos: Any, fault: dict[str, Any]) -> None:
    w = start_world(fakeos, {"camera": {"faults": [fault]}})
    pipeline = CountingPipeline()
    source = CameraEventSource(lambda: Picamera2Source(**SMALL, timeout_s=0.25), pipeline,
                               frozen_after_s=1.0, retry_s=(0.05, 0.2))
    notices: list[Any] = []
    try:
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            notices += source.poll(0.05)
            if any(n.kind == "camera_back" for n in notices) and len(pipeline.fed) >= 5 + fed_at_back(pipeline, w, fault):
                break
    finally:
        source.close(timeout_s=2.0)
    kinds = [n.kind for n in notices]
    assert kinds.count("camera_lost") == 1 and kinds.count("camera_back") == 1, kinds
    assert kinds.index("camera_lost") < kinds.index("camera_back")
    assert source.reopens >= 1 and not source.running
    end = fault.get("until_us", fault["t_us"]) * 1000 + w.ns(0)
    assert sum(t > end for t in pipeline.fed) >= 5                      # frames again after the fault
    assert pipeline.fed == sorted(pipeline.fed)
    opens = [r["op"] for r in w.records if r.get("fake") == "picamera2" and r["op"] in ("open", "close")]
    assert opens.count("open") == opens.count("close") >= 2             # every camera opened was closed


def fed_at_back(pipeline: CountingPipeline, w: Any, fault: dict[str, Any]) -> int:
    """Frames fed before the fault ended (so the wait above asks for five after it)."""
    end = fault.get("until_us", fault["t_us"]) * 1000 + w.ns(0)
    return sum(t <= end for t in pipeline.fed)


def test_default_arguments_open_the_camera_as_on_a_pi(fakeos: Any) -> None:
    w = start_world(fakeos)
    with Picamera2Source() as src:
        (frame, _t), = take(src, 1)
        main = src.last_main
    assert frame.shape == (480, 640, 3) and main is not None and main.shape == (960, 1280, 3)
    configured = next(r for r in w.records if r.get("op") == "configure")
    assert configured["main"]["format"] == "RGB888" and configured["lores"]["format"] == "YUV420"
    assert next(r for r in w.records if r.get("op") == "controls")["controls"]["FrameRate"] == 30.0

"""The fake camera module's physics: an imx708 (Camera Module 3) over the pile, per frame.

Timing (picamera2 manual and examples/timestamp_capture.py): frames are
exposed one frame duration apart; a frame's `SensorTimestamp` is CLOCK_MONOTONIC
ns when its first row was read out, so its exposure started `1000 *
ExposureTime` ns earlier; the request completes after the readout and the ISP.
Exposure (libcamera's AGC): with AeEnable the camera picks exposure x gain for
the table's light, exposure capped by the frame duration (shorter under
AeExposureMode Short); ExposureTime / AnalogueGain fix either; a frame is as
bright as exposure x gain against what the light needs. Focus: LensPosition is
in dioptres; the table lies TABLE_DIOPTRES away, and a lens elsewhere blurs.
The picture is the world's scene (tests/fakeos/world.py) at mid-exposure,
drawn by tabletop.scene_render.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

MODEL = "imx708"
CAMERA_ID = "/base/soc/i2c0mux/i2c@1/imx708@1a"
#: Sensor modes (size, max fps) as `Picamera2.sensor_modes` lists them for the imx708.
MODES = (((1536, 864), 120.13), ((2304, 1296), 56.03), ((4608, 2592), 14.35))
AE_EXPOSURE_US = 20_000        # the table's light needs exposure x gain = 20 ms x 1.0
SHORT_EXPOSURE_US = 8_000      # AeExposureMode Short: the AGC's exposure ceiling
MAX_GAIN = 16.0
TABLE_DIOPTRES = 1.8           # the table 55 cm below the lens
DEFOCUS_PX = 0.4               # blur sigma (px at 640 wide) per dioptre of focus error: 4.74 mm f/1.8 lens
ISP_NS = 4_000_000             # ISP time after the readout
CONTROL_DELAY_FRAMES = 2       # frames before a set control reaches the sensor (libcamera's delayed controls)
PILE_REGION = (0.0, 0.0, 1.0, 1.0)   # the pile region as fractions of the frame: the whole view, as `[camera] pile = []`
CARD_WIDTH = 0.3               # a card's width as a share of the frame height

#: name -> (min, max, default), as `Picamera2.camera_controls` gives them for an imx708.
CONTROLS: dict[str, tuple[Any, Any, Any]] = {
    "AeEnable": (False, True, None), "AeExposureMode": (0, 3, 0), "AeMeteringMode": (0, 3, 0),
    "AwbEnable": (False, True, None), "ColourGains": (0.0, 32.0, None), "ExposureTime": (26, 220417486, 20000),
    "AnalogueGain": (1.112, MAX_GAIN, 1.0), "FrameDurationLimits": (8324, 220535000, 33333),
    "AfMode": (0, 2, 0), "AfTrigger": (0, 1, 0), "LensPosition": (0.0, 15.0, 1.0),
    "NoiseReductionMode": (0, 4, 0), "Brightness": (-1.0, 1.0, 0.0), "Contrast": (0.0, 32.0, 1.0),
    "ScalerCrop": ((0, 0, 64, 64), (0, 0, 4608, 2592), (0, 0, 4608, 2592)),
}


def fastest_frame_us(main_size: tuple[int, int]) -> int:
    """The shortest frame duration of the smallest sensor mode that holds `main_size`."""
    for (w, h), fps in MODES:
        if main_size[0] <= w and main_size[1] <= h:
            return int(1e6 / fps)
    return int(1e6 / MODES[-1][1])


@dataclass
class Settings:
    """The controls in force on the sensor (libcamera units: µs, dioptres)."""

    frame_us: tuple[int, int] = (33333, 33333)
    ae: bool = True
    ae_mode: int = 0
    exposure_us: int = 0          # 0: chosen by the AGC
    gain: float = 0.0             # 0: chosen by the AGC
    af_mode: int = 0
    lens: float = 1.0
    last_exposure_us: int = AE_EXPOSURE_US
    last_gain: float = 1.0

    def apply(self, controls: dict[str, Any]) -> None:
        for name, value in controls.items():
            if name == "FrameDurationLimits":
                self.frame_us = (int(value[0]), int(value[1]))
            elif name == "AeEnable":
                self.ae = bool(value)
            elif name == "AeExposureMode":
                self.ae_mode = int(value)
            elif name == "ExposureTime":
                self.exposure_us = int(value)
            elif name == "AnalogueGain":
                self.gain = float(value)
            elif name == "AfMode":
                self.af_mode = int(value)
            elif name == "LensPosition":
                self.lens = float(value)

    def expose(self, fastest_us: int) -> tuple[int, float, int]:
        """This frame's (exposure µs, analogue gain, frame duration µs)."""
        lo, hi = max(self.frame_us[0], fastest_us), max(self.frame_us[1], fastest_us)
        if self.exposure_us:
            exposure = self.exposure_us
        elif self.ae:
            ceiling = SHORT_EXPOSURE_US if self.ae_mode == 1 else hi
            exposure = min(AE_EXPOSURE_US, ceiling)
        else:
            exposure = self.last_exposure_us
        frame = min(hi, max(lo, exposure + 200))
        exposure = min(exposure, frame - 200)
        if self.gain:
            gain = self.gain
        elif self.ae:
            gain = min(MAX_GAIN, max(1.0, AE_EXPOSURE_US / exposure))
        else:
            gain = self.last_gain
        self.last_exposure_us, self.last_gain = exposure, gain
        return exposure, gain, frame

    def focus_error(self) -> float:
        """Dioptres between the lens and the table (continuous AF finds the table)."""
        return 0.0 if self.af_mode == 2 else abs(self.lens - TABLE_DIOPTRES)


@dataclass(frozen=True)
class Frame:
    """One exposed frame: its timing, settings and the scene it saw."""

    sequence: int
    exposure_start_ns: int
    sensor_timestamp_ns: int
    exposure_us: int
    gain: float
    frame_us: int
    focus_error: float
    lens: float


_RENDERERS: dict[tuple[tuple[int, int], int], Any] = {}
_RENDER_LOCK = threading.Lock()


def render_bgr(frame: Frame, size: tuple[int, int], world: Any) -> np.ndarray:
    """The frame's picture at `size` (w, h), BGR: the world's scene at mid-exposure."""
    from tabletop.scene_render import Look, SceneRenderer

    with _RENDER_LOCK:
        key = (size, int(getattr(world, "seed", 0)))
        renderer = _RENDERERS.get(key)
        if renderer is None:
            renderer = _RENDERERS[key] = SceneRenderer(size, pile=PILE_REGION, card_width=CARD_WIDTH, seed=key[1])
        mid = frame.exposure_start_ns + frame.exposure_us * 500
        look = Look(brightness=frame.exposure_us * frame.gain / AE_EXPOSURE_US, exposure_ns=frame.exposure_us * 1000,
                    defocus=frame.focus_error * DEFOCUS_PX * size[0] / 640, noise=1.5 * frame.gain ** 0.5)
        return renderer.render_scene(world.scene(mid), mid, look)


def stream_array(bgr: np.ndarray, fmt: str, size: tuple[int, int]) -> np.ndarray:
    """A stream's array as `CompletedRequest.make_array` returns it (request.py `_make_array_shared`):
    RGB888 is B, G, R in memory; BGR888 R, G, B; XBGR8888 R, G, B, 255; XRGB8888 B, G, R, 255;
    YUV420 the I420 planes as (h * 3 // 2, stride) with each row padded to a multiple of 64 bytes."""
    if (bgr.shape[1], bgr.shape[0]) != size:
        bgr = cv2.resize(bgr, size, interpolation=cv2.INTER_AREA)
    if fmt == "RGB888":
        return bgr
    if fmt == "BGR888":
        return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    if fmt == "XRGB8888":
        return cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA)
    if fmt == "XBGR8888":
        return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGBA)
    if fmt in ("YUV420", "YVU420"):
        w, h = size
        i420 = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420 if fmt == "YUV420" else cv2.COLOR_BGR2YUV_YV12)
        stride = -(-w // 64) * 64
        if stride == w:
            return i420
        y = np.zeros((h, stride), np.uint8)
        y[:, :w] = i420[:h]
        chroma = i420[h:].reshape(2, h // 2, w // 2)
        uv = np.zeros((2, h // 2, stride // 2), np.uint8)
        uv[:, :, :w // 2] = chroma
        return np.concatenate([y.ravel(), uv.ravel()]).reshape(h * 3 // 2, stride)
    raise RuntimeError(f"Format {fmt} not supported")

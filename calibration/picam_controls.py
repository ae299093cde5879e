"""Lock a Raspberry Pi camera's exposure, white balance and focus for the table (picamera2).

Auto exposure and white balance are let settle on the table as it is lit for
play, then frozen, so the recognizer sees the same colours all game and the
exposure stays short enough that a dropped card is not a blur. Cameras without
a control (no autofocus on a v2 module) skip it. Anything but a picamera2-like
object (a USB camera, a recording) is skipped whole.
"""
from __future__ import annotations

import time
from typing import Any, Callable

MAX_EXPOSURE_US = 10_000              # 1/100 s: a card sliding in still reads


def lock_controls(camera: Any, *, settle_s: float = 1.5, max_exposure_us: int = MAX_EXPOSURE_US,
                  sleep: Callable[[float], None] = time.sleep,
                  progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run auto exposure/white balance (and one autofocus cycle), then fix what they found.
    Returns the controls set, for the profile; {} when the camera has no such controls."""
    available = getattr(camera, "camera_controls", None)
    if not isinstance(available, dict) or not hasattr(camera, "set_controls"):
        return {}
    auto = {k: True for k in ("AeEnable", "AwbEnable") if k in available}
    if auto:
        camera.set_controls(auto)
    if "AfMode" in available and hasattr(camera, "autofocus_cycle"):
        if progress:
            progress("focusing on the table...")
        camera.set_controls({"AfMode": 1})  # auto: one scan on trigger
        camera.autofocus_cycle()
    sleep(settle_s)
    meta = camera.capture_metadata()
    chosen: dict[str, Any] = {}
    exposure = int(meta.get("ExposureTime", 0))
    gain = float(meta.get("AnalogueGain", 1.0))
    if "ExposureTime" in available and exposure > 0:
        if exposure > max_exposure_us:       # keep the brightness: shorter exposure, more gain
            gain *= exposure / max_exposure_us
            exposure = max_exposure_us
        chosen.update(AeEnable=False, ExposureTime=exposure)
        if "AnalogueGain" in available:
            hi = float(available["AnalogueGain"][1] or gain)
            chosen["AnalogueGain"] = round(min(gain, hi), 3)
    if "ColourGains" in available and meta.get("ColourGains"):
        red, blue = meta["ColourGains"]
        chosen.update(AwbEnable=False, ColourGains=[round(float(red), 4), round(float(blue), 4)])
    if "LensPosition" in available and meta.get("LensPosition") is not None:
        chosen.update(AfMode=0, LensPosition=round(float(meta["LensPosition"]), 3))
    send = {k: (tuple(v) if isinstance(v, list) else v) for k, v in chosen.items()}
    if send:
        camera.set_controls(send)
    return chosen

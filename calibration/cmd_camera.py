"""`referee calibrate camera`: pile region, frame rate, capture latency, camera controls."""
from __future__ import annotations

import argparse
import itertools

from .camera_cal import calibrate_camera
from .picam_controls import lock_controls
from .profile import CameraProfile
from .sources import open_camera, parse_ints
from .steps import open_profile, prompter, store


def run(args: argparse.Namespace) -> int:
    ui = prompter(args)
    profile, path = open_profile(args)
    pile = parse_ints(args.pile, 4, "--pile") if args.pile else None
    ui.step(1, 3, f"camera: {args.source}")
    if pile is None:
        ui.wait("Clear the spot where the pile will be. When calibration starts, drop ONE card there, "
                "face up, and take your hand away")
    feed = open_camera(args)
    controls: dict = {}
    try:
        frames = iter(feed.frames)
        first = next(frames, None)
        if first is None:
            ui.say("no frames from the camera")
            return 2
        if feed.camera is not None and not args.no_controls:
            ui.step(2, 3, "exposure, white balance, focus")
            controls = lock_controls(feed.camera, progress=ui.say)
            ui.say(f"locked: {controls}" if controls else "this camera has no such controls; left automatic")
        else:
            ui.step(2, 3, "exposure, white balance, focus: not adjustable on this source, skipped")
        ui.step(3, 3, "watching: drop the card now" if pile is None else "timing frames")
        result = calibrate_camera(itertools.chain([first], frames), clock=feed.clock, live=feed.live, pile=pile,
                                  min_frames=args.min_frames, max_frames=args.max_frames, progress=ui.say)
    finally:
        feed.close()
    for line in result.lines(args.percentile):
        ui.say(line)
    if result.pile is None:
        return 1
    old = profile.camera or CameraProfile()
    section = CameraProfile(
        source=args.source, frame_size=list(result.frame_size), pile=list(result.pile),
        card=list(result.card) if result.card else [], fps=round(result.fps, 3),
        latency_ms=round(result.latency_ms(args.percentile), 3) if feed.live else old.latency_ms,
        latency_p50_ms=round(result.latency_ms(50), 3) if feed.live else old.latency_p50_ms,
        latency_percentile=args.percentile, latency_measured=feed.live or old.latency_measured,
        controls=controls or old.controls if args.source == "picamera2" else {})
    store(args, profile, path, ui, camera=section)
    return 0

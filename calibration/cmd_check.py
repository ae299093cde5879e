"""`referee calibrate check`: before a game, re-verify the profile quickly (well under a minute).

- profile: loads and validates (unknown keys, version, types);
- deck: the learned model is the file the profile names (sha256), usable, and
  with `--folder` still names those photos right;
- camera: with `--source`, the frame rate and capture latency are re-timed and
  compared with the profile (a latency above the saved hold-back is a failure);
- pads: with `--events`, offsets are re-measured and must agree with the
  profile within the larger of its tie margin and 50 µs.
"""
from __future__ import annotations

import argparse
import itertools

from .apply import deck_recognizer
from .profile import ProfileError
from .steps import directory, open_profile, prompter

PAD_TOLERANCE_US = 50


def run(args: argparse.Namespace) -> int:
    ui = prompter(args)
    profile, path = open_profile(args)
    if not path.exists():
        ui.say(f"FAIL profile: none for table {args.table!r} at {path}")
        return 1
    failures = 0

    def report(ok: bool, what: str, detail: str) -> None:
        nonlocal failures
        failures += 0 if ok else 1
        ui.say(f"{'ok  ' if ok else 'FAIL'} {what}: {detail}")

    report(True, "profile", f"{path} (version {profile.version}, updated {profile.updated})")
    # deck
    if profile.deck is None:
        report(False, "deck", "not calibrated")
    else:
        try:
            model = deck_recognizer(profile, directory(args))
        except ProfileError as exc:
            model = None
            report(False, "deck", str(exc))
        else:
            report(model is not None, "deck", f"{profile.deck.name}: {len(profile.deck.cards)} cards, "
                   + ("usable" if model else f"NOT usable (missing {len(profile.deck.missing)}, "
                      f"confused {len(profile.deck.confused)})"))
        if model is not None and args.folder:
            from .deck_cal import accuracy, score
            from .deck_shots import folder_shots
            shots = [s for s in folder_shots(args.folder) if s.card in profile.deck.cards]
            results = score(model, shots)
            acc = accuracy(results)
            wrong = [f"{r.card} as {w}" for r in results.values() for w in r.named_as]
            report(acc == 1.0 and bool(shots), "deck photos",
                   f"{acc:.0%} of {len(shots)} named right" + (f"; wrong: {', '.join(wrong)}" if wrong else ""))
    # camera
    cam = profile.camera
    if cam is None:
        report(False, "camera", "not calibrated")
    elif args.source:
        from .camera_cal import calibrate_camera
        from .sources import open_camera
        feed = open_camera(args)
        try:
            result = calibrate_camera(itertools.islice(feed.frames, args.frames), clock=feed.clock, live=feed.live,
                                      pile=cam.pile or [0, 0, 1, 1], min_frames=args.frames, max_frames=args.frames)
        finally:
            feed.close()
        lat = result.latency_ms(cam.latency_percentile)
        if feed.live and cam.latency_measured:
            report(lat <= cam.latency_ms * 1.2, "camera latency",
                   f"p{cam.latency_percentile:g} {lat:.1f} ms now, hold-back {cam.latency_ms:.1f} ms")
        report(cam.fps <= 0 or abs(result.fps - cam.fps) <= 0.1 * cam.fps, "camera fps",
               f"{result.fps:.1f} now, {cam.fps:.1f} calibrated")
        if cam.frame_size:
            report(list(result.frame_size) == cam.frame_size, "camera frame",
                   f"{result.frame_size[0]}x{result.frame_size[1]} now, {cam.frame_size[0]}x{cam.frame_size[1]} calibrated")
    else:
        report(True, "camera", f"pile {cam.pile}, hold-back {cam.latency_ms:.1f} ms (not re-timed: no --source)")
    # pads
    pads = profile.pads
    if pads is None:
        report(False, "pads", "not calibrated")
    elif args.events:
        from hardware.pads_sim import SimPads

        from .pad_script import EdgeReplay
        from .pads_cal import calibrate_pads
        replay = EdgeReplay(args.events)
        seats = len(pads.offsets_us)
        sim = SimPads(max(replay.inputs, seats + 1), debounce_ms=0.0, watchdog_s=None)
        try:
            pads_result = calibrate_pads(sim, seats, replay.bind(sim), trials=replay.trials_per_seat,
                                         reference_seat=seats if pads.reference == "pad" else None)
        finally:
            sim.close()
        for s in pads_result.seats:
            want = pads.offsets_us[s.seat]
            got = round(s.offset_ns / 1000)
            tol = max(PAD_TOLERANCE_US, pads.tie_margin_us[s.seat] if pads.tie_margin_us else 0)
            report(s.wiring == pads.wiring[s.seat] and abs(got - want) <= tol, f"pad seat {s.seat + 1}",
                   f"input {s.wiring}, offset {got} µs now, {want} µs calibrated (±{tol})")
    else:
        report(True, "pads", f"offsets {pads.offsets_us} µs, table tie {pads.table_tie_us} µs (not re-slapped)")
    ui.say("READY" if not failures else f"NOT READY: {failures} check(s) failed")
    return 0 if not failures else 1

"""`referee calibrate ...`: fit the referee to a table and save the table's profile.

    referee calibrate camera  [--source picamera2|opencv|video|folder|sim] [--path P] [--pile x,y,w,h]
    referee calibrate deck    (--folder DIR | --video FILE [--order 9S,10S,...] | --scenes DIR)
                              [--deck 52|54|36|32|24|LIST]
    referee calibrate deck    --deal DIR_OR_VIDEO --redeal DIR_OR_VIDEO [--order ...] [--deck ...]
        learn the deck in two minutes: deal it all face up in any order (a video of the pile, or a
        folder of one image per landing); the referee asks only about the landings it is unsure of
        (Enter takes its guess, "-" says no card), learns, and checks itself on a re-deal of 20
        other cards (a labelled folder, or a video dealt in the --order given). Usable only when
        every card was dealt and the re-deal named none wrongly and most of it.
    referee calibrate pads    [--events FILE.jsonl | --simulate] [--seats N] [--trials N] [--reference-seat R]
    referee calibrate audio   [--volume N] [--backend espeak|files|silent] [--dir DIR]
    referee calibrate check   [--source ...] [--folder DIR]
    referee calibrate show

Every step reads the table's profile (`--table`, `--profile-dir`), replaces its
own section and saves. `--yes` answers every prompt with its default, for
recorded input and scripts; without a terminal on stdin it is implied.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from .profile import ProfileError, check_table_name, default_dir, load_or_new

EXIT_OK, EXIT_NOT_READY, EXIT_ERROR = 0, 1, 2


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--table", default="table", type=check_table_name, help="profile name (default: table)")
    p.add_argument("--profile-dir", default=None,
                   help=f"where profiles live (default: {default_dir()})")
    p.add_argument("--config", default=None, help="the table config TOML (seats, pad backend, audio)")
    p.add_argument("--yes", "-y", action="store_true", help="no prompts: take every default (recorded input)")


def _camera_source(p: argparse.ArgumentParser, required: bool = False) -> None:
    p.add_argument("--source", choices=("picamera2", "opencv", "video", "folder", "sim"),
                   default=None if not required else "picamera2", help="where frames come from")
    p.add_argument("--path", default="", help="video file or image folder (--source video/folder)")
    p.add_argument("--device", type=int, default=0, help="USB camera number (--source opencv)")
    p.add_argument("--fps", type=float, default=30.0, help="frame rate of a folder of stills")
    p.add_argument("--seed", type=int, default=0, help="simulated table seed (--source sim)")
    p.add_argument("--sim-card", default="QH", help=argparse.SUPPRESS)
    p.add_argument("--sim-latency-ms", type=float, default=40.0, help="simulated capture latency (--source sim)")
    p.add_argument("--sim-jitter-ms", type=float, default=8.0, help="simulated latency jitter (--source sim)")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="fit the referee to this table: camera, deck, pads, audio; check",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = p.add_subparsers(dest="step", metavar="STEP")
    steps.required = True

    cam = steps.add_parser("camera", help="pile region, frame rate, capture latency, exposure/white balance/focus")
    _common(cam)
    _camera_source(cam, required=True)
    cam.add_argument("--pile", default=None, help="manual pile region x,y,w,h (skips finding it)")
    cam.add_argument("--percentile", type=float, default=99.0, help="latency percentile used as hold-back")
    cam.add_argument("--min-frames", type=int, default=90, help="frames to time at least")
    cam.add_argument("--max-frames", type=int, default=1800, help="give up finding the card after this many")
    cam.add_argument("--no-controls", action="store_true", help="leave exposure/white balance/focus automatic")
    cam.set_defaults(run=_lazy("calibration.cmd_camera", "run"))

    deck = steps.add_parser("deck", help="learn the players' own deck; refuse it until every card is named right")
    _common(deck)
    src = deck.add_mutually_exclusive_group(required=True)
    src.add_argument("--folder", help="photos of single cards (labels.csv, or names like 10H_03.jpg)")
    src.add_argument("--video", help="a video of the deck dealt onto the pile one card at a time")
    src.add_argument("--scenes", help="labelled photos of several cards each (labels.csv and corner_boxes.csv)")
    src.add_argument("--deal", help="the whole deck dealt face up in any order: a video, or a folder of one "
                                    "image per landing (labels ignored); asks only about unsure landings")
    deck.add_argument("--order", default=None, help="deal order of the video (--video, or a --redeal video): "
                                                    "9S,10S,... (or @file)")
    deck.add_argument("--redeal", default=None, help="with --deal: 20 other cards to check on, a labelled "
                                                     "folder or a video dealt in --order")
    deck.add_argument("--deck", default="52", help="52, 54, 36, 32, 24, or a comma list of the deck's cards")
    deck.add_argument("--name", default="", help="what to call the deck (e.g. piatnik-vienna)")
    deck.add_argument("--learn", type=int, default=3, help="shots per card to learn from; the rest check it")
    deck.add_argument("--check", default=None, help="a folder of held-out shots (then --folder is all learned)")
    deck.add_argument("--no-baseline", action="store_true", help="skip scoring the stock recognizer")
    deck.set_defaults(run=_lazy("calibration.cmd_deck", "run"))

    pads = steps.add_parser("pads", help="wiring, bounce, latency offsets, tie margin, MPR121 thresholds")
    _common(pads)
    pads.add_argument("--events", default=None, help="recorded slaps (JSON lines) to calibrate from")
    pads.add_argument("--simulate", action="store_true", help="scripted hands on simulated pads (a demo)")
    pads.add_argument("--sim-offsets-us", default="1200,350,4000,800", help=argparse.SUPPRESS)
    pads.add_argument("--sim-bounce-ms", default="2,0,5,1", help=argparse.SUPPRESS)
    pads.add_argument("--record", default=None, help="also write the slaps seen to this JSON-lines file")
    pads.add_argument("--seats", type=int, default=None, help="seats (default: the config's players)")
    pads.add_argument("--trials", type=int, default=10, help="slaps per seat")
    pads.add_argument("--reference-seat", type=int, default=None,
                      help="the input wired to the reference contact (default: the one after the seats)")
    pads.add_argument("--reference-pin", type=int, default=None, help="GPIO pin / MPR121 electrode of the reference")
    pads.add_argument("--no-reference", action="store_true", help="no reference: wiring and bounce only")
    pads.set_defaults(run=_lazy("calibration.cmd_pads", "run"))

    audio = steps.add_parser("audio", help="play a test phrase and set the volume")
    _common(audio)
    audio.add_argument("--volume", type=int, default=None, help="start (or, with --yes, keep) this volume 0-100")
    audio.add_argument("--backend", choices=("espeak", "files", "silent"), default=None)
    audio.add_argument("--dir", default=None, help="folder for the files backend")
    audio.set_defaults(run=_lazy("calibration.cmd_audio", "run"))

    check = steps.add_parser("check", help="quick re-check of camera, deck and pads before a game")
    _common(check)
    _camera_source(check)
    check.add_argument("--folder", default=None, help="a few card photos to re-check the deck on")
    check.add_argument("--events", default=None, help="recorded slaps to re-check the pad offsets on")
    check.add_argument("--frames", type=int, default=60, help="frames to time the camera on")
    check.set_defaults(run=_lazy("calibration.cmd_check", "run"))

    show = steps.add_parser("show", help="print the profile and where it is")
    _common(show)
    show.set_defaults(run=_show)


def _lazy(module: str, name: str) -> Any:
    """Import a step only when it runs (OpenCV and numpy load only for the steps that need them)."""
    def run(args: argparse.Namespace) -> int:
        import importlib
        try:
            return int(getattr(importlib.import_module(module), name)(args))
        except ProfileError as exc:
            print(f"referee calibrate: {exc}", file=sys.stderr)
            return EXIT_ERROR
    return run


def _show(args: argparse.Namespace) -> int:
    from . import profile as prof
    try:
        profile, path = load_or_new(args.table, args.profile_dir)
    except ProfileError as exc:
        print(f"referee calibrate: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if not path.exists():
        print(f"no profile for table {args.table!r} yet ({path})")
        return EXIT_NOT_READY
    print(f"# {path}")
    print(prof.dumps(profile), end="")
    return EXIT_OK

"""`referee run --config table.toml`: referee the table the config describes, game after game.

What the installed service runs. `[kiosk] mode = "table"` plays the configured
game on the configured pads and camera; `mode = "demo"` plays the kiosk demo
(`tabletop.demo.demo_config`: bots in a simulated world, a rendered camera)
with the config's journal, dashboard, PIN, voice and `[kiosk] speed`. Both go
through `tabletop.table_loop.run_table`.
"""
from __future__ import annotations

import argparse
import sys

from referee.config import ConfigError

from .build import TableSetupError, check, config_or_none, load_profile
from .table_loop import RunOptions, run_table


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="referee the table (camera, pads, lights, voice, journal), game after game")
    p.add_argument("--config", required=True, help="table config (TOML)")
    p.add_argument("--check", action="store_true", help="validate the config and the hardware it names, then exit")
    p.add_argument("--resume", action="store_true", help="continue the last unfinished game from the journal")
    p.add_argument("--profile", help="calibration profile (TOML) from `referee calibrate`: pile region, latency, "
                                     "pad offsets, camera controls, the learned deck")
    p.add_argument("--seconds", type=float, default=None, help="stop after this many seconds (tests, demos)")
    p.add_argument("--games", type=int, default=0, help="stop after this many games (default: run until stopped)")
    p.add_argument("--no-dashboard", action="store_true", help="do not serve the dashboard ([kiosk] bind/port)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = config_or_none(args.config, "run")
    if config is None:
        return 2
    opts = RunOptions(command="run", games=args.games, seconds=args.seconds, resume=args.resume,
                      dashboard=not args.no_dashboard)
    if args.profile:
        try:
            config, opts.recognizer, opts.controls = load_profile(config, args.profile)
        except TableSetupError as exc:
            print(f"referee run: {exc}", file=sys.stderr)
            return 2
    if config.kiosk.mode == "demo":
        from .demo import demo_config
        try:
            config = demo_config(config, speed=config.kiosk.speed)
        except ConfigError as exc:
            print(f"referee run: {exc}", file=sys.stderr)
            return 2
        opts.rotate = True
    if config.pads.backend == "bots":
        opts.speed = config.kiosk.speed          # a simulated table may run faster than real time
    if args.check:
        lines = check(config)
        for ok, line in lines:
            print(f"{'ok  ' if ok else 'FAIL'} {line}")
        return 0 if all(ok for ok, _ in lines) else 2
    return run_table(config, opts)

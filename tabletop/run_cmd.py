"""`referee run --config table.toml`: referee the table the config describes, game after game.

What the installed service runs. `[kiosk] mode = "table"` plays the configured
game on the configured pads and camera; `mode = "demo"` plays the kiosk demo
(`tabletop.demo.demo_config`: bots in a simulated world, a rendered camera)
with the config's journal, dashboard, PIN, voice and `[kiosk] speed`. Both go
through `tabletop.table_loop.run_table`.

Before anything is built, `preflight` refuses in one line what the config asks
of this machine and cannot have: a journal path that is a folder, a device, not
a journal, damaged or unwritable, and a dashboard open beyond localhost without
an operator PIN. `--check` reports the same lines among the hardware's, and
creates nothing (no journal, no voice folder).
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

from referee.config import ConfigError, TableConfig

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
        lines = check_without_creating(config)
        lines[1:1] = preflight(config, dashboard=opts.dashboard)     # after "config ...: valid"
        for ok, line in lines:
            print(f"{'ok  ' if ok else 'FAIL'} {line}")
        return 0 if all(ok for ok, _ in lines) else 2
    # before anything is built, opened or created (the journal's opening runs its own quick_check)
    refused = [line for ok, line in preflight(config, dashboard=opts.dashboard, deep=False) if not ok]
    if refused:
        print(f"referee run: {refused[0]}", file=sys.stderr)
        return 2
    return run_table(config, opts)


def preflight(config: TableConfig, *, dashboard: bool = True, deep: bool = True) -> list[tuple[bool, str]]:
    """What the config asks of this machine that it can refuse without touching anything: the journal
    (the journal's own file checks, and with `deep` the quick_check its opening runs anyway) and a
    dashboard open to the network without an operator PIN."""
    return [journal_check(config.journal.path, deep=deep), *([bind_check(config)] if dashboard else [])]


def journal_check(path_text: str, *, deep: bool = True) -> tuple[bool, str]:
    """The journal's file as opening it would judge it (`journal_health.check_for_table`), as a line."""
    from referee.journal import JournalError
    from referee.journal.health import check_for_table
    path = Path(path_text)
    try:
        new = check_for_table(path, deep=deep)
    except JournalError as exc:
        return False, f"[journal] path: {str(exc).splitlines()[0]}"
    return True, f"journal: {path} ({'new, created at the first game' if new else 'sound'})"


def bind_check(config: TableConfig) -> tuple[bool, str]:
    """The dashboard's own rule (referee.web.server.check_bind): beyond localhost only with a PIN."""
    from referee.web.server import InsecureBind, check_bind
    try:
        check_bind(config.kiosk.bind, config.kiosk.operator_pin)
    except InsecureBind as exc:
        return False, f"[kiosk] bind: {exc}"
    return True, f"dashboard: {config.kiosk.bind}:{config.kiosk.port}"


def check_without_creating(config: TableConfig) -> list[tuple[bool, str]]:
    """`build.check`, except that a "files" voice whose folder does not exist yet is not built (its
    announcer would create the folder): the folder's parent is checked instead."""
    audio = config.audio
    if audio.backend != "files" or Path(audio.dir).is_dir():
        return check(config)
    lines = check(replace(config, audio=replace(audio, backend="silent")))
    parent = Path(audio.dir).absolute().parent
    if Path(audio.dir).exists():
        line = (False, f"[audio] dir: {audio.dir} is not a folder")
    elif not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        line = (False, f"[audio] dir: {audio.dir} cannot be created ({parent} is missing or read-only)")
    else:
        line = (True, f"audio: files into {audio.dir} (created at the first utterance)")
    return [line if text.startswith("audio:") else (ok, text) for ok, text in lines]

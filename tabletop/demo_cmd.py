"""`referee demo`: the kiosk demo, a preset of `referee run` on a table whose world is simulated.

Bots play the six games in turn; cards are rendered and read by the real
vision pipeline; slaps go through the bots' pads and the real arbitration;
the journal keeps the last games and the visitors' high scores.
"""
from __future__ import annotations

import argparse
import os
import sys

from referee.config import ConfigError, load
from referee.commands.journal import journal_help
from referee.core.rules import GAMES

from .demo import DEMO_KEEP_GAMES, HEADLESS_SPEED, default_journal_path, demo_config, has_speaker
from .table_loop import RunOptions, run_table


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="the kiosk demo: bots on a simulated table, the referee rules, a live dashboard")
    p.add_argument("--games", type=int, default=0, help="stop after N games (default: run until stopped)")
    p.add_argument("--game", choices=sorted(GAMES), help="play only this game (default: all six in turn)")
    p.add_argument("--players", type=int, default=4, help="seats (default 4; slapstick uses 3)")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--speed", type=float, default=None,
                   help=f"table seconds per real second (default 1; {HEADLESS_SPEED:g} with --headless)")
    p.add_argument("--headless", action="store_true", help="no dashboard, no voice: print rulings and results")
    p.add_argument("--no-vision", action="store_true", help="no rendering or reading of cards: the simulator "
                                                            "names each card (faster)")
    p.add_argument("--host", default="127.0.0.1", help="dashboard bind address (default localhost only)")
    p.add_argument("--port", type=int, default=8080, help="dashboard port (default 8080)")
    p.add_argument("--pin", default="", help="operator PIN for the dashboard (default: operator actions disabled)")
    p.add_argument("--journal", default=None, metavar="FILE",
                   help=journal_help(f"journal file; the demo keeps its newest {DEMO_KEEP_GAMES} games there"))
    p.add_argument("--pads", metavar="TABLE.toml", help="visitors play on the real pads this table config names")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    speed = args.speed if args.speed is not None else (HEADLESS_SPEED if args.headless else 1.0)
    journal = args.journal or str(default_journal_path())
    try:
        config = demo_config(players=max(2, args.players), vision=not args.no_vision, speed=speed,
                             journal=journal, host=args.host, port=args.port,
                             pin=args.pin, audio="espeak" if not args.headless and has_speaker() else "silent")
        visitor_pads = load(args.pads) if args.pads else None
    except ConfigError as exc:
        print(f"referee demo: {exc}", file=sys.stderr)
        return 2
    opts = RunOptions(command="demo", games=args.games, rotate=args.game is None, only=args.game, seed=args.seed,
                      speed=speed, dashboard=not args.headless, print_rulings=args.headless,
                      between_s=1.0 if args.headless else 3.0, visitor_pads=visitor_pads,
                      open_browser=bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                                        or sys.platform == "darwin"))
    read = "referee disputes" + (f" --journal {journal}" if args.journal else "")
    print(f"referee demo: journal {journal} (read it with `{read}`)", flush=True)
    return run_table(config, opts)

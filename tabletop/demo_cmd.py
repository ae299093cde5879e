"""`referee demo`: the kiosk demo on a simulated table, with the live dashboard.

Bots play the six games in turn; cards are rendered and read by the real
vision pipeline; slaps go through simulated pads and the real arbitration;
the journal keeps the last games and the visitors' high scores.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import webbrowser

from referee.events import S
from referee.live import TableFeed
from referee.rules import GAMES
from referee.rulings import Ruling

from .demo import DemoTable


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="the kiosk demo: bots on a simulated table, the referee rules, a live dashboard")
    p.add_argument("--games", type=int, default=0, help="stop after N games (default: run until stopped)")
    p.add_argument("--game", choices=sorted(GAMES), help="play only this game (default: all six in turn)")
    p.add_argument("--players", type=int, default=4, help="seats (default 4; slapstick uses 3)")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--speed", type=float, default=1.0, help="table seconds per real second (default 1)")
    p.add_argument("--headless", action="store_true", help="no dashboard, no pacing: print rulings and results, exit 0")
    p.add_argument("--no-vision", action="store_true", help="skip rendering and reading cards (faster)")
    p.add_argument("--host", default="127.0.0.1", help="dashboard bind address (default localhost only)")
    p.add_argument("--port", type=int, default=8080, help="dashboard port (default 8080)")
    p.add_argument("--pin", default="", help="operator PIN for the dashboard (default: operator actions disabled)")
    p.add_argument("--journal", default=None, help="journal file (default: ~/.local/share/tabletop/demo.db)")
    p.add_argument("--pads", metavar="TABLE.toml", help="visitors play on the real pads this table config names")
    p.set_defaults(run=run)


def _print_ruling(r: Ruling) -> None:
    if r.say and r.kind != "ignored":
        print(f"  [{r.t_ns / S:8.3f}s] {r.say}", flush=True)


def _print_game(number: int, result: object) -> None:
    if result is None:
        print(f"=== Game {number}: stopped ===", flush=True)
        return
    who = f"Player {result.winner + 1} wins" if result.winner is not None else "no winner"  # type: ignore[attr-defined]
    if result.loser is not None:  # type: ignore[attr-defined]
        who += f", Player {result.loser + 1} loses"  # type: ignore[attr-defined]
    print(f"=== Game {number} ({result.game}): {who} after {result.cards} cards, "  # type: ignore[attr-defined]
          f"{result.seconds / 60:.1f} table minutes ===", flush=True)


def run(args: argparse.Namespace) -> int:
    feed = TableFeed(operator_pin=args.pin)
    try:
        demo = DemoTable(feed, games=args.games, game=args.game, players=max(2, args.players), seed=args.seed,
                         speed=args.speed, headless=args.headless, vision=not args.no_vision,
                         journal_path=args.journal, on_ruling=_print_ruling,
                         on_game=_print_game)
    except Exception as exc:
        print(f"referee demo: {exc}", file=sys.stderr)
        return 2
    if args.headless:
        try:
            return demo.run()
        except KeyboardInterrupt:
            return 0
    from referee.web import serve
    try:
        server = serve(feed, host=args.host, port=args.port, journal_path=str(demo.journal_path)).start()
    except OSError as exc:
        print(f"referee demo: cannot serve on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    print(f"referee demo: dashboard on {server.url} (Ctrl-C stops)", flush=True)
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or sys.platform == "darwin":
        try:
            webbrowser.open(server.url)        # show the table straight away on a laptop
        except webbrowser.Error:
            pass
    done = threading.Event()
    demo.on_game = lambda n, r: (_print_game(n, r), done.set() if args.games and n >= args.games else None)
    pads = None
    if args.pads:
        from referee.config import ConfigError, load

        from .build import TableSetupError, build_pads
        try:
            pads = build_pads(load(args.pads))
        except (ConfigError, TableSetupError) as exc:
            print(f"referee demo: {exc}", file=sys.stderr)
            server.stop()
            return 2
        demo.use_pads(pads)
    demo.start()
    try:
        while not done.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        demo.stop()
        server.stop()
        if pads is not None:
            pads.close()
    return 0

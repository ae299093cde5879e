"""`referee run --config table.toml`: referee a real game at the table."""
from __future__ import annotations

import argparse
import signal
import sys
import threading

from typing import Any

from referee.cards import Card

from .build import TableSetupError, build_table, check, config_or_none, load_profile


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="referee a game at the table (camera, pads, lights, voice, journal)")
    p.add_argument("--config", required=True, help="table config (TOML)")
    p.add_argument("--check", action="store_true", help="validate the config and the hardware it names, then exit")
    p.add_argument("--resume", action="store_true", help="continue the last unfinished game from the journal")
    p.add_argument("--profile", help="calibration profile (TOML) from `referee calibrate`: pile region, latency, "
                                     "pad offsets, the learned deck")
    p.add_argument("--seconds", type=float, default=None, help="stop after this many seconds (tests, demos)")
    p.add_argument("--no-dashboard", action="store_true", help="do not serve the dashboard ([kiosk] bind/port)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = config_or_none(args.config, "run")
    if config is None:
        return 2
    recognizer = None
    if args.profile:
        try:
            config, recognizer = load_profile(config, args.profile)
        except TableSetupError as exc:
            print(f"referee run: {exc}", file=sys.stderr)
            return 2
    if args.check:
        lines = check(config)
        for ok, line in lines:
            print(f"{'ok  ' if ok else 'FAIL'} {line}")
        return 0 if all(ok for ok, _ in lines) else 2
    if config.kiosk.mode == "demo":
        from . import demo_cmd
        return demo_cmd.run(argparse.Namespace(games=0, game=None, players=config.game.players, seed=0, speed=1.0,
                                               headless=False, no_vision=False, host=config.kiosk.bind,
                                               port=config.kiosk.port, pin=config.kiosk.operator_pin,
                                               journal=config.journal.path))
    try:
        table = build_table(config, resume=args.resume, recognizer=recognizer)
    except TableSetupError as exc:
        print(f"referee run: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server = None
    if not args.no_dashboard:
        try:
            server = serve_table(table, config)
        except OSError as exc:
            print(f"referee run: warning: no dashboard on {config.kiosk.bind}:{config.kiosk.port}: {exc}",
                  file=sys.stderr)
    table.runtime.start()
    print(f"referee: {config.game.id} with {config.game.players} players; journal game {table.game_no}", flush=True)
    try:
        while not stop.is_set() and not table.runtime.wait_over(0.5):
            if args.seconds is not None:
                args.seconds -= 0.5
                if args.seconds <= 0:
                    break
    except KeyboardInterrupt:
        pass
    finally:
        if server is not None:
            server.stop()
        table.close()
    final = table.runtime.game.final()
    print(f"referee: over={final['over']} winner={final['winner']} loser={final['loser']} hands={final['hands']}")
    return 0


def serve_table(table: Any, config: Any) -> Any:
    """The dashboard for a real table, with the operator's corrections behind the PIN."""
    from referee.live import TableFeed
    from referee.web import serve
    runtime = table.runtime
    feed = TableFeed(runtime, operator_pin=config.kiosk.operator_pin, names=config.game.names or None)
    feed.actions.update({
        "pause": lambda: runtime.paused.add("operator"),
        "resume": lambda: runtime.resume(),
        "correct_card": lambda card: runtime.correct_top(Card.parse(card)),
        "set_hand": lambda seat, cards: runtime.correct_hand(int(seat), int(cards)),
    })
    server = serve(feed, host=config.kiosk.bind, port=config.kiosk.port, journal_path=config.journal.path).start()
    print(f"referee: dashboard on {server.url}", flush=True)
    return server

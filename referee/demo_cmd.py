"""`referee demo`: the simulated table plays game after game and rules out loud (here: in print).

Bots play each of the six games in turn through the real engine; every ruling
is printed as the announcer would say it. `--headless` runs at full speed.
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Callable

from .events import S
from .rules import GAMES
from .rulings import Ruling
from .sim.table import SimTable


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="the kiosk demo: bots play on a simulated table, the referee rules")
    p.add_argument("--games", type=int, default=0, help="stop after N games (default: run until stopped)")
    p.add_argument("--game", choices=sorted(GAMES), help="play only this game (default: all six in turn)")
    p.add_argument("--players", type=int, default=4, help="seats (default 4; slapstick uses 3)")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--speed", type=float, default=4.0, help="virtual seconds per real second (default 4)")
    p.add_argument("--headless", action="store_true", help="no pacing, print rulings and results, exit 0")
    p.set_defaults(run=run)


def _pacer(speed: float) -> Callable[[int], None]:
    start = time.monotonic()
    state = {"origin": None}

    def pace(virtual_ns: int) -> None:
        if state["origin"] is None:
            state["origin"] = virtual_ns
        due = start + (virtual_ns - state["origin"]) / S / speed
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(min(delay, 5.0))
    return pace


def run(args: argparse.Namespace) -> int:
    order = [args.game] if args.game else list(GAMES)
    played = 0
    try:
        while args.games <= 0 or played < args.games:
            game = order[played % len(order)]
            players = 3 if game == "slapstick" else max(2, args.players)
            print(f"\n=== Game {played + 1}: {GAMES[game].title}, {players} players (seed {args.seed + played}) ===")

            def show(r: Ruling) -> None:
                if r.say:
                    print(f"  [{r.t_ns / S:8.3f}s] {r.say}", flush=True)

            # wait briefly for a runner-up so the spoken ruling carries its margin
            table = SimTable(game, players, seed=args.seed + played, on_ruling=show,
                             options={"margin_wait_ms": 120},
                             pace=None if args.headless else _pacer(args.speed))
            result = table.run()
            who = f"Player {result.winner + 1} wins" if result.winner is not None else "no winner"
            if result.loser is not None:
                who += f", Player {result.loser + 1} loses"
            print(f"=== Result: {who} after {result.cards} cards ({result.seconds / 60:.1f} table minutes) ===",
                  flush=True)
            played += 1
    except KeyboardInterrupt:
        print("\ndemo stopped", file=sys.stderr)
    return 0

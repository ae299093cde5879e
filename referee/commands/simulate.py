"""`referee simulate`: bots play whole games through the real rules and arbitration."""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from typing import Any

from ..core.options import OptionError
from ..core.rules import GAMES, SetupError, UnknownGame
from ..sim.table import GameResult, simulate


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="bots play whole games through the real rules and arbitration",
                       description="Simulate whole games with bots (human-like reactions, false slaps, "
                                   "flinches, misses) through the same engine that runs at the table. "
                                   "Seats are numbered from 1 as the referee speaks them; --json keeps the "
                                   "scenario files' 0-based seat indexes.")
    p.add_argument("--game", required=True, help=f"game id ({', '.join(GAMES)}) or 'all'")
    p.add_argument("--players", type=int, default=4, help="seats at the table (default 4)")
    p.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    p.add_argument("--seed", type=int, default=0, help="first seed; game k uses seed+k")
    p.add_argument("--option", action="append", default=[], metavar="NAME=JSON",
                   help="a game option, e.g. --option tie_us=500 --option 'reverse_on=[\"J\"]'")
    p.add_argument("--json", action="store_true", help="one JSON object per game, then a totals object")
    p.set_defaults(run=run)


def parse_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise OptionError(f"--option {pair!r} must look like NAME=VALUE")
        try:
            options[name] = json.loads(raw)
        except json.JSONDecodeError:
            options[name] = raw
    return options


def run(args: argparse.Namespace) -> int:
    games = list(GAMES) if args.game == "all" else [args.game]
    try:
        options = parse_options(args.option)
        if args.games < 1:
            raise SetupError("--games must be at least 1")
    except (OptionError, SetupError) as exc:
        print(f"referee simulate: {exc}", file=sys.stderr)
        return 2
    results: list[GameResult] = []
    started = time.perf_counter()
    for k in range(args.games):
        game = games[k % len(games)]
        players = min(args.players, 3) if game == "slapstick" and args.players > 8 else args.players
        try:
            result = simulate(game, players, seed=args.seed + k, options=options)
        except (UnknownGame, OptionError, SetupError) as exc:
            print(f"referee simulate: {exc}", file=sys.stderr)
            return 2
        results.append(result)
        if args.json:
            print(json.dumps(result.to_json()))
        else:
            who = f"winner {_seat(result.winner)}" + (f", loser {_seat(result.loser)}" if result.loser is not None else "")
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(result.rulings.items()) if k != "ignored")
            print(f"game {k + 1}: {result.game}, {result.players} players, seed {result.seed}: "
                  f"{result.cards} cards in {result.seconds / 60:.1f} min, {who} ({result.ended_by}); {kinds}")
    elapsed = time.perf_counter() - started
    totals: Counter[str] = Counter()
    for r in results:
        totals.update(r.rulings)
    summary = {"games": len(results), "cards": sum(r.cards for r in results),
               "ended_by_rules": sum(r.ended_by == "rules" for r in results),
               "rulings": dict(sorted(totals.items())), "wall_s": round(elapsed, 3),
               "games_per_s": round(len(results) / elapsed, 1) if elapsed else None}
    if args.json:
        print(json.dumps({"totals": summary}))
    else:
        print(f"totals: {summary['games']} games, {summary['cards']} cards, {summary['ended_by_rules']} ended by "
              f"their rules; rulings {summary['rulings']}; {summary['games_per_s']} games/s")
    return 0


def _seat(seat: int | None) -> str:
    """A seat index (0-based) as a person reads it: seat 1 is the first."""
    return "none" if seat is None else f"seat {seat + 1}"

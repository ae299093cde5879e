"""`referee fix`: the operator corrects a running table after "check the table".

Talks to the running referee's dashboard API on this machine (the operator
PIN from the config), so a correction goes through the same checks as a tap
on the touch screen.
"""
from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request

from .build import config_or_none


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fix", help="correct a running table: the top card, a hand count, or resume")
    p.add_argument("--config", required=True, help="the running table's config (for its port and operator PIN)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--card", help="the top card really is this card, e.g. JS")
    what.add_argument("--hand", nargs=2, type=int, metavar=("SEAT", "CARDS"), help="seat (0-based) holds CARDS cards")
    what.add_argument("--resume", action="store_true", help="the table is sound again: judge on")
    what.add_argument("--pause", action="store_true", help="stop judging until resumed")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = config_or_none(args.config, "fix")
    if config is None:
        return 2
    if args.card:
        action, body = "correct_card", {"card": args.card}
    elif args.hand:
        action, body = "set_hand", {"seat": args.hand[0], "cards": args.hand[1]}
    else:
        action, body = ("resume" if args.resume else "pause"), {}
    host = "127.0.0.1" if config.kiosk.bind in ("0.0.0.0", "::") else config.kiosk.bind
    request = urllib.request.Request(f"http://{host}:{config.kiosk.port}/api/operator/{action}",
                                     data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "X-Operator-Pin": config.kiosk.operator_pin})
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            print(f"referee fix: {action}: {reply.status} {reply.read().decode()[:200]}")
            return 0
    except urllib.error.HTTPError as exc:
        print(f"referee fix: {action} refused ({exc.code}): {exc.read().decode()[:200]}", file=sys.stderr)
    except OSError as exc:
        print(f"referee fix: no referee running on {host}:{config.kiosk.port}: {exc}", file=sys.stderr)
    return 2

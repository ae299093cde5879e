"""`referee fix`: the operator corrects a running table after "check the table".

Talks to the running referee's dashboard API on this machine (the operator
PIN from the config), so a correction goes through the same checks as a tap
on the touch screen. Seats are typed as people count them, from 1 (the API's
JSON counts from 0).
"""
from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request

from typing import Any

from .build import config_or_none


def _whole(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} is a whole number, not {text!r}") from None


def seat_from_one(text: str) -> int:
    """A seat typed on the command line, counted from 1 like everything spoken and shown."""
    seat = _whole(text, "a seat (counted from 1)")
    if seat < 1:
        raise argparse.ArgumentTypeError(f"seats are counted from 1 (seat 1 is the first), not {seat}")
    return seat


def cards_count(text: str) -> int:
    count = _whole(text, "a count of cards")
    if count < 0:
        raise argparse.ArgumentTypeError(f"a count of cards is 0 or more, not {count}")
    return count


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fix", help="correct a running table: the top card, a hand count, or resume")
    p.add_argument("--config", required=True, help="the running table's config (for its port and operator PIN)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--card", help="the top card really is this card, e.g. JS")
    what.add_argument("--hand", nargs=2, type=str, metavar=("SEAT", "CARDS"),
                      help="seat SEAT (counted from 1) holds CARDS cards, e.g. --hand 1 17")
    what.add_argument("--resume", action="store_true", help="the table is sound again: judge on")
    what.add_argument("--pause", action="store_true", help="stop judging until resumed")
    p.set_defaults(run=run)


def operator_request(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The dashboard action and its JSON body for the command line's correction (the seat made 0-based)."""
    if args.card:
        return "correct_card", {"card": args.card}
    if args.hand:
        seat, cards = seat_from_one(args.hand[0]), cards_count(args.hand[1])
        return "set_hand", {"seat": seat - 1, "cards": cards}
    return ("resume" if args.resume else "pause"), {}


def run(args: argparse.Namespace) -> int:
    try:
        action, body = operator_request(args)
    except argparse.ArgumentTypeError as exc:
        print(f"referee fix: --hand: {exc}", file=sys.stderr)
        return 2
    config = config_or_none(args.config, "fix")
    if config is None:
        return 2
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

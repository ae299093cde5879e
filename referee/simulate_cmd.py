"""`referee simulate`: bots play whole games through the real engine."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="bots play whole games through the real rules and arbitration")
    p.set_defaults(run=lambda args: 1)

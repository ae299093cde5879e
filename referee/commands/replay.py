"""`referee replay FILE.json`: re-run a recorded or written game and print the rulings as JSON.

A malformed file is one line on stderr and exit 2 (scenario.ScenarioError);
`--check` differences are exit 1. Anything else escaping the rules is a bug,
still reported as one line (exit 70, EX_SOFTWARE), never a traceback.
"""
from __future__ import annotations

import argparse
import json
import sys

from . import journal as journal_cmds
from ..core import scenario

EXIT_INTERNAL = 70


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="replay a scenario file and print the rulings as JSON",
                       description="Replay a scenario (format: docs/scenarios.md). Exit 2 with one line on a malformed file.")
    p.add_argument("file", nargs="?", help="scenario JSON file")
    p.add_argument("--check", action="store_true", help="also compare with the file's 'expect' (exit 1 on a difference)")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    journal_cmds.add_replay_journal_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.from_journal is not None:
        return journal_cmds.run_replay_journal(args)
    if args.file is None:
        print("referee replay: give a scenario FILE, or --from-journal GAME", file=sys.stderr)
        return 2
    try:
        loaded = scenario.load(args.file)
        output = scenario.replay(loaded)
    except scenario.ScenarioError as exc:
        print(f"referee replay: {exc}", file=sys.stderr)
        return 2
    except (RecursionError, MemoryError, ArithmeticError, LookupError, TypeError, ValueError) as exc:
        where = scenario.one_line(str(args.file), 300)
        print(f"referee replay: {where}: internal error (a bug, please report it with the file): "
              f"{type(exc).__name__}: {scenario.one_line(str(exc), 200)}", file=sys.stderr)
        return EXIT_INTERNAL
    for warning in output.pop("warnings", []):
        print(f"referee replay: warning: {scenario.one_line(str(warning), 400)}", file=sys.stderr)
    print(json.dumps(output, indent=1 if args.pretty else None))
    if args.check:
        problems = scenario.check_expect(loaded.expect, output)
        for problem in problems:
            print(f"{scenario.one_line(str(args.file), 300)}: {problem}", file=sys.stderr)
        return 1 if problems else 0
    return 0

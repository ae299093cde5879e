"""The `referee` command: parses arguments and hands over to one module per subcommand.

Commands that need real hardware live outside `referee/` and plug in through
the `referee.commands` entry-point group, so the core never imports `hardware/`.
"""
from __future__ import annotations

import argparse
import sys
from importlib.metadata import entry_points
from typing import Callable, Sequence


def _plugin_commands() -> dict[str, Callable[[argparse._SubParsersAction], None]]:
    found: dict[str, Callable[[argparse._SubParsersAction], None]] = {}
    for ep in entry_points(group="referee.commands"):
        try:
            found[ep.name] = ep.load()
        except Exception as exc:  # a broken plugin must not take the referee down
            found[ep.name] = _unavailable(ep.name, f"{type(exc).__name__}: {exc}")
    return found


def _unavailable(name: str, reason: str) -> Callable[[argparse._SubParsersAction], None]:
    """A placeholder that explains, in one line, why a plugged-in command cannot run."""
    def add(sub: argparse._SubParsersAction) -> None:
        p = sub.add_parser(name, help=f"(unavailable: {reason})")
        p.add_argument("rest", nargs=argparse.REMAINDER)

        def run(_args: argparse.Namespace) -> int:
            print(f"referee {name}: unavailable here: {reason}", file=sys.stderr)
            return 2
        p.set_defaults(run=run)
    return add


def build_parser() -> argparse.ArgumentParser:
    from .commands.journal import DEFAULT_JOURNAL_RULE, default_journal_path
    parser = argparse.ArgumentParser(
        prog="referee", description="Tabletop Referee for slap card games.",
        epilog=f"The journal: without --journal, `demo` writes and `disputes`, `review`, `journal` and "
               f"`replay --from-journal` read one default file, {DEFAULT_JOURNAL_RULE} (here "
               f"{default_journal_path()}). `run` writes to its config's [journal] path. Seats are numbered "
               f"from 1 wherever you read or type them; scenario files and --json count from 0.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    from .commands import journal as journal_cmds, replay as replay_cmd, simulate as simulate_cmd
    replay_cmd.add_parser(sub)
    simulate_cmd.add_parser(sub)
    journal_cmds.add_parser(sub)          # disputes, review, journal (check, export)
    try:
        from .vision import cli as vision_cli
        vision_cli.add_parser(sub)
    except ImportError:
        pass
    for _name, add in sorted(_plugin_commands().items()):
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0

"""`referee disputes`, `referee review`, `referee journal` and `referee replay --from-journal`: the journal, read back.

Every failure (no journal, not a journal, unknown game or ruling, a bad
option) is one line on stderr and exit 2; never a traceback.

Without `--journal` they all read the one default journal, the file `referee
demo` writes: $XDG_DATA_HOME/tabletop/demo.db (~/.local/share/tabletop/demo.db
when XDG_DATA_HOME is unset). A table run by `referee run` writes to its
config's `[journal] path`; read it with `--journal` that path.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from pathlib import Path
from typing import Any, Mapping

from ..journal import Finish, Journal, JournalError, RulingRecord, feed, ruling_key, session_for
from ..core.options import OptionError
from ..core.rules import SetupError, UnknownGame
from ..core.rulings import Ruling, seat_name

DEFAULT_JOURNAL_RULE = "$XDG_DATA_HOME/tabletop/demo.db, else ~/.local/share/tabletop/demo.db"
SLAP_DECISIONS = frozenset({"wins_pile", "false_slap", "slap_again", "picks_up"})


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `disputes`, `review` and `journal` (check, export)."""
    add_disputes_parser(sub)
    add_review_parser(sub)
    add_journal_parser(sub)


def default_journal_path() -> Path:
    """The journal every command uses without --journal: the demo's, in the user's data folder (an
    XDG_DATA_HOME that is not an absolute path is ignored, as the XDG spec says). Nothing is created here."""
    data = os.environ.get("XDG_DATA_HOME", "")
    base = Path(data) if data and os.path.isabs(data) else Path.home() / ".local" / "share"
    return base / "tabletop" / "demo.db"


def journal_help(what: str = "the journal database") -> str:
    """`--journal`'s help: the default rule and where it points on this machine now."""
    return (f"{what} (default: the demo's journal, {DEFAULT_JOURNAL_RULE}; here {default_journal_path()}; "
            f"a table's journal is its config's [journal] path)")


def journal_for(args: argparse.Namespace, command: str) -> str:
    """The journal `args` name, or the default one; on stderr, which journal a default reads from."""
    if args.journal:
        return str(args.journal)
    path = default_journal_path()
    if not path.exists():
        raise JournalError(f"no journal at {path} (the default): `referee demo` writes its games there; "
                           f"for a table's games give --journal with its config's [journal] path")
    print(f"referee {command}: journal {path} (the default; --journal FILE for another)", file=sys.stderr)
    return str(path)


def _journal_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--journal", default=None, metavar="PATH", help=journal_help())


def _fail(command: str, message: str) -> int:
    print(f"referee {command}: {message}", file=sys.stderr)
    return 2


# ---- disputes ------------------------------------------------------------------------------
def add_disputes_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("disputes", help="list journaled games, or one game's rulings",
                       description="Without GAME: the games in the journal. With GAME: its rulings "
                                   "(slap decisions marked '>'); 'ignored' rulings only with --all.")
    p.add_argument("game", nargs="?", type=int, metavar="GAME", help="game number (from the list)")
    _journal_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--all", action="store_true", help="include 'ignored' rulings")
    p.set_defaults(run=run_disputes)


def run_disputes(args: argparse.Namespace) -> int:
    try:
        with Journal(journal_for(args, "disputes"), create=False) as journal:
            if args.game is None:
                return _list_games(journal, args.json)
            return _list_rulings(journal, args.game, args.json, args.all)
    except JournalError as exc:
        return _fail("disputes", str(exc))


def _list_games(journal: Journal, as_json: bool) -> int:
    rows: list[dict[str, Any]] = []
    for g in journal.games():
        events, rulings = journal.counts(g.id)
        result = g.result or {}
        rows.append({"game": g.id, "started_at": g.started_at, "game_id": g.game_id, "players": g.players,
                     "events": events, "rulings": rulings, "ended": g.ended, "winner": result.get("winner")})
    if as_json:
        print(json.dumps(rows))
        return 0
    if not rows:
        print("no games in the journal")
        return 0
    print(f"{'game':>5}  {'started':<24} {'rules':<20} {'seats':>5} {'events':>7} {'rulings':>7}  result")
    for r in rows:
        outcome = ("winner " + seat_name(r["winner"]) if r["winner"] is not None else "ended") if r["ended"] else "unfinished"
        print(f"{r['game']:>5}  {r['started_at']:<24} {r['game_id']:<20} {r['players']:>5} {r['events']:>7} "
              f"{r['rulings']:>7}  {outcome}")
    return 0


def ruling_row(rec: RulingRecord, origin_ns: int, names: list[str] | None = None) -> dict[str, Any]:
    r = rec.ruling
    return {"id": rec.id, "t_s": round((r.t_ns - origin_ns) / 1e9, 6), "t_us": r.t_ns // 1000, "kind": r.kind,
            "seat": r.seat, "who": seat_name(r.seat, names) if r.seat is not None else "",
            "margin_us": r.get("margin_us"), "say": r.say, "slap_decision": r.kind in SLAP_DECISIONS,
            "amended": rec.amended}


def _list_rulings(journal: Journal, game_no: int, as_json: bool, show_all: bool) -> int:
    game = journal.game(game_no)
    events = journal.events(game_no)
    origin = min((e.event.t_ns for e in events), default=0)
    rows = [ruling_row(rec, origin, game.names) for rec in journal.rulings(game_no)
            if show_all or rec.ruling.kind != "ignored"]
    if as_json:
        print(json.dumps(rows))
        return 0
    print(f"game {game.id}: {game.game_id}, {game.players} players, {len(events)} events "
          f"(times in seconds from the first event)")
    bold = sys.stdout.isatty()
    for row in rows:
        margin = f"{row['margin_us']:,} us" if isinstance(row["margin_us"], int) else ""
        mark = ">" if row["slap_decision"] else " "
        line = (f"{mark}{row['id']:>6}  {row['t_s']:>10.3f}  {row['kind']:<12} {row['who']:<12} {margin:>12}  "
                f"{row['say']}")
        print(f"\033[1m{line}\033[0m" if bold and row["slap_decision"] else line)
    return 0


# ---- review ----------------------------------------------------------------------------------
def add_review_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("review", help="draw a ruling's evidence sheet (PNG)",
                       description="The card frame, every pad's first contact in ms after the card, "
                                   "the margin, the rule applied and the ruling, as one PNG.")
    p.add_argument("game", type=int, metavar="GAME", help="game number")
    p.add_argument("ruling", type=int, metavar="RULING", help="ruling number (from `referee disputes GAME`)")
    p.add_argument("--out", required=True, metavar="sheet.png", help="where to write the PNG")
    _journal_arg(p)
    p.set_defaults(run=run_review)


def run_review(args: argparse.Namespace) -> int:
    try:
        from ..journal import evidence_sheet as review
    except ImportError as exc:   # cv2 or numpy missing on this machine
        return _fail("review", f"cannot draw sheets here: {exc}")
    try:
        with Journal(journal_for(args, "review"), create=False) as journal:
            facts = review.gather(journal, args.game, args.ruling)
        path = review.write_sheet(facts, args.out)
    except (JournalError, review.SheetError) as exc:
        return _fail("review", str(exc))
    print(path)
    return 0


# ---- journal check / export ----------------------------------------------------------------
def add_journal_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("journal", help="check a journal file, or save what can be read from a damaged one",
                       description="check: SQLite's full integrity check, the room left and the games held "
                                   "(exit 2 when damaged). export: copy every readable game, event, ruling and "
                                   "evidence frame into a new journal (the damaged file is never changed).")
    what = p.add_subparsers(dest="journal_command", metavar="ACTION")
    what.required = True
    check = what.add_parser("check", help="is the journal sound? (exit 0: yes, 2: no)")
    _journal_arg(check)
    check.set_defaults(run=run_journal_check)
    export = what.add_parser("export", help="save what can be read into a new journal file")
    _journal_arg(export)
    export.add_argument("--out", required=True, metavar="NEW.db", help="the new journal (must not exist)")
    export.set_defaults(run=run_journal_export)


def run_journal_check(args: argparse.Namespace) -> int:
    from ..journal.health import integrity_report, room_bytes
    from ..journal.salvage import open_source
    try:
        path = Path(journal_for(args, "journal"))
        db = open_source(path)
    except (JournalError, OSError) as exc:
        return _fail("journal", str(exc))
    try:
        problems = integrity_report(db)
        if problems:
            return _fail("journal", f"{path} is damaged ({len(problems)} problem(s), first: {problems[0][:160]}); "
                                    f"`referee journal export --journal {path} --out NEW.db` saves what can be read")
    finally:
        db.close()
    try:                             # every row parsed, too: a flipped byte in a text cell is no page damage
        with Journal(path, create=False, check="header") as journal:
            games = journal.games()
            events = 0
            for g in games:
                events += len(journal.events(g.id))
                journal.rulings(g.id)
    except JournalError as exc:
        return _fail("journal", str(exc))
    unfinished = sum(1 for g in games if not g.ended)
    print(f"{path}: sound; {len(games)} games ({unfinished} unfinished), {events:,} events; "
          f"{room_bytes(path) / 2**20:,.0f} MB of room")
    return 0


def run_journal_export(args: argparse.Namespace) -> int:
    from ..journal.salvage import export
    try:
        report = export(journal_for(args, "journal"), args.out)
    except (JournalError, OSError) as exc:
        return _fail("journal", str(getattr(exc, "strerror", None) or exc) if not isinstance(exc, JournalError) else str(exc))
    for line in report.lines():
        print(line)
    return 0


# ---- replay --from-journal -------------------------------------------------------------------
class ReplayError(ValueError):
    """A recorded game that cannot be re-judged as asked (bad option, unknown game rules)."""


def replay_from_journal(path: str, game_no: int, options_override: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Re-judge game `game_no` from its setup and recorded events (optionally with changed options).

    Returns {"same": [recorded...], "differ": [(recorded | None, rejudged | None), ...]}: rulings as
    `Ruling.to_json()` dicts (recorded ones with their journal "id"), aligned in order so that one
    changed decision shows as one pair, not as every ruling after it."""
    with Journal(path, create=False) as journal:
        record = journal.game(game_no)
        events = journal.events(game_no)
        recorded = journal.rulings(game_no)
    try:
        session = session_for(record, options_override)
    except (OptionError, SetupError, UnknownGame) as exc:
        raise ReplayError(str(exc)) from None
    feed(session, events)
    if record.ended and not any(isinstance(e.event, Finish) for e in events):
        session.finish()
    return compare(recorded, session.rulings)


def compare(recorded: list[RulingRecord], rejudged: list[Ruling]) -> dict[str, Any]:
    """Align two ruling sequences (difflib on the full ruling) into same and differing pairs."""
    a = [ruling_key(rec.ruling) for rec in recorded]
    b = [ruling_key(r) for r in rejudged]
    same: list[dict[str, Any]] = []
    differ: list[tuple[dict[str, Any] | None, dict[str, Any] | None]] = []

    def old(i: int) -> dict[str, Any]:
        return dict(recorded[i].ruling.to_json(), id=recorded[i].id)

    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            same.extend(old(i) for i in range(i1, i2))
            continue
        olds = [old(i) for i in range(i1, i2)]
        news = [rejudged[j].to_json() for j in range(j1, j2)]
        for k in range(max(len(olds), len(news))):
            differ.append((olds[k] if k < len(olds) else None, news[k] if k < len(news) else None))
    return {"same": same, "differ": differ}


def add_replay_journal_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags for `referee replay --from-journal GAME [--journal PATH] [--option NAME=VALUE]...`."""
    parser.add_argument("--from-journal", type=int, metavar="GAME", dest="from_journal",
                        help="re-judge a journaled game and list the rulings that differ")
    parser.add_argument("--journal", default=None, metavar="PATH",
                        help=journal_help("the journal database for --from-journal"))
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="with --from-journal: change an option (VALUE as JSON, else a string); repeatable")


def parse_options(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ReplayError(f"--option wants NAME=VALUE, not {pair!r}")
        try:
            out[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[name.strip()] = value
    return out


def run_replay_journal(args: argparse.Namespace) -> int:
    """Print {"game", "same": count, "differ": [{"recorded", "rejudged"}...]} as JSON.
    Exit 0: nothing differs; 1: some rulings differ; 2: cannot replay."""
    try:
        overrides = parse_options(getattr(args, "option", []) or [])
        result = replay_from_journal(journal_for(args, "replay"), args.from_journal, overrides or None)
    except (JournalError, ReplayError) as exc:
        return _fail("replay", str(exc))
    differ = [{"recorded": old, "rejudged": new} for old, new in result["differ"]]
    print(json.dumps({"game": args.from_journal, "options": overrides, "same": len(result["same"]),
                      "differ": differ}, indent=1 if getattr(args, "pretty", False) else None))
    return 1 if differ else 0

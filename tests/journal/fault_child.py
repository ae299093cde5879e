"""Child process for the full-disk tests: the disk "fills" by RLIMIT_FSIZE, a real limit the kernel enforces
(every write past it fails with EFBIG, as ENOSPC does past a full disk), set in this process only.

usage: fault_child.py JOURNAL preflight   -> one line: the error start_game gives with 1 MB of room
       fault_child.py JOURNAL midgame     -> JSON lines: "failed" (when the limit bit), "summary" (at the end)

midgame plays like the runtime wired as the integrator is told: a JournalWriteError pauses the table (events
are held), nothing is announced beyond `recorder.recorded`, and when room comes back (the limit lifted)
`advance` writes what waited and judging goes on.
"""
from __future__ import annotations

import json
import resource
import sys

from referee.journal import Journal, JournalWriteError, Recorder
from tests.journal.feed import GAME, HOLDBACK_NS, PLAYERS, SEED, stream


def largest(path: str) -> int:
    import os
    return max(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


def preflight(path: str) -> int:
    with Journal(path) as journal:
        resource.setrlimit(resource.RLIMIT_FSIZE, (largest(path) + 2**20, resource.RLIM_INFINITY))
        try:
            Recorder.start(journal, GAME, PLAYERS, seed=SEED, holdback_ns=HOLDBACK_NS, strict=False)
        except JournalWriteError as exc:
            print(f"{exc.reason}|{exc}")
            return 0
    print("started")
    return 1


def midgame(path: str) -> int:
    journal = Journal(path)
    rec = Recorder.start(journal, GAME, PLAYERS, seed=SEED, holdback_ns=HOLDBACK_NS, strict=False)
    steps = stream(cards=60)
    paused = False
    announced = 0
    judged_while_paused = 0
    for n, step in enumerate(steps):
        if n == 60:              # the disk fills: a few KB of room left
            resource.setrlimit(resource.RLIMIT_FSIZE, (largest(path) + 6 * 1024, resource.RLIM_INFINITY))
        if n == 160:             # the operator makes room, then resumes the table
            resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            paused = False
        before, was_paused = len(rec.session.rulings), paused
        try:
            if step.event is None:
                if not paused:
                    rec.advance(step.arrival_ns)
            elif paused:
                rec.hold(step.event, step.source, step.arrival_ns)
            else:
                rec.submit(step.event, step.source, step.arrival_ns)
        except JournalWriteError as exc:
            if not paused:
                print(json.dumps({"failed": n, "reason": exc.reason, "say": exc.announcement, "line": str(exc),
                                  "judged": len(rec.session.rulings), "recorded": rec.recorded}), flush=True)
            paused = True
        if was_paused and n < 160:
            judged_while_paused += len(rec.session.rulings) - before
        announced = max(announced, rec.recorded)
    rec.finish()
    events = len(journal.events(rec.game_no))
    print(json.dumps({"summary": True, "steps": len([s for s in steps if s.event is not None]), "events": events,
                      "rulings": len(journal.rulings(rec.game_no)), "judged": len(rec.session.rulings),
                      "judged_while_paused": judged_while_paused, "backlog": len(rec.backlog),
                      "game": rec.game_no, "ended": journal.game(rec.game_no).ended}), flush=True)
    journal.close()
    return 0


if __name__ == "__main__":
    sys.exit({"preflight": preflight, "midgame": midgame}[sys.argv[2]](sys.argv[1]))

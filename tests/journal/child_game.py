"""Child process for the SIGKILL test: plays the feed stream through a Recorder, one committed
record at a time, printing what it has committed; slows down after `ready` so it can be killed mid-game.

usage: child_game.py JOURNAL READY_AFTER DELAY_S
prints "ready" once, then after every step "<last event id> <rulings recorded>".
"""
from __future__ import annotations

import sys
import time

from referee.journal import Journal, Recorder
from tests.journal.feed import GAME, HOLDBACK_NS, PLAYERS, SEED, stream


def main() -> int:
    path, ready_after, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    journal = Journal(path)
    rec = Recorder.start(journal, GAME, PLAYERS, seed=SEED, holdback_ns=HOLDBACK_NS, strict=False)
    for n, step in enumerate(stream(), 1):
        if step.event is None:
            rec.advance(step.arrival_ns)
        else:
            rec.submit(step.event, step.source, step.arrival_ns)
        print(f"{rec.last_event_id} {len(rec.ruling_ids)}", flush=True)
        if n == ready_after:
            print("ready", flush=True)
        if n >= ready_after:
            time.sleep(delay)
        if rec.session.game.over:
            break
    rec.finish()
    print("finished", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

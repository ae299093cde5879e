"""The whole table in time: `referee run --config FILE` with only the OS-boundary fakes, as a Pi runs it.

Bots play a stretch of slapjack on the rules engine; the timeline of what they
did drives the fakes of lgpio / gpiod / smbus2 (pads that bounce) and picamera2
(frames rendered from the pile, read by the real vision pipeline). Measured
from outside the referee's process, on CLOCK_MONOTONIC:

- first contact -> ruling heard: the true first contact of the slap a ruling
  is about, to the moment the fake `aplay` was started with that ruling's words;
- card landed -> ruling heard: the trigger card's landing, to the same moment;
- the slap stamps against the fake kernel's first event (what software added)
  and the rulings against those the true times call for.
"""
from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.core.events import CardSeen, Slap  # noqa: E402
from referee.journal import Journal  # noqa: E402
from tests.e2e.real_table import TableRun, run_table, table_config  # noqa: E402
from tests.e2e.table_world import PAD_LINES, ScriptedGame, script_game, world_for  # noqa: E402

SECONDS = 60.0
LATENCY_MS = 300.0       # [camera] latency_ms: the arbiter's hold-back for this run
#: The bots' game: 44 contacts and 18 slap rulings in 60 s, none within 60 ms after a card (a 30 fps camera
#: stamps a card at the first frame showing it; a slap closer than that cannot be placed against the card).
SEED = 33


def heard(run: TableRun, program: str = "espeak-ng") -> dict[str, list[int]]:
    """For each spoken text, the monotonic times `program` was started with it: espeak-ng when the
    referee hands the words to the voice, aplay when the rendered words start playing."""
    texts: dict[str, str] = {}
    out: dict[str, list[int]] = {}
    for line in (run.world_dir / "log.jsonl").read_text().splitlines():
        record = json.loads(line)
        fake = record.get("fake")
        if fake == "espeak-ng":
            texts[str(record.get("file"))] = str(record.get("text", "")).strip()
        if fake == program and "error" not in record:
            text = texts.get(str(record.get("file")))
            if text:
                out.setdefault(text, []).append(int(record["started_ns"]))
    return out


def measure(run: TableRun, script: ScriptedGame, program: str = "espeak-ng") -> dict[str, Any]:
    """Latencies (ms) from contact and from landing to the ruling reaching `program`; rulings compared."""
    spoken = heard(run, program)
    contacts = sorted(run.t0_ns + t for t, _seat, kind in script.contacts if kind == "slap")
    cards = sorted(run.t0_ns + t for t, _card in script.cards)
    from_contact: list[float] = []
    from_card: list[float] = []
    with Journal(run.journal, create=False) as journal:
        first = journal.games()[0].id
        events = [r.event for r in journal.events(first)]
        slaps = sorted(e.t_ns for e in events if isinstance(e, Slap))
        rulings = [r.ruling for r in journal.rulings(first)]
    seen = [(e.t_ns - run.t0_ns, str(e.card)) for e in events if isinstance(e, CardSeen)]
    used: dict[str, int] = {}
    for ruling in rulings:
        if ruling.kind not in ("wins_pile", "false_slap") or not ruling.say:
            continue
        times = spoken.get(ruling.say.strip(), [])
        k = used.get(ruling.say.strip(), 0)
        if k >= len(times):
            continue
        used[ruling.say.strip()] = k + 1
        at = times[k]
        contact = max((c for c in contacts if c <= ruling.t_ns + 2_000_000), default=None)
        if contact is not None:
            from_contact.append((at - contact) / 1e6)
        if ruling.kind == "wins_pile":
            card = max((c for c in cards if c <= ruling.t_ns), default=None)
            if card is not None:
                from_card.append((at - card) / 1e6)
    want = [(r.kind, r.seat) for r in script.rulings]
    got = [(r.kind, r.seat) for r in rulings if r.kind not in ("ignored", "check_table")]
    agree = next((i for i, (w, g) in enumerate(zip(want, got)) if w != g), min(len(want), len(got)))
    differs = ""
    if got != want:
        told = [r for r in rulings if r.kind not in ("ignored", "check_table")]
        w = script.rulings[agree] if agree < len(script.rulings) else None
        g = told[agree] if agree < len(told) else None
        differs = (f"first difference, ruling {agree + 1}: the true times call for "
                   f"{'nothing more' if w is None else f'{w.kind} (seat {w.seat}) at {w.t_ns / 1e9:.2f} s'}, the referee "
                   f"said {'nothing more' if g is None else f'{g.kind} (seat {g.seat}) at {(g.t_ns - run.t0_ns) / 1e9:.2f} s'}")
    return {"from_contact": from_contact, "from_card": from_card, "slaps": len(slaps),
            "contacts": len(contacts), "rulings_match": got == want, "rulings": len(got), "want": len(want),
            "agree": agree, "differs": differs, **card_errors(script.cards, seen)}


def card_errors(true_cards: list[tuple[int, str]], seen: list[tuple[int, str]]) -> dict[str, Any]:
    """Each dealt card matched to the camera's next report of it: which were never named, which were stamped
    more than one 30 fps frame early (a landing opened by hands or a sweep), and the worst such stamp (ms)."""
    missed: list[str] = []
    early: list[float] = []
    used: set[int] = set()
    for t, card in true_cards:
        near = [i for i, (s, name) in enumerate(seen) if name == card and i not in used and abs(s - t) < 800_000_000]
        if not near:
            missed.append(f"{card} at {t / 1e9:.2f} s")
            continue
        j = min(near, key=lambda i: abs(seen[i][0] - t))
        used.add(j)
        if seen[j][0] < t - 34_000_000:
            early.append((t - seen[j][0]) / 1e6)
    return {"missed": missed, "early": early}


def _q(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def run(seconds: float = SECONDS) -> list[str]:
    lines = ["## The table through `referee run` (OS-boundary fakes, real vision in the loop)", "",
             f"Each row: {seconds:.0f} s of slapjack by bots, 4 seats, bouncing contacts, hands over the pile, "
             f"the camera at 30 fps read by the real pipeline, `[camera] latency_ms = {LATENCY_MS:.0f}` "
             "(the hold-back). Times from the true physical moment to the fake `espeak-ng` starting with the "
             "ruling's words (the referee hands them to the voice), measured outside the referee's process.", "",
             "| pads | slaps stamped / contacts | rulings as the true times say (agree up to) | cards never named | "
             "cards stamped > 1 frame early (worst ms) | first contact -> voice median / p99 ms | card landed -> "
             "voice median / p99 ms |", "|---|---|---|---|---|---|---|"]
    heard_ms: list[list[float]] = []
    differences: list[tuple[str, str]] = []
    for pads in ("gpio", "gpiod", "mpr121"):
        script = script_game("slapjack", 4, seed=SEED, seconds=seconds)
        with tempfile.TemporaryDirectory() as tmp:
            result = run_table(Path(tmp), table_config(pads, latency_ms=LATENCY_MS),
                               world_for(script, pads=pads, seed=SEED), seconds=seconds + 2.0)
            if result.returncode != 0 or "Traceback" in result.stderr:
                lines.append(f"| {pads} | FAILED (exit {result.returncode}) | | | | | |")
                continue
            m = measure(result, script)
            played = measure(result, script, "aplay")
        fc, fd = m["from_contact"], m["from_card"]
        heard_ms.append(played["from_contact"])
        if m["differs"]:
            differences.append((pads, m["differs"]))
        lines.append(f"| {pads} | {m['slaps']} / {m['contacts']} | "
                     f"{'yes' if m['rulings_match'] else 'NO'} ({m['agree']} of {m['want']}) | "
                     f"{', '.join(m['missed']) or 'none'} | "
                     f"{len(m['early'])} ({max(m['early'], default=0):.0f}) | "
                     f"{statistics.median(fc) if fc else float('nan'):.0f} / {_q(fc, 0.99):.0f} | "
                     f"{statistics.median(fd) if fd else float('nan'):.0f} / {_q(fd, 0.99):.0f} |")
    lines += [""] + [f"- {pads}: {d}" for pads, d in differences]
    every = [v for values in heard_ms for v in values]
    if every:
        lines += ["", f"First contact -> the words start playing (fake aplay started): median {statistics.median(every):.0f} ms, "
                  f"p99 {_q(every, 0.99):.0f} ms over every row (includes rendering the words and the queue of "
                  "earlier words)."]
    lines += ["", "Rulings are compared in order with those the true times call for; \"agree up to\" counts them until the "
              "first that differs (a card never named shifts every count after it). A card is stamped early when "
              "hands or a sweep opened its landing before it arrived.",
              "", "A ruling reaches the voice no sooner than the hold-back after the deciding slap (the arbiter must know "
              "no earlier card or slap is still on its way), plus the words' rendering by espeak-ng."]
    return lines


if __name__ == "__main__":
    print("\n".join(run(float(sys.argv[1]) if len(sys.argv) > 1 else SECONDS)))

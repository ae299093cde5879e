#!/usr/bin/env python3
"""`make bench`: measure the referee and write bench/RESULTS.md.

Rules: events judged per second and whole games simulated per second, for each
game, on one core, as medians of repeated runs, with a baseline measured in the
same process (events pushed through the arbiter alone: the least any referee
must do) so the ratio survives a noisy shared machine. Then the pad and vision
benchmarks, each a module with `run() -> list[str]`.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.core.arbiter import Arbiter  # noqa: E402
from referee.core.events import Event  # noqa: E402
from referee.core.rules import GAMES  # noqa: E402
from referee.core.session import Session  # noqa: E402
from referee.sim.table import SimTable  # noqa: E402

PLAYERS = {"slapstick": 3}


def recorded_streams(game: str, games: int) -> list[tuple[int, list[tuple[int, Event]]]]:
    """Realistic event streams (with arrival times) recorded from simulated games."""
    streams = []
    for seed in range(games):
        table = SimTable(game, PLAYERS.get(game, 4), seed=seed)
        table.run()
        streams.append((seed, table.arrivals))
    return streams


def judge(game: str, seed: int, arrivals: list[tuple[int, Event]]) -> None:
    session = Session.create(game, PLAYERS.get(game, 4), seed=seed, holdback_ns=120_000_000, strict=False)
    for now, event in arrivals:
        session.submit(event, now_ns=now)
    session.finish()


def arbiter_only(arrivals: list[tuple[int, Event]]) -> None:
    arbiter = Arbiter(120_000_000)
    for now, event in arrivals:
        arbiter.push(event, None, now)
        horizon = arbiter.horizon()
        while arbiter.peek_time() is not None and horizon is not None and arbiter.peek_time() <= horizon:  # type: ignore[operator]
            arbiter.pop()
    list(arbiter.drain())


def median_rate(work: Callable[[], int], repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        count = work()
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates)


def bench_rules(repeats: int, games: int) -> list[str]:
    lines = ["## Rules engine and arbitration (one core)", "",
             f"Events: recorded from {games} simulated games per game id (bots, camera latency, "
             "120 ms hold-back), replayed in arrival order through a fresh Session. "
             f"Median of {repeats} runs. Baseline: the same events through the arbiter alone.", "",
             "| game | events | events/s judged | baseline events/s | ratio | games/s simulated | cards/game |",
             "|---|---|---|---|---|---|---|"]
    worst = float("inf")
    for game in GAMES:
        streams = recorded_streams(game, games)
        total = sum(len(a) for _s, a in streams)

        def judged() -> int:
            for seed, arrivals in streams:
                judge(game, seed, arrivals)
            return total

        def baseline() -> int:
            for _seed, arrivals in streams:
                arbiter_only(arrivals)
            return total

        cards: list[int] = []

        def simulated() -> int:
            for seed in range(games):
                cards.append(SimTable(game, PLAYERS.get(game, 4), seed=seed).run().cards)
            return games

        rate = median_rate(judged, repeats)
        base = median_rate(baseline, repeats)
        sims = median_rate(simulated, repeats)
        worst = min(worst, rate)
        lines.append(f"| {game} | {total} | {rate:,.0f} | {base:,.0f} | {rate / base:.2f} | {sims:,.1f} | "
                     f"{statistics.median(cards):.0f} |")
    verdict = "meets" if worst >= 100_000 else "MISSES"
    lines += ["", f"Slowest game: {worst:,.0f} events/s judged: {verdict} the 100,000 events/s target.", ""]
    return lines


def optional(name: str) -> list[str]:
    try:
        module = __import__(f"bench.{name}", fromlist=["run"])
    except ImportError as exc:
        return [f"## {name}", "", f"skipped: {exc}", ""]
    try:
        return list(module.run()) + [""]
    except Exception as exc:  # a broken sub-benchmark must not hide the others
        return [f"## {name}", "", f"FAILED: {type(exc).__name__}: {exc}", ""]


def screenshots() -> list[str]:
    """The dashboard's main view and review page, saved under bench/screens/ (headless Chromium)."""
    lines = ["## Dashboard screenshots", ""]
    try:
        from referee.web import screens
    except ImportError as exc:
        return lines + [f"skipped: {exc}", ""]
    missing = screens.browser_missing()
    if missing:
        return lines + [f"skipped: {missing}", ""]
    out = ROOT / "bench" / "screens"
    saved = screens.save_screenshots(out)
    names = [Path(p).name for p in saved] if saved else sorted(p.name for p in out.glob("*.png"))
    return lines + [f"Saved to bench/screens/: {', '.join(names)}", ""]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}"
            f"{libraries()}")


def libraries() -> str:
    """The vision libraries' versions: a new OpenCV can move the rendered validation and the timings."""
    try:
        import cv2
        import numpy
    except ImportError:
        return ""
    return f", OpenCV {cv2.__version__}, numpy {numpy.__version__}"


PARTS = ["rules", "pads", "mpr121", "table", "landing", "runtime", "vision", "calibration", "deal_learn", "demo",
         "kiosk", "fuzz", "screens"]


def part(name: str, repeats: int, games: int) -> list[str]:
    """The markdown of one part: the rules here, the others from their bench/bench_<part>.py."""
    if name == "rules":
        return bench_rules(repeats, games)
    if name == "screens":
        return screenshots()
    return optional(f"bench_{name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    parser.add_argument("--only", choices=PARTS, help="run one part")
    parser.add_argument("--out", default=str(ROOT / "bench" / "RESULTS.md"))
    args = parser.parse_args()
    repeats, games = (3, 3) if args.quick else (7, 10)
    command = "make bench" + (f" ARGS='{' '.join(sys.argv[1:])}'" if sys.argv[1:] else "")
    header = ["# Benchmark results", "",
              f"Command: `{command}` (runs `python bench/run.py{' ' + ' '.join(sys.argv[1:]) if sys.argv[1:] else ''}`)",
              f"Machine: {machine()}",
              f"Date: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
              "This machine is shared and noisy: read the ratios against the in-process baselines.", ""]
    todo = [args.only] if args.only else PARTS
    parts: list[str] = []
    took: list[str] = []
    for done, name in enumerate(todo):
        started = time.perf_counter()
        parts += part(name, repeats, games)
        took.append(f"{name} {time.perf_counter() - started:.0f} s")
        left = todo[done + 1:]
        status = [f"Still running: {', '.join(left)}.", ""] if left else [f"Time per part: {', '.join(took)}.", ""]
        text = "\n".join(header + status + parts) + "\n"
        Path(args.out).write_text(text)          # after every part: a bench cut short keeps what it measured
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Soak: the kiosk demo plays 30 minutes of table time (accelerated, vision in the
loop) and neither memory nor the journal grows past a bound (old games are pruned)."""
from __future__ import annotations

import ctypes
import gc
import statistics
import tempfile
import time
from pathlib import Path

from tabletop.demo import DemoTable

TABLE_MINUTES = 30
KEEP_GAMES = 5


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def settled_rss_mb() -> float:
    """RSS once Python's garbage is collected and glibc has handed its free pages back: what the process holds,
    not what the allocator kept from the last game's peak (a soak read raw RSS swinging 170-190 MB while traced
    Python memory stayed flat)."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the raw reading it is
        pass
    return rss_mb()


def run() -> list[str]:
    folder = Path(tempfile.mkdtemp(prefix="soak-"))
    journal = folder / "demo.db"
    samples: list[tuple[int, float, float, float]] = []   # game, table minutes so far, rss MB, journal kB
    table_s = 0.0
    start = time.perf_counter()

    demo = DemoTable(headless=True, vision=True, journal_path=journal, keep_games=KEEP_GAMES)

    def after(game_no: int, result: object) -> None:
        nonlocal table_s
        table_s += getattr(result, "seconds", 0.0)
        size = sum(p.stat().st_size for p in folder.glob("demo.db*")) / 1024
        samples.append((game_no, table_s / 60, settled_rss_mb(), size))
        if table_s >= TABLE_MINUTES * 60:
            demo._stop.set()

    demo.on_game = after
    demo.run()
    wall = time.perf_counter() - start
    half = max(1, len(samples) // 2)
    rss_early = statistics.median(s[2] for s in samples[:half])
    rss_late = statistics.median(s[2] for s in samples[half:] or samples)
    jmax = max(s[3] for s in samples)
    lines = ["## Demo soak (30 table minutes, vision in the loop)", "",
             f"{len(samples)} games, {table_s / 60:.1f} table minutes in {wall:.0f} s wall; journal keeps the newest "
             f"{KEEP_GAMES} games.", "",
             "RSS is read after each game once garbage is collected and glibc's free pages are returned "
             "(`malloc_trim`), so it shows what the process holds rather than the allocator's leftovers.", "",
             "| after game | table min | RSS MB | journal kB |", "|---|---|---|---|"]
    lines += [f"| {g} | {m:.1f} | {r:.0f} | {j:.0f} |" for g, m, r, j in samples]
    lines += ["", f"Median RSS, first half of the games: {rss_early:.0f} MB; second half: {rss_late:.0f} MB "
              f"(growth {rss_late - rss_early:+.0f} MB). Journal peak {jmax:.0f} kB "
              f"(bound: {KEEP_GAMES} games' worth).", ""]
    return lines


if __name__ == "__main__":
    print("\n".join(run()))

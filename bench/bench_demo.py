"""Soak: the kiosk demo through `referee run --config FILE` (mode "demo", as a fresh Pi boots it) for 30 table
minutes on an accelerated clock, vision in the loop; it must not crash, and neither its memory nor its journal
may grow past a bound (old games are pruned)."""
from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.journal import Journal  # noqa: E402

TABLE_MINUTES = 30
SPEED = 10.0


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def run(table_minutes: float = TABLE_MINUTES) -> list[str]:
    folder = Path(tempfile.mkdtemp(prefix="soak-"))
    journal = folder / "demo.db"
    config = folder / "table.toml"
    config.write_text(f'[journal]\npath = "{journal}"\n[kiosk]\nmode = "demo"\nport = {_port()}\nspeed = {SPEED}\n')
    wall_s = table_minutes * 60 / SPEED
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "referee", "run", "--config", str(config)], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    samples: list[tuple[float, float]] = []          # wall seconds, RSS MB
    start = time.monotonic()
    while time.monotonic() - start < wall_s and proc.poll() is None:
        time.sleep(2.0)
        samples.append((time.monotonic() - start, _rss_mb(proc.pid)))
    crashed = proc.poll() is not None
    if not crashed:
        proc.send_signal(signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    size_kb = sum(p.stat().st_size for p in folder.glob("demo.db*")) / 1024
    with Journal(journal, create=False) as book:
        games = book.games()
    ended = sum(1 for g in games if g.ended)
    third = max(1, len(samples) // 3)
    early = statistics.median(r for _t, r in samples[:third]) if samples else float("nan")
    late = statistics.median(r for _t, r in samples[-third:]) if samples else float("nan")
    clean = not crashed and proc.returncode == 0 and "Traceback" not in err
    lines = [f"## Demo soak through `referee run` ({table_minutes:.0f} table minutes, vision in the loop)", "",
             f"`referee run --config demo.toml` with `[kiosk] mode = \"demo\"` and `speed = {SPEED:g}` for "
             f"{wall_s:.0f} s wall, then SIGTERM as systemd stops it. Games are numbered in the journal, which "
             "keeps the newest 20.", "",
             "| result | games started (journal numbering) | ended in the journal now | RSS first third MB | "
             "RSS last third MB | peak RSS MB | journal kB |", "|---|---|---|---|---|---|---|",
             f"| {'clean exit 0' if clean else f'FAILED (exit {proc.returncode})'} | "
             f"{games[-1].id if games else 0} | {ended} | {early:.0f} | {late:.0f} | "
             f"{max((r for _t, r in samples), default=float('nan')):.0f} | {size_kb:.0f} |", ""]
    if not clean:
        lines += ["```", err[-1500:], "```", ""]
    return lines


if __name__ == "__main__":
    print("\n".join(run(float(sys.argv[1]) if len(sys.argv) > 1 else TABLE_MINUTES)))

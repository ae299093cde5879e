"""Start `referee run --config FILE` as the systemd unit does, with only the OS-boundary fakes on the paths.

The fakes (tests/fakeos) stand where a Raspberry Pi hands the program its
modules and programs; the table config is the one a Pi owner would write. The
world's timeline starts once the referee says it is judging, and the journal
is what the test reads afterwards.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import ROOT
from tests.e2e.table_world import start_world, write_world

FAKEOS = ROOT / "tests" / "fakeos"
READY = "journal game"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fake_env(world_dir: Path) -> dict[str, str]:
    """The service's environment on a Pi, with the fakes where the OS's modules and programs would be."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(FAKEOS), str(ROOT)])
    env["PATH"] = os.pathsep.join([str(FAKEOS / "bin"), env.get("PATH", "")])
    env["TABLETOP_FAKE_WORLD"] = str(world_dir)
    env["GPIOZERO_PIN_FACTORY"] = "lgpio"          # as deploy/systemd/tabletop-referee.service sets it
    env["PYTHONUNBUFFERED"] = "1"
    return env


@dataclass
class TableRun:
    """What one `referee run` printed, how it ended, and where its journal and world are."""

    returncode: int
    stdout: str
    stderr: str
    t0_ns: int
    world_dir: Path
    journal: Path
    lines: list[str] = field(default_factory=list)


def run_table(tmp_path: Path, config: str, world: dict[str, Any], *, seconds: float,
              ready_timeout_s: float = 90.0, lead_s: float = 0.5) -> TableRun:
    """Run the table for the world's `seconds` after it is ready, then SIGTERM it as systemd would."""
    world_dir = write_world(tmp_path / "world", world)
    journal = tmp_path / "journal.db"
    cfg = tmp_path / "table.toml"
    cfg.write_text(config.replace("@JOURNAL@", str(journal)).replace("@PORT@", str(free_port())))
    proc = subprocess.Popen([sys.executable, "-m", "referee", "run", "--config", str(cfg)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=fake_env(world_dir), cwd=tmp_path)
    out: list[str] = []
    ready = threading.Event()

    def read_stdout() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.append(line)
            if READY in line:
                ready.set()

    reader = threading.Thread(target=read_stdout, daemon=True)
    reader.start()
    t0 = 0
    try:
        if ready.wait(ready_timeout_s):
            t0 = start_world(world_dir, lead_s)
            deadline = time.monotonic() + lead_s + seconds
            while time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.1)
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        returncode = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(5)
    stderr = proc.stderr.read() if proc.stderr is not None else ""
    return TableRun(returncode, "".join(out), stderr, t0, world_dir, journal, out)


def table_config(pads: str, *, players: int = 4, game: str = "slapjack", latency_ms: float = 300,
                 mode: str = "table", extra: str = "") -> str:
    """A Pi owner's table.toml for `pads` (gpio | gpiod | mpr121) with the camera and the voice."""
    pad_lines = {"gpio": f'backend = "gpio"\npins = {[17, 27, 22, 23, 24, 25][:players]}',
                 "gpiod": f'backend = "gpiod"\npins = {[17, 27, 22, 23, 24, 25][:players]}',
                 "mpr121": f'backend = "mpr121"\nelectrodes = {list(range(players))}'}[pads]
    return f"""[game]
id = "{game}"
players = {players}

[pads]
{pad_lines}

[camera]
source = "picamera2"
latency_ms = {latency_ms}

[audio]
backend = "espeak"

[journal]
path = "@JOURNAL@"

[kiosk]
mode = "{mode}"
port = @PORT@
{extra}"""

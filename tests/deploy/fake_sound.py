"""A fake world's sound for a test: tests/fakeos/bin first on PATH, a world folder with cards, the log it keeps.

The fake `aplay` and `espeak-ng` read `world.json`'s "sound" (tests/fakeos/README.md), so a test
sets up the machine's cards and whether a user sound server is reachable, and nothing else.
"""
from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest

from hardware.audio_device import SERVER_VARIABLES
from tests.conftest import ROOT

FAKE_BIN = ROOT / "tests" / "fakeos" / "bin"
HEADPHONES = {"index": 0, "id": "Headphones", "name": "bcm2835 Headphones"}
HDMI = {"index": 1, "id": "vc4hdmi0", "name": "vc4-hdmi-0", "iec958_only": True}
USB = {"index": 2, "id": "Device", "name": "USB Audio Device"}


def sound_world(folder: Path, monkeypatch: pytest.MonkeyPatch, cards: list[dict[str, Any]],
                user_server: bool = False) -> Path:
    """Write `folder/world.json` with these cards; put the fakes first on PATH; leave no user sound server.

    The process then looks like a system service: none of the variables that lead to a user's
    PipeWire or PulseAudio is set.
    """
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "world.json").write_text(json.dumps({"sound": {"cards": cards, "user_server": user_server}}))
    monkeypatch.setenv("TABLETOP_FAKE_WORLD", str(folder))
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    for name in (*SERVER_VARIABLES, "ALSA_CARD"):
        monkeypatch.delenv(name, raising=False)
    return folder


def records(folder: Path, fake: str = "aplay") -> list[dict[str, Any]]:
    """What that fake logged, in order (without the moment it was started, which no test can predict)."""
    log = folder / "log.jsonl"
    lines = log.read_text().splitlines() if log.exists() else []
    return [{k: v for k, v in r.items() if k != "started_ns"} for r in map(json.loads, lines) if r["fake"] == fake]


@contextlib.contextmanager
def pipewire_login(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A listening `$XDG_RUNTIME_DIR/pipewire-0`, as in a desktop login (the socket only accepts)."""
    with tempfile.TemporaryDirectory(prefix="tt-run-") as runtime:   # short: a socket path fits ~100 chars
        path = Path(runtime) / "pipewire-0"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            server.bind(str(path))
            server.listen(4)
            monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
            yield path

"""`referee run`: a config is checked key by key, and a table starts, journals and stops."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from referee.config import ConfigError, parse
from referee.journal import Journal
from tests.conftest import ROOT


def referee(*args: str, timeout: int = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


@pytest.mark.parametrize("data,key", [
    ({"game": {"id": "slapjack", "playrs": 3}}, "[game] playrs"),
    ({"game": {"id": "snap"}}, "[game] id"),
    ({"game": {"id": "slapjack", "options": {"tie": "coin"}}}, "[game] options"),
    ({"game": {"id": "slapjack", "players": 2}, "pads": {"backend": "gpio", "pins": [17]}}, "[pads] pins"),
    ({"game": {"id": "slapjack", "players": 2}, "pads": {"backend": "gpio", "pins": [17, 17]}}, "[pads] pins"),
    ({"camera": {"pile": [0, 0, -5, 10]}}, "[camera] pile"),
    ({"audio": {"volume": 300}}, "[audio] volume"),
    ({"kiosk": {"mode": "party"}}, "[kiosk] mode"),
    ({"lights": {"backend": "gpio"}}, "[lights] seats"),
    ({"speaker": {}}, "speaker"),
    ({"camera": {"latency_ms": float("nan")}}, "[camera] latency_ms"),
    ({"camera": {"fps": float("inf")}}, "[camera] fps"),
    ({"pads": {"stuck_after_s": -1.0}}, "[pads] stuck_after_s"),
    ({"pads": {"tie_margin_us": [0, -5, 0, 0]}}, "[pads] tie_margin_us"),
    ({"game": {"id": "slapjack", "options": {"time_limit_s": float("nan")}}}, "[game] options"),
    ({"pads": {"backend": "keyboard", "keys": "aab"}}, "[pads] keys"),
    ({"camera": {"source": "rendered"}}, "[camera] source"),
    ({"pads": {"backend": "bots"}, "camera": {"source": "picamera2"}}, "[camera] source"),
    ({"kiosk": {"speed": 4.0}}, "[kiosk] speed"),
])
def test_a_bad_config_is_refused_naming_the_key(data: dict, key: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse(data)
    assert str(err.value).startswith(key)
    assert "\n" not in str(err.value)


def test_a_broken_config_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text("[game]\nid = 'slapjack'\nplayers = \n")
    done = referee("run", "--config", str(bad))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "not valid TOML" in done.stderr and "Traceback" not in done.stderr


def test_check_opens_each_part_and_reports(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"[game]\nid = 'irish-snap'\nplayers = 3\n[journal]\npath = '{tmp_path / 'j.db'}'\n")
    done = referee("run", "--config", str(cfg), "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["ok"] * 7     # + the journal, the dashboard


def test_a_table_starts_journals_its_game_and_stops(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"[game]\nid = 'slapjack'\nplayers = 4\n[journal]\npath = '{tmp_path / 'j.db'}'\n")
    done = referee("run", "--config", str(cfg), "--seconds", "1")
    assert done.returncode == 0, done.stderr
    assert "journal game 1" in done.stdout
    with Journal(tmp_path / "j.db") as journal:
        (game,) = journal.games()
    assert (game.game_id, game.players, game.ended) == ("slapjack", 4, False)
    again = referee("run", "--config", str(cfg), "--seconds", "1", "--resume")
    assert again.returncode == 0, again.stderr
    assert "journal game 1" in again.stdout


def test_an_operator_fix_reaches_the_running_table_and_its_journal(tmp_path: Path) -> None:
    import socket
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"[game]\nid = 'irish-snap'\nplayers = 3\n[journal]\npath = '{tmp_path / 'j.db'}'\n"
                   f"[kiosk]\nport = {port}\noperator_pin = '2468'\n")
    table = subprocess.Popen([sys.executable, "-m", "referee", "run", "--config", str(cfg), "--seconds", "6"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        for _ in range(100):
            fixed = referee("fix", "--config", str(cfg), "--hand", "1", "17")
            if fixed.returncode == 0:
                break
            time.sleep(0.1)
        assert fixed.returncode == 0, fixed.stderr
        wrong_pin = tmp_path / "wrong.toml"
        wrong_pin.write_text(cfg.read_text().replace("2468", "1111"))
        refused = referee("fix", "--config", str(wrong_pin), "--resume")
        assert refused.returncode == 2 and "403" in refused.stderr
    finally:
        out, err = table.communicate(timeout=30)
    assert table.returncode == 0 and "Traceback" not in err, err
    with Journal(tmp_path / "j.db") as journal:
        (game,) = journal.games()
        corrected = [r.ruling for r in journal.rulings(game.id) if r.ruling.kind == "check_table"]
    assert corrected and {r.seat for r in corrected} == {0}     # the correction is on the record: "--hand 1" is seat 1
    assert "Player 1 holds 17 cards" in corrected[0].say


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def example_config(tmp_path: Path, **replace: str) -> Path:
    """deploy/table.example.toml with its journal in `tmp_path`, a free dashboard port and the given lines
    replaced (`key = "old line" -> new line`)."""
    text = (ROOT / "deploy" / "table.example.toml").read_text()
    text = text.replace('path = "/var/lib/tabletop/journal.db"', f'path = "{tmp_path / "journal.db"}"')
    text = text.replace("port = 8080", f"port = {free_port()}")
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    cfg = tmp_path / "table.toml"
    cfg.write_text(text)
    return cfg


def service_env() -> dict[str, str]:
    """As the unit runs it, with the OS-boundary fakes' programs first on PATH where they exist."""
    import os
    env = dict(os.environ)
    fake_bin = ROOT / "tests" / "fakeos" / "bin"
    if fake_bin.is_dir():
        env["PATH"] = f"{fake_bin}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_nan_in_the_config_is_refused_before_the_table_starts(tmp_path: Path) -> None:
    cfg = example_config(tmp_path, **{"latency_ms = 120.0": "latency_ms = nan", 'mode = "demo"': 'mode = "table"'})
    done = referee("run", "--config", str(cfg))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "[camera] latency_ms: must be a finite number" in done.stderr and "Traceback" not in done.stderr


def test_a_keyboard_table_builds_and_runs(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"[game]\nid = 'slapjack'\nplayers = 3\n[pads]\nbackend = 'keyboard'\nkeys = 'qwe'\n"
                   f"[journal]\npath = '{tmp_path / 'j.db'}'\n")
    done = referee("run", "--config", str(cfg), "--seconds", "1", "--no-dashboard")
    assert done.returncode == 0, done.stderr
    assert "journal game 1" in done.stdout and "Traceback" not in done.stderr


def test_the_example_config_serves_the_demo_and_plays_game_after_game(tmp_path: Path) -> None:
    # what a fresh install boots: `referee run --config` with [kiosk] mode = "demo", default arguments
    import json
    import time
    import urllib.request
    cfg = example_config(tmp_path, **{"[game.options]": "[game.options]\ntime_limit_s = 16",
                                      "speed = 1.0": "speed = 4.0"})
    port = next(int(line.split("=")[1]) for line in cfg.read_text().splitlines() if line.startswith("port ="))
    table = subprocess.Popen([sys.executable, "-m", "referee", "run", "--config", str(cfg), "--seconds", "16"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=service_env())
    states = []
    try:
        for _ in range(200):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2) as reply:
                    states.append(json.loads(reply.read())["state"])
                if states[-1]["game"] != "slapjack":
                    break
            except OSError:
                pass
            time.sleep(0.2)
    finally:
        out, err = table.communicate(timeout=60)
    assert table.returncode == 0 and "Traceback" not in err, err[-3000:]
    assert states and states[0]["players"] and len(states[0]["players"]) == 4, states[:1]
    assert states[-1]["game"] == "slapjack-classic", [s["game"] for s in states]    # the dashboard followed
    assert "=== Game 1 (slapjack)" in out and "=== Game 2 (slapjack-classic)" in out, out
    with Journal(tmp_path / "journal.db") as journal:
        games = journal.games()
        assert [g.game_id for g in games[:3]] == ["slapjack", "slapjack-classic", "irish-snap"]
        for game in games[:2]:
            assert game.ended and any(r.ruling.kind == "game_over" for r in journal.rulings(game.id))
            sources = {e.source for e in journal.events(game.id)}
            assert {"pads", "camera", "clock"} <= sources, sources


def test_sigterm_mid_game_stops_between_events_and_leaves_a_resumable_journal(tmp_path: Path) -> None:
    import signal
    import time
    from referee.journal import resume
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"[game]\nid = 'irish-snap'\nplayers = 4\n[game.options]\ntime_limit_s = 15\n"
                   f"[pads]\nbackend = 'bots'\n[camera]\nsource = 'sim'\n[kiosk]\nspeed = 5.0\n"
                   f"[journal]\npath = '{tmp_path / 'j.db'}'\n")
    table = subprocess.Popen([sys.executable, "-m", "referee", "run", "--config", str(cfg), "--no-dashboard"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    lines: list[str] = []
    try:
        assert table.stdout is not None
        for line in table.stdout:                     # the first game ends, the second starts...
            lines.append(line)
            if "journal game 2" in line:
                break
        time.sleep(1.5)                               # ...and is under way when systemd stops the service
        table.send_signal(signal.SIGTERM)
        out, err = table.communicate(timeout=15)
    finally:
        if table.poll() is None:
            table.kill()
    assert table.returncode == 0 and "Traceback" not in err, err[-3000:]
    assert "=== Game 1 (irish-snap)" in "".join(lines)
    with Journal(tmp_path / "j.db") as journal:
        first, second = journal.games()
        assert first.ended and not second.ended
        assert len(journal.events(second.id)) > 3
        resume(journal, second.id, repair=False)     # every recorded ruling comes out again
    again = referee("run", "--config", str(cfg), "--no-dashboard", "--resume", "--seconds", "1")
    assert again.returncode == 0 and "journal game 2" in again.stdout, again.stderr

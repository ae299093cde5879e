"""The table config's declared checks, case by case (issue 38's list), and what `referee run` refuses
before it builds anything: a journal path that cannot be a journal, a dashboard open without a PIN."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from referee.config import ConfigError, parse
from referee.journal import Journal
from tests.conftest import ROOT

NAN, INF = float("nan"), float("inf")
G4 = {"id": "slapjack", "players": 4}
GPIO4 = {"backend": "gpio", "pins": [17, 27, 22, 23]}
LEDS = [[5, 6, 12], [13, 19, 16], [20, 21, 26], [24, 25, 7]]


@pytest.mark.parametrize("data,key", [
    ({"camera": {"pile": ["a", 0, 10, 10]}}, "[camera] pile[0]"),
    ({"camera": {"pile": [0, 0, 10]}}, "[camera] pile"),
    ({"pads": {**GPIO4, "pins": ["a", 27, 22, 23]}}, "[pads] pins[0]"),
    ({"pads": {**GPIO4, "pins": [[17], 27, 22, 23]}}, "[pads] pins[0]"),
    ({"pads": {**GPIO4, "pins": [99, 27, 22, 23]}}, "[pads] pins[0]"),
    ({"pads": {**GPIO4, "pins": [-1, 27, 22, 23]}}, "[pads] pins[0]"),
    ({"pads": {**GPIO4, "pins": [17.5, 27, 22, 23]}}, "[pads] pins[0]"),
    ({"pads": {**GPIO4, "pins": [True, 27, 22, 23]}}, "[pads] pins[0]"),
    ({"pads": {**GPIO4, "press_pins": [5, 6, 17, 26]}}, "[pads] press_pins[2]"),
    ({"lights": {"backend": "gpio", "seats": [5, 6, 7, 8]}}, "[lights] seats[0]"),
    ({"lights": {"backend": "gpio", "seats": [[5, 6], [7, 8], [9, 10], [11, 12]]}}, "[lights] seats[0]"),
    ({"lights": {"backend": "gpio", "seats": LEDS, "status": [5, 14, 15]}}, "[lights] status"),
    ({"pads": {"backend": "mpr121", "irq_pin": 5}, "lights": {"backend": "gpio", "seats": LEDS}}, "[lights] seats[0]"),
    ({"pads": {"backend": "mpr121", "irq_pin": 99}}, "[pads] irq_pin"),
    ({"pads": {"backend": "mpr121", "electrodes": [0, 0, 1, 2]}}, "[pads] electrodes"),
    ({"pads": {"backend": "mpr121", "electrodes": [0, 1, 2, 12]}}, "[pads] electrodes[3]"),
    ({"pads": {"backend": "mpr121", "i2c_address": 1000}}, "[pads] i2c_address"),
    ({"pads": {"offsets_us": [0, 0]}}, "[pads] offsets_us"),
    ({"camera": {"latency_ms": -1.0}}, "[camera] latency_ms"),
    ({"camera": {"fps": NAN}}, "[camera] fps"),
    ({"camera": {"frozen_after_s": INF}}, "[camera] frozen_after_s"),
    ({"camera": {"device": -1}}, "[camera] device"),
    ({"journal": {"keep_games": -1}}, "[journal] keep_games"),
    ({"journal": {"path": ""}}, "[journal] path"),
    ({"game": {**G4, "options": {"holdback_ms": NAN}}}, "[game] options"),
    ({"game": {**G4, "options": {"time_limit_s": INF}}}, "[game] options"),
    ({"game": {**G4, "options": {"tie_us": [1, 2]}}}, "[game] options: tie_us"),
    ({"game": {**G4, "names": [1, 2, 3, 4]}}, "[game] names[0]"),
    ({"game": {**G4, "names": [{"a": 1}, "b", "c", "d"]}}, "[game] names[0]"),
    ({"game": {**G4, "names": ["a", "b", "c"]}}, "[game] names"),
    ({"game": {**G4, "names": ["a", " ", "c", "d"]}}, "[game] names"),
    ({"game": {**G4, "names": ["x" * 5000, "b", "c", "d"]}}, "[game] names[0]"),
    ({"audio": {"voice": "en\x00"}}, "[audio] voice"),
    ({"kiosk": {"bind": "not a host!"}}, "[kiosk] bind"),
    ({"kiosk": {"port": 0}}, "[kiosk] port"),
    ({"pads": {"x" * 500: 1}}, "[pads] 'xxx"),
])
def test_the_issue_list_is_refused_naming_the_key(data: dict, key: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse(data)
    assert str(err.value).startswith(key), str(err.value)
    assert "\n" not in str(err.value) and len(str(err.value)) < 300


def test_a_full_gpio_table_with_every_pin_once_is_fine() -> None:
    config = parse({"game": {**G4, "options": {"tie_us": [0, 0, 100, 0]}},
                    "pads": {**GPIO4, "press_pins": [4, 18, 14, 15]},
                    "lights": {"backend": "gpio", "seats": LEDS, "status": [8, 9, 10]}})
    assert config.pads.pins == [17, 27, 22, 23]


def referee(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


def files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("journal,said", [
    ("/dev/null", "not a regular file"),
    ("{tmp}/a-folder", "is a folder"),
    ("{tmp}/garbage.db", "not an SQLite file"),
    ("{tmp}/damaged.db", "is damaged"),
    ("/proc/referee-journal.db", "cannot be written"),
    ("{tmp}/missing/j.db", "does not exist"),
])
def test_check_refuses_a_journal_path_in_one_line_and_creates_nothing(tmp_path: Path, journal: str, said: str) -> None:
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "garbage.db").write_bytes(b"\x00garbage" * 1000)
    with Journal(tmp_path / "damaged.db") as book:
        book.start_game("slapjack", 4)
    data = bytearray((tmp_path / "damaged.db").read_bytes())
    data[4096:12288] = b"\x00" * 8192
    (tmp_path / "damaged.db").write_bytes(bytes(data))
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"[journal]\npath = '{journal.format(tmp=tmp_path)}'\n"
                   f"[audio]\nbackend = 'files'\ndir = '{tmp_path / 'voice'}'\n")
    before = files(tmp_path)
    done = referee("run", "--config", str(cfg), "--check")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stdout + done.stderr
    fails = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert len(fails) == 1 and fails[0].startswith("FAIL [journal] path: ") and said in fails[0], done.stdout
    assert files(tmp_path) == before                          # no journal, no voice folder, no -wal/-shm


def test_check_of_a_sound_journal_and_a_new_voice_folder_creates_nothing(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.db") as book:
        book.start_game("slapjack", 4)
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"[journal]\npath = '{tmp_path / 'j.db'}'\n[audio]\nbackend = 'files'\ndir = '{tmp_path / 'voice'}'\n")
    before = files(tmp_path)
    done = referee("run", "--config", str(cfg), "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok   journal: " in done.stdout and "ok   audio: files into" in done.stdout
    assert files(tmp_path) == before


def test_a_dashboard_open_to_the_network_without_a_pin_is_refused_before_anything_is_made(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"[journal]\npath = '{tmp_path / 'j.db'}'\n[audio]\nbackend = 'files'\ndir = '{tmp_path / 'voice'}'\n"
                   "[kiosk]\nbind = '0.0.0.0'\nport = 18931\n")
    done = referee("run", "--config", str(cfg), "--seconds", "1")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("referee run: [kiosk] bind: ") and "operator PIN" in done.stderr
    assert files(tmp_path) == ["table.toml"]
    check = referee("run", "--config", str(cfg), "--check")
    assert check.returncode == 2 and "FAIL [kiosk] bind: " in check.stdout
    alone = referee("run", "--config", str(cfg), "--seconds", "0.5", "--no-dashboard")   # no dashboard, no risk
    assert alone.returncode == 0, alone.stderr

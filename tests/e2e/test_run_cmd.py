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
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["ok"] * 5


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
        kinds = [r.ruling.kind for r in journal.rulings(game.id)]
    assert "check_table" in kinds                  # the correction is on the record

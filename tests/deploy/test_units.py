"""The systemd units: required keys (parsed with configparser) and `systemd-analyze verify` when available."""
from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

UNITS = ROOT / "deploy" / "systemd"


def parse(name: str) -> configparser.ConfigParser:
    """A unit file as sections of keys (repeated keys such as Environment= keep the last)."""
    parser = configparser.ConfigParser(strict=False, interpolation=None, comment_prefixes=("#", ";"))
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string((UNITS / name).read_text())
    return parser


def values(name: str, key: str) -> list[str]:
    """Every value of a repeatable key, in order."""
    return [line.split("=", 1)[1] for line in (UNITS / name).read_text().splitlines() if line.startswith(key + "=")]


def test_referee_unit_keys() -> None:
    unit = parse("tabletop-referee.service")
    assert unit["Service"]["ExecStart"] == "/opt/tabletop/venv/bin/referee run --config /etc/tabletop/table.toml"
    assert unit["Service"]["KillSignal"] == "SIGTERM"
    assert unit["Service"]["User"] == "tabletop" and unit["Service"]["StateDirectory"] == "tabletop"
    after = unit["Unit"]["After"].split()
    assert "sound.target" in after and "systemd-udev-trigger.service" in after
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert "GPIOZERO_PIN_FACTORY=lgpio" in values("tabletop-referee.service", "Environment")
    # Hardening on, but nothing that would hide GPIO, I2C, camera or sound devices.
    service = unit["Service"]
    assert service["NoNewPrivileges"] == "yes" and service["ProtectSystem"] == "strict"
    for hides_devices in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock"):
        assert hides_devices not in service, hides_devices
    assert "kiosk" in (UNITS / "tabletop-referee.service").read_text().lower()  # the mode contract is documented


#: systemd.service(5), the table under Restart=: which ends of the main process each setting restarts.
RESTARTS_AFTER = {
    "no": set(),
    "always": {"clean exit", "unclean exit", "unclean signal", "timeout", "watchdog"},
    "on-success": {"clean exit"},
    "on-failure": {"unclean exit", "unclean signal", "timeout", "watchdog"},
    "on-abnormal": {"unclean signal", "timeout", "watchdog"},
    "on-abort": {"unclean signal"},
    "on-watchdog": {"watchdog"},
}


def seconds(value: str) -> float:
    """A systemd time span such as `5`, `5s`, `1min 30s` or `500ms`, in seconds."""
    units = {"ms": 0.001, "s": 1, "sec": 1, "min": 60, "m": 60, "h": 3600}
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)\s*([a-z]*)", value):
        total += float(number) * units[unit or "s"]
    return total


def test_referee_restarts_after_any_exit_and_stops_on_sigterm() -> None:
    """`referee run` exits 0 when a game ends or a config asks it to: the table must come back anyway."""
    unit = parse("tabletop-referee.service")
    service = unit["Service"]
    assert RESTARTS_AFTER[service["Restart"]] == RESTARTS_AFTER["always"], service["Restart"]
    assert service.get("RestartPreventExitStatus", "") == "" and service.get("SuccessExitStatus", "") == ""
    assert unit["Unit"]["StartLimitIntervalSec"] == "0"       # never gives up restarting
    assert 1 <= seconds(service["RestartSec"]) <= 30
    # SIGTERM lets `referee run` close the table: the announcer speaks its queue for up to 5 s first.
    assert service.get("KillSignal", "SIGTERM") == "SIGTERM"
    assert seconds(service["TimeoutStopSec"]) >= 5 + 5 and seconds(service["TimeoutStopSec"]) <= 90
    assert service.get("KillMode", "control-group") in ("control-group", "mixed")
    text = (UNITS / "tabletop-referee.service").read_text()
    assert "Restart=always" in text and "on-failure" not in text   # the comment describes what is set


def test_restart_table_reads_as_documented() -> None:
    assert "clean exit" not in RESTARTS_AFTER["on-failure"]   # the bug: exit 0 left the table dead
    assert seconds("1min 30s") == 90 and seconds("500ms") == 0.5 and seconds("20") == 20


def test_kiosk_unit_keys() -> None:
    unit = parse("tabletop-kiosk.service")
    assert "tabletop-referee.service" in unit["Unit"]["After"].split()
    assert unit["Unit"]["Wants"] == "tabletop-referee.service"
    assert unit["Service"]["ExecStart"] == "/opt/tabletop/bin/tabletop-kiosk"
    assert unit["Service"]["User"] == "pi" and unit["Service"]["Restart"] == "always"
    assert "TABLETOP_URL=http://127.0.0.1:8080" in values("tabletop-kiosk.service", "Environment")
    assert unit["Install"]["WantedBy"] == "graphical.target"
    assert "--kiosk" in (ROOT / "deploy" / "kiosk.sh").read_text()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed (apt-get install systemd)")
def test_systemd_analyze_verify(tmp_path: Path) -> None:
    # verify insists ExecStart exists: point the units at stand-ins for the installed programs.
    prefix = tmp_path / "opt" / "tabletop"
    for program in ("venv/bin/referee", "bin/tabletop-kiosk"):
        path = prefix / program
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
    staged = []
    for unit in sorted(UNITS.glob("*.service")):
        target = tmp_path / unit.name
        target.write_text(unit.read_text().replace("/opt/tabletop", str(prefix)))
        staged.append(str(target))
    out = subprocess.run(["systemd-analyze", "verify", *staged], capture_output=True, text=True, timeout=60)
    problems = [line for line in (out.stdout + out.stderr).splitlines() if "tabletop" in line]
    assert out.returncode == 0 and not problems, out.stdout + out.stderr

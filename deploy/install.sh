#!/usr/bin/env bash
# Tabletop Referee: install on Raspberry Pi OS Bookworm (64-bit), from a git checkout.
#
#   sudo deploy/install.sh [--dry-run] [--root DIR] [--prefix DIR] [--user NAME]
#                          [--desktop-user NAME] [--no-kiosk] [--no-packages]
#
# Installs the OS packages, enables I2C, makes a venv that sees the OS's
# picamera2/libcamera/lgpio/gpiozero/smbus2 (--system-site-packages), installs
# the project with its `pi` extra (only what the OS lacks), writes
# /etc/tabletop/table.toml if absent, makes the journal folder and a service
# user, and installs and enables the systemd units.
# Idempotent: every step checks first and says "ok" when nothing is to be done,
# so a second run changes nothing. --dry-run prints each action, one line each,
# and changes nothing.
#
# --root DIR relocates every file it writes under DIR (staging, tests); users
# and groups are then read from and written to DIR/etc (useradd --prefix) and
# units enabled with `systemctl --root`. OS packages and I2C are always the
# running system's (skip them with --no-packages).
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DRY_RUN=0
ROOT=/
PREFIX=/opt/tabletop
SERVICE_USER=tabletop
DESKTOP_USER=""
KIOSK=1
PACKAGES=1
# The OS's Python: only its dist-packages hold the apt modules the venv must see.
PYTHON="${PYTHON:-/usr/bin/python3}"
GROUPS_WANTED=(gpio i2c video audio)
# The Python modules Raspberry Pi OS provides come from apt, never from pip: the `pi` extra lists
# none of them (pip would build picamera2's python-prctl or lgpio, which needs a compiler).
BASE_PACKAGES=(python3-venv python3-pip python3-picamera2 python3-lgpio python3-gpiozero python3-smbus2
               python3-numpy python3-opencv python3-scipy espeak-ng alsa-utils i2c-tools)
# What the venv must import from the OS (checked after the install).
OS_MODULES=(picamera2 libcamera lgpio gpiozero smbus2)
CHANGED=0

usage() {
    sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

die() {
    echo "install.sh: $*" >&2
    exit 2
}

while (($#)); do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --root) [[ $# -ge 2 ]] || die "--root needs a folder"; ROOT="$2"; shift ;;
        --root=*) ROOT="${1#*=}" ;;
        --prefix) [[ $# -ge 2 ]] || die "--prefix needs a folder"; PREFIX="$2"; shift ;;
        --prefix=*) PREFIX="${1#*=}" ;;
        --user) [[ $# -ge 2 ]] || die "--user needs a name"; SERVICE_USER="$2"; shift ;;
        --user=*) SERVICE_USER="${1#*=}" ;;
        --desktop-user) [[ $# -ge 2 ]] || die "--desktop-user needs a name"; DESKTOP_USER="$2"; shift ;;
        --desktop-user=*) DESKTOP_USER="${1#*=}" ;;
        --no-kiosk) KIOSK=0 ;;
        --no-packages) PACKAGES=0 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option $1 (try --help)" ;;
    esac
    shift
done

[[ "$PREFIX" == /* ]] || die "--prefix must be absolute (a path on the Pi), got $PREFIX"
ROOT="${ROOT%/}"
STAGING=0
[[ -n "$ROOT" ]] && STAGING=1
[[ -f "$SRC/pyproject.toml" && -d "$SRC/deploy/systemd" ]] || die "run me from a checkout: $SRC has no pyproject.toml"

# A path on the target system, under --root.
r() { printf '%s%s' "$ROOT" "$1"; }

say() { printf '%s\n' "$*"; }

# Print an action and, unless --dry-run, do it. Every change goes through here.
act() {
    act_as "$(quote "$@")" "$@"
}

# act_as TEXT CMD...: like act, but shows TEXT instead of the command.
act_as() {
    local text="$1"
    shift
    CHANGED=1
    if ((DRY_RUN)); then
        say "would run: $text"
    else
        say "run: $text"
        "$@"
    fi
}

quote() {  # the arguments as one shell-quoted line
    local out="" a
    for a in "$@"; do out+="$(printf '%q' "$a") "; done
    printf '%s' "${out% }"
}

have() { command -v "$1" >/dev/null 2>&1; }

# ---------------------------------------------------------------- OS packages

pkg_installed() {
    [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" == installed ]]
}

apt_has() {
    apt-cache show --no-all-versions "$1" >/dev/null 2>&1
}

install_packages() {
    if ((!PACKAGES)); then
        say "skip: OS packages (--no-packages)"
        return
    fi
    if ! have dpkg-query || ! have apt-get; then
        say "skip: OS packages (no dpkg/apt: not Raspberry Pi OS)"
        return
    fi
    local wanted=("${BASE_PACKAGES[@]}") missing=() p
    if ((KIOSK)) && ! pkg_installed chromium && ! pkg_installed chromium-browser; then
        missing+=(CHROMIUM)
    fi
    for p in "${wanted[@]}"; do
        if pkg_installed "$p"; then say "ok: package $p installed"; else missing+=("$p"); fi
    done
    if ((${#missing[@]} == 0)); then
        return
    fi
    act apt-get update
    if [[ "${missing[0]}" == CHROMIUM ]]; then
        # Raspberry Pi OS names it chromium since late 2024, chromium-browser before.
        if apt_has chromium || ! apt_has chromium-browser; then missing[0]=chromium; else missing[0]=chromium-browser; fi
    fi
    act env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

enable_i2c() {
    if ((!PACKAGES)); then
        say "skip: I2C (--no-packages)"
        return
    fi
    if ! have raspi-config; then
        say "skip: I2C (no raspi-config: enable dtparam=i2c_arm=on yourself)"
        return
    fi
    # `get_i2c` prints 0 when I2C is on.
    if [[ "$(raspi-config nonint get_i2c 2>/dev/null || true)" == 0 ]]; then
        say "ok: I2C enabled"
    else
        act raspi-config nonint do_i2c 0
    fi
}

# ---------------------------------------------------------------- users

passwd_field() {  # passwd_field USER FIELD -> value from ROOT/etc/passwd
    awk -F: -v u="$1" -v f="$2" '$1 == u { print $f; exit }' "$(r /etc/passwd)" 2>/dev/null || true
}

group_has() {  # group_has GROUP USER -> 0 when USER is listed in GROUP (ROOT/etc/group)
    awk -F: -v g="$1" -v u="$2" '$1 == g { n = split($4, m, ","); for (i = 1; i <= n; i++) if (m[i] == u) found = 1 }
        END { exit !found }' "$(r /etc/group)" 2>/dev/null
}

group_exists() {
    awk -F: -v g="$1" '$1 == g { found = 1 } END { exit !found }' "$(r /etc/group)" 2>/dev/null
}

prefix_opt=()
((STAGING)) && prefix_opt=(--prefix "$ROOT")

make_user() {
    if [[ -n "$(passwd_field "$SERVICE_USER" 1)" ]]; then
        say "ok: user $SERVICE_USER exists"
    else
        act useradd "${prefix_opt[@]}" --system --user-group --home-dir /var/lib/tabletop --no-create-home \
            --shell /usr/sbin/nologin --comment "Tabletop Referee" "$SERVICE_USER"
    fi
    local g
    for g in "${GROUPS_WANTED[@]}"; do
        if ! group_exists "$g"; then
            say "skip: group $g does not exist here (not Raspberry Pi OS?)"
        elif group_has "$g" "$SERVICE_USER"; then
            say "ok: $SERVICE_USER in group $g"
        else
            act usermod "${prefix_opt[@]}" --append --groups "$g" "$SERVICE_USER"
        fi
    done
}

find_desktop_user() {
    if [[ -z "$DESKTOP_USER" && -n "${SUDO_USER:-}" && "${SUDO_USER:-}" != root ]]; then
        DESKTOP_USER="$SUDO_USER"
    fi
    if [[ -z "$DESKTOP_USER" ]]; then
        DESKTOP_USER="$(awk -F: '$3 == 1000 { print $1; exit }' "$(r /etc/passwd)" 2>/dev/null || true)"
    fi
    DESKTOP_USER="${DESKTOP_USER:-pi}"
}

# ---------------------------------------------------------------- files

make_dir() {  # make_dir PATH MODE [OWNER]
    local path target
    path="$(r "$1")"
    if [[ -d "$path" ]]; then
        say "ok: $1 exists"
    else
        act install -d -m "$2" "$path"
    fi
    [[ $# -ge 3 ]] || return 0
    local uid gid
    uid="$(passwd_field "$3" 3)"
    gid="$(passwd_field "$3" 4)"
    if [[ -z "$uid" ]]; then
        ((DRY_RUN)) && say "would run: chown $3:$3 $path" && return 0
        say "skip: chown $1 ($3 not in $(r /etc/passwd))"
        return 0
    fi
    target="$uid:$gid"
    if [[ -d "$path" && "$(stat -c %u:%g "$path")" == "$target" ]]; then
        say "ok: $1 owned by $3"
    else
        act chown "$target" "$path"
    fi
}

# put_file SRC DEST MODE [SED-EXPRESSION...]: install SRC (rewritten by sed) at DEST when it differs.
put_file() {
    local src="$1" dest="$2" mode="$3" tmp args=() e status=1
    shift 3
    for e in "$@"; do args+=(-e "$e"); done
    tmp="$(mktemp)"
    if ((${#args[@]})); then sed "${args[@]}" "$src" >"$tmp"; else cat "$src" >"$tmp"; fi
    if [[ -f "$(r "$dest")" ]] && cmp -s "$tmp" "$(r "$dest")" \
        && [[ "$(stat -c %a "$(r "$dest")")" == "$mode" ]]; then
        say "ok: $dest up to date"
    else
        act_as "install -D -m $mode ${src#"$SRC"/} $(r "$dest")" install -D -m "$mode" "$tmp" "$(r "$dest")"
        status=0
    fi
    rm -f "$tmp"
    return "$status"
}

write_config() {
    if [[ -e "$(r /etc/tabletop/table.toml)" ]]; then
        say "ok: /etc/tabletop/table.toml exists (kept as it is)"
    else
        act_as "install -D -m 644 deploy/table.example.toml $(r /etc/tabletop/table.toml)" \
            install -D -m 644 "$SRC/deploy/table.example.toml" "$(r /etc/tabletop/table.toml)"
    fi
}

# ---------------------------------------------------------------- venv and project

source_stamp() {
    # What is being installed: the commit plus any local changes, else a hash of the sources.
    if have git && git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
        { git -C "$SRC" rev-parse HEAD; git -C "$SRC" diff HEAD -- pyproject.toml referee hardware tabletop calibration; } \
            | sha256sum | cut -d' ' -f1
    else
        find "$SRC/pyproject.toml" "$SRC/referee" "$SRC/hardware" "$SRC/tabletop" "$SRC/calibration" \
            -type f \( -name '*.py' -o -name '*.toml' -o -name '*.npz' \) -print0 2>/dev/null \
            | sort -z | xargs -0 sha256sum | sed "s#$SRC##" | sha256sum | cut -d' ' -f1
    fi
}

install_project() {
    local venv stamp_file want
    venv="$(r "$PREFIX/venv")"
    if [[ -x "$venv/bin/python" ]] && grep -qx 'include-system-site-packages = true' "$venv/pyvenv.cfg" 2>/dev/null; then
        say "ok: venv $PREFIX/venv (with system site packages)"
    else
        if [[ -e "$venv" ]]; then act rm -rf "$venv"; fi
        act "$PYTHON" -m venv --system-site-packages "$venv"
    fi
    stamp_file="$venv/.tabletop-source"
    want="$(source_stamp)"
    if [[ -f "$stamp_file" && "$(cat "$stamp_file")" == "$want" ]]; then
        say "ok: tabletop-referee[pi] installed from this checkout"
    else
        act "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${SRC}[pi]"
        if ((DRY_RUN)); then
            say "would write: $stamp_file"
        else
            printf '%s\n' "$want" >"$stamp_file"
        fi
    fi
}

# The venv sees the OS's modules (--system-site-packages): say so, or say which are missing.
check_os_modules() {
    local venv missing
    venv="$(r "$PREFIX/venv")"
    if ((DRY_RUN || !PACKAGES)) || ! have dpkg-query || [[ ! -x "$venv/bin/python" ]]; then
        return
    fi
    missing="$("$venv/bin/python" -c 'import importlib.util, sys
print(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))' "${OS_MODULES[@]}" 2>&1 || true)"
    if [[ -z "$missing" ]]; then
        say "ok: the venv sees the OS's ${OS_MODULES[*]}"
    else
        say "warning: the venv does not see: $missing (apt install the python3- packages; the venv needs --system-site-packages)"
    fi
}

# ---------------------------------------------------------------- systemd

install_units() {
    local units_changed=0 uid
    put_file "$SRC/deploy/kiosk.sh" "$PREFIX/bin/tabletop-kiosk" 755 || true
    put_file "$SRC/hardware/README.md" "$PREFIX/share/hardware-README.md" 644 || true
    if put_file "$SRC/deploy/systemd/tabletop-referee.service" /etc/systemd/system/tabletop-referee.service 644 \
        "s#/opt/tabletop#$PREFIX#g" "s#^User=tabletop\$#User=$SERVICE_USER#" "s#^Group=tabletop\$#Group=$SERVICE_USER#"; then
        units_changed=1
    fi
    local units=(tabletop-referee.service)
    if ((KIOSK)); then
        uid="$(passwd_field "$DESKTOP_USER" 3)"
        if [[ -z "$uid" ]]; then
            say "note: desktop user $DESKTOP_USER not found; the kiosk assumes uid 1000"
            uid=1000
        fi
        if put_file "$SRC/deploy/systemd/tabletop-kiosk.service" /etc/systemd/system/tabletop-kiosk.service 644 \
            "s#/opt/tabletop#$PREFIX#g" "s#^User=pi\$#User=$DESKTOP_USER#" "s#/run/user/1000#/run/user/$uid#"; then
            units_changed=1
        fi
        units+=(tabletop-kiosk.service)
    fi
    if ! have systemctl; then
        say "skip: enabling units (no systemctl)"
        return
    fi
    local sysroot=()
    ((STAGING)) && sysroot=(--root "$ROOT")
    if ((units_changed && !STAGING)); then
        act systemctl daemon-reload
    fi
    local u
    for u in "${units[@]}"; do
        if [[ "$(systemctl "${sysroot[@]}" is-enabled "$u" 2>/dev/null || true)" == enabled ]]; then
            say "ok: $u enabled"
        else
            act systemctl "${sysroot[@]}" enable "$u"
        fi
    done
}

main() {
    ((DRY_RUN)) && say "dry run: nothing will be changed (source $SRC, root ${ROOT:-/}, prefix $PREFIX)"
    install_packages
    enable_i2c
    make_user
    find_desktop_user
    make_dir /etc/tabletop 755
    write_config
    make_dir /var/lib/tabletop 750 "$SERVICE_USER"
    make_dir /var/lib/tabletop/profiles 750 "$SERVICE_USER"
    install_project
    check_os_modules
    install_units
    if ((CHANGED && !STAGING && !DRY_RUN)) && have systemctl; then
        act systemctl restart tabletop-referee.service
    fi
    if ((DRY_RUN)); then
        say "dry run done: nothing changed"
    elif ((CHANGED)); then
        say "done. Check the table with: $PREFIX/venv/bin/referee doctor"
    else
        say "nothing to do: already installed"
    fi
}

main

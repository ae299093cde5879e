#!/usr/bin/env bash
# Tabletop Referee kiosk launcher (installed as PREFIX/bin/tabletop-kiosk):
# waits for the desktop's display and for the referee's dashboard, then runs
# Chromium full screen on it. Started by tabletop-kiosk.service as the desktop user.
set -euo pipefail

url="${TABLETOP_URL:-${1:-http://127.0.0.1:8080}}"
wait_s="${TABLETOP_KIOSK_WAIT_S:-180}"
runtime="${XDG_RUNTIME_DIR:-/run/user/$(id -u)}"
export XDG_RUNTIME_DIR="$runtime"

browser=""
for name in chromium chromium-browser; do
    if command -v "$name" >/dev/null 2>&1; then browser="$name"; break; fi
done
if [[ -z "$browser" ]]; then
    echo "tabletop-kiosk: neither chromium nor chromium-browser is installed" >&2
    exit 1
fi

# The display: a Wayland socket (Bookworm's wayfire/labwc) or X11 on :0.
platform=()
for ((i = 0; i < wait_s; i++)); do
    socket="$(find "$runtime" -maxdepth 1 -name 'wayland-[0-9]' -type s 2>/dev/null | sort | head -n 1 || true)"
    if [[ -n "$socket" ]]; then
        export WAYLAND_DISPLAY="${socket##*/}"
        platform=(--ozone-platform=wayland)
        break
    fi
    if [[ -S /tmp/.X11-unix/X0 ]]; then
        export DISPLAY="${DISPLAY:-:0}"
        break
    fi
    sleep 1
done

# The dashboard: wait until the referee listens (a plain TCP connect).
hostport="${url#*://}"
hostport="${hostport%%/*}"
host="${hostport%:*}"
port="${hostport##*:}"
[[ "$port" == "$hostport" ]] && port=80
for ((i = 0; i < wait_s; i++)); do
    if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then break; fi
    sleep 1
done

exec "$browser" "${platform[@]}" --kiosk --noerrdialogs --disable-infobars --no-first-run \
    --disable-session-crashed-bubble --disable-features=Translate --check-for-update-interval=31536000 \
    --password-store=basic --user-data-dir="$runtime/tabletop-kiosk" "$url"

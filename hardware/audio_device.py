"""Which ALSA device the voice plays to, so that a system service is heard.

On Raspberry Pi OS Bookworm the ALSA `default` PCM is PipeWire's plugin
(pipewire-alsa's `/usr/share/alsa/alsa.conf.d/99-pipewire-default.conf`), and
PipeWire runs per user, reached through `$XDG_RUNTIME_DIR/pipewire-0`. The
referee's service user has no session, so `aplay -D default` fails there with
"audio open error: Host is down" and the table is silent. So `[audio] device =
"default"` means: the user's sound server when this process can reach one,
otherwise a sound card directly, as `plughw:CARD=<id>,DEV=<n>` (plughw converts
espeak's 22 050 Hz mono to whatever the card takes; HDMI needs
`sysdefault:CARD=<id>`, see `Card.pcm`). Any other device is used as configured.

The card: the one `ALSA_CARD` names (alsa-lib's own variable, also honoured by
its `default`), else a card added for the table (USB speaker, I2S amplifier),
else the 3.5 mm headphone jack, else HDMI; ties go to the lower card number.
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

Run = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]

#: Preference of card kinds, best first: a card someone added for the table, the jack, a monitor.
KIND_ORDER = ("added", "headphones", "hdmi")
#: Environment variables that point a client at a user's sound server (a system service has none of them).
SERVER_VARIABLES = ("XDG_RUNTIME_DIR", "PIPEWIRE_RUNTIME_DIR", "PIPEWIRE_REMOTE", "PULSE_SERVER",
                    "PULSE_RUNTIME_PATH", "USERPROFILE")


@dataclass(frozen=True)
class Card:
    """A playback sound card: number, ALSA id (`CARD=`), long name, and its first playback device."""

    index: int
    id: str
    name: str
    device: int = 0

    @property
    def kind(self) -> str:
        """"hdmi", "headphones" (the Pi's own analog output) or "added" (USB, I2S HAT, anything else)."""
        text = f"{self.id} {self.name}".lower()
        if "hdmi" in text:
            return "hdmi"
        if "headphones" in text or text.startswith("alsa bcm2835"):
            return "headphones"
        return "added"

    @property
    def pcm(self) -> str:
        """The ALSA name that plays to this card with format and rate conversion.

        plughw for most; HDMI (vc4-hdmi) takes only IEC958 subframes, which plughw cannot make, so
        sysdefault, through alsa-lib's cards/vc4-hdmi.conf (the iec958 plugin).
        """
        if self.kind == "hdmi":
            return f"sysdefault:CARD={self.id}"
        return f"plughw:CARD={self.id},DEV={self.device}"


@dataclass(frozen=True)
class Choice:
    """The device to play to, why, and the cards that were seen."""

    device: str
    reason: str
    cards: tuple[Card, ...] = field(default=())


def _run(argv: Sequence[str]) -> "subprocess.CompletedProcess[str]":
    """Run a listing command briefly in the C locale (its output is parsed)."""
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=10, check=False,
                          env={**os.environ, "LC_ALL": "C"})


def parse_pcm_list(text: str) -> list[Card]:
    """Cards from `aplay -L`: each `plughw:CARD=<id>,DEV=<n>` with the description line under it."""
    cards: dict[str, Card] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.fullmatch(r"plughw:CARD=([^,\s]+),DEV=(\d+)", line.strip()) if not line[:1].isspace() else None
        if not m or m.group(1) in cards:
            continue
        desc = lines[i + 1].strip() if i + 1 < len(lines) and lines[i + 1][:1].isspace() else m.group(1)
        cards[m.group(1)] = Card(len(cards), m.group(1), desc.split(",")[0].strip(), int(m.group(2)))
    return list(cards.values())


def parse_proc_cards(text: str) -> list[Card]:
    """Cards from /proc/asound/cards (` 0 [Headphones     ]: bcm2835_headphonbcm2835 Headphones - bcm2835 Headphones`)."""
    found = []
    for line in text.splitlines():
        m = re.match(r"\s*(\d+)\s+\[(\S+)\s*\]:\s*.*?\s+-\s+(.*)$", line)
        if m:
            found.append(Card(int(m.group(1)), m.group(2), m.group(3).strip()))
    return found


def list_cards(run: Run = _run, proc: Path = Path("/proc")) -> list[Card]:
    """Playback cards from `aplay -L`, else (no aplay, or it failed) from /proc/asound/cards."""
    try:
        out = run(["aplay", "-L"])
        if out.returncode == 0:
            return parse_pcm_list(out.stdout)
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        return parse_proc_cards((proc / "asound" / "cards").read_text())
    except OSError:
        return []


def _listening(path: Path) -> bool:
    """True when a Unix socket at `path` accepts a connection (a stale socket file refuses)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        try:
            sock.connect(str(path))
        except OSError:
            return False
    return True


def user_server(env: Mapping[str, str]) -> str | None:
    """The user sound server this process can reach ("PipeWire at /run/user/1000/pipewire-0"), or None.

    Looks where the clients look: PipeWire's $PIPEWIRE_RUNTIME_DIR, $XDG_RUNTIME_DIR or $USERPROFILE with
    $PIPEWIRE_REMOTE (default pipewire-0); PulseAudio's $PULSE_SERVER, $PULSE_RUNTIME_PATH/native or
    $XDG_RUNTIME_DIR/pulse/native.
    """
    remote = env.get("PIPEWIRE_REMOTE") or "pipewire-0"
    runtime = next((env[k] for k in ("PIPEWIRE_RUNTIME_DIR", "XDG_RUNTIME_DIR", "USERPROFILE") if env.get(k)), None)
    if runtime or os.path.isabs(remote):
        path = Path(runtime or "/", remote)
        if _listening(path):
            return f"PipeWire at {path}"
    pulse = env.get("PULSE_SERVER", "")
    if pulse and not pulse.startswith(("unix:", "/")):
        return f"PulseAudio at {pulse}"            # a network server someone set on purpose
    candidates = [pulse.removeprefix("unix:")] if pulse else []
    if env.get("PULSE_RUNTIME_PATH"):
        candidates.append(str(Path(env["PULSE_RUNTIME_PATH"], "native")))
    if env.get("XDG_RUNTIME_DIR"):
        candidates.append(str(Path(env["XDG_RUNTIME_DIR"], "pulse", "native")))
    for candidate in candidates:
        if _listening(Path(candidate)):
            return f"PulseAudio at {candidate}"
    return None


def pick_card(cards: Sequence[Card], alsa_card: str | None = None) -> Card | None:
    """The card to play to: ALSA_CARD's if it names one, else by KIND_ORDER, then card number."""
    if alsa_card:
        named = [c for c in cards if alsa_card in (c.id, str(c.index))]
        if named:
            return named[0]
    ranked = sorted(cards, key=lambda c: (KIND_ORDER.index(c.kind), c.index))
    return ranked[0] if ranked else None


def choose(configured: str, cards: Sequence[Card], server: str | None, alsa_card: str | None = None) -> Choice:
    """The device for `configured`: as configured, unless it is "default" and no user server is reachable."""
    seen = tuple(cards)
    if configured != "default":
        return Choice(configured, "as configured in [audio] device", seen)
    if server:
        return Choice("default", f"the user's sound server ({server})", seen)
    card = pick_card(cards, alsa_card)
    if card is None:
        return Choice("default", "no user sound server and no sound card found", seen)
    why = "ALSA_CARD" if alsa_card and alsa_card in (card.id, str(card.index)) else f"{card.kind} card preferred"
    return Choice(card.pcm, f"no user sound server reachable: card {card.id} ({card.name}; {why})", seen)


def playable_device(configured: str, env: Mapping[str, str] | None = None, run: Run = _run,
                    proc: Path = Path("/proc")) -> Choice:
    """What `configured` should play to for this process (its environment decides the user server)."""
    env = os.environ if env is None else env
    if configured != "default":
        return Choice(configured, "as configured in [audio] device")
    server = user_server(env)
    return choose(configured, [] if server else list_cards(run, proc), server, env.get("ALSA_CARD"))

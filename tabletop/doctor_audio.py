"""`referee doctor`'s sound checks: the voice is proved by playing 0.1 s of silence through the
ALSA device the referee's service would use, and espeak-ng is looked for.

A system service has no user sound server, so device "default" is judged as the service sees it
(`hardware.audio_device`); aplay's own one-line reason is the detail of a FAIL.
"""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence

from hardware.audio_device import Card, choose, list_cards, user_server
from hardware.sound_files import write_silence
from referee.config import TableConfig
from tabletop.doctor_report import FAIL, OK, WARN, Check

#: Seconds of silence played to prove the audio path (long enough to open and drain the device).
SILENCE_S = 0.1


class AudioProbes(Protocol):
    """The slice of `tabletop.doctor.Probes` these checks read."""

    @property
    def run(self) -> Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]: ...

    @property
    def which(self) -> Callable[[str], str | None]: ...

    @property
    def proc(self) -> Path: ...

    @property
    def env(self) -> Mapping[str, str]: ...


def _last_line(text: str) -> str:
    """aplay's own last error line (`aplay: main:850: ...`; alsa-lib's lines come before it, a list of
    formats after it), else the last non-empty line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    own = [line for line in lines if line.startswith("aplay:")]
    return own[-1] if own else (lines[-1] if lines else "")


def _audio_fix(device: str, reason: str, cards: Sequence[Card]) -> str:
    """How to fix a device that did not play, from what aplay said."""
    listed = ", ".join(c.pcm for c in cards)
    if "Sample format non available" in reason:
        hdmi = [f"sysdefault:CARD={c.id}" for c in cards if c.kind == "hdmi"]
        return (f"HDMI takes only IEC958 data, which plughw cannot make: set [audio] device to "
                f"{' or '.join(hdmi) or 'sysdefault:CARD=<card>'} (or \"default\")")
    if "busy" in reason:
        return ("another program holds the card (a desktop user's PipeWire holds it while playing): "
                "stop it, or give the referee its own card (USB speaker) and set [audio] device")
    if "Host is down" in reason or "Connection refused" in reason:
        return (f'the service user has no sound server: set [audio] device = "default" (the referee then '
                f"plays to a card directly) or to one of: {listed}")
    if device.startswith(("hw:", "plughw:", "sysdefault:")) or "No such" in reason:
        return (f"plug in the speaker (or fix the card name): set [audio] device to one of: {listed}, "
                'or "default" to let the referee choose; `aplay -L` lists them all')
    return "check `aplay -L` and the audio group of the service user (deploy/install.sh adds it)"


def check_audio(config: TableConfig, probes: AudioProbes) -> Check:
    """Play 0.1 s of silence through the device the service would use: proof the rulings can be heard.

    A system service has no user sound server, so device "default" is judged as the service sees it.
    """
    audio = config.audio
    needed = audio.backend == "espeak"
    has_aplay = probes.which("aplay") is not None
    cards = list_cards(probes.run if has_aplay else _no_aplay, probes.proc)
    if not cards:
        return Check("audio", FAIL if needed else WARN, "no sound card found",
                     "plug in the USB speaker or amplifier; sudo apt install alsa-utils; `aplay -l`")
    names = ", ".join(c.id for c in cards)
    if audio.backend != "espeak":
        verdict, note = (WARN, "rulings are not spoken") if audio.backend == "silent" else (OK, "not played")
        return Check("audio", verdict, f"cards {names}, but [audio] backend is {audio.backend}: {note}",
                     'set [audio] backend = "espeak"')
    if not has_aplay:
        return Check("audio", FAIL, f"aplay not found (cards {names})", "sudo apt install alsa-utils")
    choice = choose(audio.device, cards, None, probes.env.get("ALSA_CARD"))
    try:
        with tempfile.TemporaryDirectory(prefix="referee-doctor-") as tmp:
            silence = write_silence(Path(tmp) / "silence.wav", SILENCE_S)
            out = probes.run(["aplay", "-q", "-D", choice.device, str(silence)])
    except (OSError, subprocess.SubprocessError) as exc:
        return Check("audio", FAIL, f"{choice.device}: aplay did not run ({type(exc).__name__}: {exc})",
                     "sudo apt install alsa-utils")
    if out.returncode != 0:
        reason = _last_line(out.stderr) or _last_line(out.stdout) or f"aplay exited with {out.returncode}"
        return Check("audio", FAIL, f"{choice.device}: {reason} (cards {names})",
                     _audio_fix(choice.device, reason, cards))
    server = user_server(probes.env) if audio.device == "default" else None
    also = f"; this login also reaches {server}, the service does not" if server else ""
    return Check("audio", OK, f"{choice.device}: played {SILENCE_S:g} s of silence ({choice.reason}){also}")


def _no_aplay(argv: Sequence[str]) -> "subprocess.CompletedProcess[str]":
    """Stands in for a missing aplay, so the cards are read from /proc/asound/cards."""
    raise FileNotFoundError(argv[0])


def check_espeak(config: TableConfig, probes: AudioProbes) -> Check:
    """espeak-ng, the voice of the espeak backend."""
    path = probes.which("espeak-ng")
    if path:
        return Check("espeak", OK, f"espeak-ng at {path}")
    needed = config.audio.backend == "espeak"
    return Check("espeak", FAIL if needed else WARN, "espeak-ng not found", "sudo apt install espeak-ng")

"""The sounds the voice plays that are not speech: chimes, per-kind tones and silence, as WAV files,
and the espeak-ng command line that renders speech to one.

All are 16-bit mono at espeak-ng's own rate, so every file plays alike through one `aplay` device.
"""
from __future__ import annotations

import math
import wave
from array import array
from pathlib import Path
from typing import Sequence

SAMPLE_RATE = 22050                  # espeak-ng's own rate, so every file plays alike

#: Chime name (the utterance's text) -> notes (Hz, seconds; 0 Hz is a rest).
CHIMES: dict[str, tuple[tuple[float, float], ...]] = {
    "ding": ((1320.0, 0.12),),
    "card": ((880.0, 0.06),),
    "win": ((660.0, 0.09), (880.0, 0.09), (1320.0, 0.18)),
    "false": ((330.0, 0.12), (247.0, 0.22)),
    "alert": ((880.0, 0.15), (0.0, 0.05), (880.0, 0.15)),
    "start": ((523.0, 0.1), (659.0, 0.1), (784.0, 0.15)),
}
#: What FileAnnouncer writes when it cannot speak: one short tone per kind.
KIND_TONES: dict[str, tuple[tuple[float, float], ...]] = {
    "ruling": ((660.0, 0.2),), "count": ((990.0, 0.08),), "alert": ((440.0, 0.15), (0.0, 0.05), (440.0, 0.15)),
}


def write_tone(path: Path, notes: Sequence[tuple[float, float]], volume: int = 80) -> Path:
    """Write notes as a 16-bit mono WAV at SAMPLE_RATE, with 5 ms fades so nothing clicks."""
    peak = 32767 * max(0, min(volume, 100)) / 100 * 0.6
    fade = int(SAMPLE_RATE * 0.005)
    samples = array("h")
    for hz, seconds in notes:
        n = max(1, int(SAMPLE_RATE * seconds))
        for i in range(n):
            env = min(1.0, i / fade, (n - 1 - i) / fade) if fade else 1.0
            samples.append(int(peak * env * math.sin(2 * math.pi * hz * i / SAMPLE_RATE)) if hz else 0)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(SAMPLE_RATE)
        out.writeframes(samples.tobytes())
    return path


def write_silence(path: Path, seconds: float = 0.1) -> Path:
    """A WAV of silence: proves a playback device opens and plays without anyone hearing it."""
    return write_tone(path, ((0.0, seconds),))


def chime_notes(name: str) -> tuple[tuple[float, float], ...]:
    """The notes of a named chime ("ding" for a name it does not know)."""
    return CHIMES.get(name.strip().lower(), CHIMES["ding"])


def speak_argv(speak_cmd: str, voice: str, volume: int, path: Path, text: str) -> list[str]:
    """espeak-ng -v VOICE -a AMP -w FILE TEXT; volume 0-100 maps onto espeak's amplitude 0-200."""
    if text.startswith("-"):
        text = " " + text                      # never read as an option
    return [speak_cmd, "-v", voice, "-a", str(volume * 2), "-w", str(path), text]

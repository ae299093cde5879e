"""Audio calibration: play a test phrase through the table's voice, set the volume.

Uses the announcers in `hardware/voice.py` (espeak-ng + aplay on the table,
WAV files in tests). Interactively the person answers louder / softer / ok
until it is right; non-interactively the given volume is played once and kept.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from referee.table.ports import Utterance

from .ui import Prompter

PHRASE = "Slap! Seat one wins the pile. Queen of Hearts."
STEP = 10


@dataclass
class AudioResult:
    volume: int
    plays: int
    confirmed: bool


def calibrate_audio(make: Callable[[int], Any], ui: Prompter, *, volume: int = 80,
                    phrase: str = PHRASE, max_rounds: int = 12) -> AudioResult:
    """`make(volume)` builds an announcer at that volume (voice announcers fix it at construction)."""
    plays = 0
    confirmed = False
    for _ in range(max_rounds):
        announcer = make(volume)
        try:
            announcer.say(Utterance("start", "chime"))
            announcer.say(Utterance(phrase, "ruling"))
            flush = getattr(announcer, "flush", None)
            if flush:
                flush(30.0)
        finally:
            announcer.close()
        plays += 1
        ui.say(f"played the test phrase at volume {volume}")
        if not ui.interactive:
            break
        answer = ui.ask("Could everyone at the table hear it clearly? [ok / + louder / - softer]", "ok").lower()
        if answer in ("+", "louder", "l"):
            volume = min(100, volume + STEP)
        elif answer in ("-", "softer", "s"):
            volume = max(0, volume - STEP)
        else:
            confirmed = True
            break
    return AudioResult(volume, plays, confirmed)

"""`referee calibrate audio`: play a test phrase through the table's voice and set the volume."""
from __future__ import annotations

import argparse
from typing import Any

from .audio_cal import calibrate_audio
from .profile import AudioProfile
from .steps import open_profile, prompter, store, table_config


def run(args: argparse.Namespace) -> int:
    from hardware import voice

    ui = prompter(args)
    profile, path = open_profile(args)
    audio = table_config(args).audio
    backend = args.backend or audio.backend
    folder = args.dir or audio.dir
    start = args.volume if args.volume is not None else (profile.audio.volume if profile.audio else audio.volume)

    def make(volume: int) -> Any:
        if backend == "espeak":
            return voice.EspeakAnnouncer(device=audio.device, voice=audio.voice, volume=volume)
        if backend == "files":
            if not folder:
                raise SystemExit("referee calibrate audio: the files backend needs --dir")
            return voice.FileAnnouncer(folder, voice=audio.voice, volume=volume)
        return voice.SilentAnnouncer()

    ui.step(1, 1, f"audio: {backend}, starting at volume {start}")
    try:
        result = calibrate_audio(make, ui, volume=start)
    except voice.AudioUnavailable as exc:
        ui.say(f"audio unavailable: {exc}")
        return 1
    section = AudioProfile(backend=backend, device=audio.device, voice=audio.voice, volume=result.volume,
                           confirmed=result.confirmed)
    store(args, profile, path, ui, audio=section)
    return 0

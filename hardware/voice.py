"""Spoken rulings and chimes: the `Announcer` port, spoken through espeak-ng and ALSA,
written to WAV files (tests, headless runs), or silent.

The queue, its worker thread and the cut rule live in `hardware.voice_queue`; the
tones in `hardware.sound_files`; which ALSA device a service is heard on in
`hardware.audio_device`. This module keeps the announcers and re-exports the rest.
"""
from __future__ import annotations

import json
import logging
import shutil
import tempfile
from pathlib import Path

from referee.table.ports import Utterance

from .audio_device import playable_device
from .sound_files import CHIMES, KIND_TONES, SAMPLE_RATE, chime_notes, speak_argv, write_silence, write_tone
from .voice_queue import (CUTTING_KINDS, KINDS, AnnouncerClosed, AudioUnavailable, Playing, QueueAnnouncer,
                          RenderError, Runner, SubprocessRunner, VoiceConfigError, VoiceError, check_volume)

__all__ = ["CHIMES", "CUTTING_KINDS", "INSTALL_HINT", "KINDS", "KIND_TONES", "SAMPLE_RATE", "AnnouncerClosed",
           "AudioUnavailable", "EspeakAnnouncer", "FileAnnouncer", "Playing", "RenderError", "Runner",
           "SilentAnnouncer", "SubprocessRunner", "VoiceConfigError", "VoiceError", "chime_notes", "speak_argv",
           "write_silence", "write_tone"]

log = logging.getLogger(__name__)

INSTALL_HINT = "apt install espeak-ng alsa-utils"


class EspeakAnnouncer(QueueAnnouncer):
    """Speaks through espeak-ng (rendered to a WAV) and plays it with `aplay -q -D DEVICE`.

    Chimes are tones made here and cached; `volume` is 0-100 for both. With the real
    programs (no `runner`), device "default" becomes one this process is heard on
    (`hardware.audio_device`: a system service has no user sound server, so a card
    directly); `device_reason` says why. A given `runner` stands in for the programs,
    so the device is used as given.
    """

    def __init__(self, device: str = "default", voice: str = "en", volume: int = 80, *,
                 speak_cmd: str = "espeak-ng", play_cmd: str = "aplay", runner: Runner | None = None,
                 drop_counts: bool = True) -> None:
        super().__init__(drop_counts=drop_counts)
        self.voice, self.volume = voice, check_volume(volume)
        self.device, self.device_reason = device, "as given (a runner stands in for the programs)"
        self.speak_cmd, self.play_cmd = speak_cmd, play_cmd
        if runner is None:
            missing = [cmd for cmd in (speak_cmd, play_cmd) if shutil.which(cmd) is None]
            if missing:
                raise AudioUnavailable(f"{' and '.join(missing)} not found: {INSTALL_HINT}"
                                       " (or set [audio] backend = \"silent\")")
            runner = SubprocessRunner()
            choice = playable_device(device)
            self.device, self.device_reason = choice.device, choice.reason
            log.info("voice: [audio] device %r plays to %s: %s", device, choice.device, choice.reason)
        self._runner = runner
        self._dir = Path(tempfile.mkdtemp(prefix="referee-voice-"))
        self._chimes: dict[str, Path] = {}
        self._n = 0
        self._start()
    def _describe(self) -> str:
        return f"device={self.device!r} voice={self.voice!r} "

    def _deliver(self, utterance: Utterance) -> bool:
        if utterance.kind == "chime":
            return self._play(self._runner, self._play_argv(self._chime(utterance.text)))
        if not utterance.text.strip():
            return True
        self._n += 1
        path = self._dir / f"say-{self._n:04d}.wav"
        try:
            self._runner.run(speak_argv(self.speak_cmd, self.voice, self.volume, path, utterance.text))
            return self._play(self._runner, self._play_argv(path))
        finally:
            path.unlink(missing_ok=True)

    def _play_argv(self, path: Path) -> list[str]:
        return [self.play_cmd, "-q", "-D", self.device, str(path)]

    def _chime(self, name: str) -> Path:
        key = name.strip().lower() if name.strip().lower() in CHIMES else "ding"
        if key not in self._chimes:
            self._chimes[key] = write_tone(self._dir / f"chime-{key}.wav", CHIMES[key], self.volume)
        return self._chimes[key]

    def _cleanup(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)


class FileAnnouncer(QueueAnnouncer):
    """Writes each utterance as a numbered WAV (`0001-ruling.wav`) plus a line of
    `utterances.jsonl` (file, kind, text, t_ns, rendered), instead of playing it.

    Speech is rendered with espeak-ng when it is installed (or a `runner` is
    given), otherwise as a short tone ("rendered": "tone"); chimes are tones.
    """

    def __init__(self, folder: str | Path, *, voice: str = "en", volume: int = 80,
                 speak_cmd: str = "espeak-ng", runner: Runner | None = None, drop_counts: bool = True) -> None:
        super().__init__(drop_counts=drop_counts)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.voice, self.volume, self.speak_cmd = voice, check_volume(volume), speak_cmd
        if runner is None and shutil.which(speak_cmd) is not None:
            runner = SubprocessRunner()
        self._runner = runner
        self.journal = self.folder / "utterances.jsonl"
        self._n = 0                             # numbering goes on after an earlier run's files
        if self.journal.exists():
            with self.journal.open(encoding="utf-8") as lines:
                self._n = sum(1 for _ in lines)
        self._start()

    @property
    def speaks(self) -> bool:
        """True if speech is rendered with espeak-ng, False if as tones."""
        return self._runner is not None

    def _describe(self) -> str:
        return f"{str(self.folder)!r} {'espeak' if self.speaks else 'tones'}, "

    def _deliver(self, utterance: Utterance) -> bool:
        """Files are written whole: a count already being written is not cut."""
        self._n += 1
        name = f"{self._n:04d}-{utterance.kind}.wav"
        path = self.folder / name
        rendered = self._render(utterance, path)
        line = {"file": name, "kind": utterance.kind, "text": utterance.text,
                "t_ns": utterance.t_ns, "rendered": rendered}
        with self.journal.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
        return True

    def _render(self, utterance: Utterance, path: Path) -> str:
        if utterance.kind == "chime":
            write_tone(path, chime_notes(utterance.text), self.volume)
            return "chime"
        if self._runner is not None and utterance.text.strip():
            try:
                self._runner.run(speak_argv(self.speak_cmd, self.voice, self.volume, path, utterance.text))
                return "espeak"
            except Exception as exc:            # still leave a file, so the sequence stays whole
                log.warning("FileAnnouncer: espeak-ng failed for %r: %s", utterance.text, exc)
                with self._cond:
                    self.errors.append((utterance, f"{type(exc).__name__}: {exc}"))
        write_tone(path, KIND_TONES[utterance.kind], self.volume)
        return "tone"


class SilentAnnouncer:
    """Says nothing and keeps nothing (no speaker wired, or audio unavailable)."""

    def say(self, utterance: Utterance) -> None:
        return None

    def close(self) -> None:
        return None

    def __enter__(self) -> "SilentAnnouncer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<SilentAnnouncer>"

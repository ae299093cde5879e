"""Spoken rulings and chimes: the `Announcer` port, spoken through espeak-ng and ALSA,
written to WAV files (tests, headless runs), or silent.

One worker thread per announcer plays utterances one at a time from a queue, so
`say()` never blocks the referee and nothing overlaps. A newer ruling or alert
drops queued counts and cuts a count that is playing (a stale "Three!" is
worse than none); rulings and alerts themselves are never dropped or cut.
"""
from __future__ import annotations

import json
import logging
import math
import shutil
import subprocess
import tempfile
import threading
import wave
from array import array
from collections import deque
from pathlib import Path
from typing import Protocol, Self, Sequence

from referee.ports import Utterance

log = logging.getLogger(__name__)

KINDS: frozenset[str] = frozenset({"ruling", "count", "chime", "alert"})
CUTTING_KINDS: frozenset[str] = frozenset({"ruling", "alert"})   # these drop and cut counts
SAMPLE_RATE = 22050                  # espeak-ng's own rate, so every file plays alike
INSTALL_HINT = "apt install espeak-ng alsa-utils"

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


class VoiceError(Exception):
    """Base class of every voice error."""


class AudioUnavailable(VoiceError, FileNotFoundError):
    """espeak-ng or aplay is not installed (the composition root falls back to silent)."""


class AnnouncerClosed(VoiceError, RuntimeError):
    """say() after close()."""


class VoiceConfigError(VoiceError, ValueError):
    """A volume, kind or command that cannot work."""


class RenderError(VoiceError, OSError):
    """espeak-ng failed to render an utterance."""


class Playing(Protocol):
    """A player process: `subprocess.Popen` fits."""

    def wait(self) -> int | None: ...

    def terminate(self) -> None: ...


class Runner(Protocol):
    """Runs the two commands: `run` renders (to completion), `start` plays (stoppable)."""

    def run(self, argv: Sequence[str]) -> None: ...

    def start(self, argv: Sequence[str]) -> Playing: ...


class SubprocessRunner:
    """The real runner: subprocess, stderr kept for the error message."""

    def __init__(self, render_timeout_s: float = 30.0) -> None:
        self.render_timeout_s = render_timeout_s

    def run(self, argv: Sequence[str]) -> None:
        try:
            subprocess.run(list(argv), check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=self.render_timeout_s)
        except subprocess.CalledProcessError as exc:
            raise RenderError(f"{argv[0]} failed ({exc.returncode}): {exc.stderr.decode(errors='replace').strip()}") from exc
        except subprocess.TimeoutExpired as exc:
            raise RenderError(f"{argv[0]} took longer than {self.render_timeout_s} s") from exc

    def start(self, argv: Sequence[str]) -> Playing:
        return subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)


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


def chime_notes(name: str) -> tuple[tuple[float, float], ...]:
    """The notes of a named chime ("ding" for a name it does not know)."""
    return CHIMES.get(name.strip().lower(), CHIMES["ding"])


def speak_argv(speak_cmd: str, voice: str, volume: int, path: Path, text: str) -> list[str]:
    """espeak-ng -v VOICE -a AMP -w FILE TEXT; volume 0-100 maps onto espeak's amplitude 0-200."""
    if text.startswith("-"):
        text = " " + text                      # never read as an option
    return [speak_cmd, "-v", voice, "-a", str(volume * 2), "-w", str(path), text]


def _check_volume(volume: int) -> int:
    if isinstance(volume, bool) or not isinstance(volume, int) or not 0 <= volume <= 100:
        raise VoiceConfigError(f"volume must be an integer 0-100, not {volume!r}")
    return volume


class _QueueAnnouncer:
    """The queue, the worker thread and the cut rule; subclasses say how to deliver one utterance."""

    def __init__(self, *, drop_counts: bool = True) -> None:
        self._cond = threading.Condition()
        self._queue: deque[Utterance] = deque()
        self._current: Utterance | None = None
        self._player: Playing | None = None
        self._cut = False
        self._closing = False
        self._closed = False
        self._drop_counts = drop_counts
        self.delivered = 0
        self.dropped: list[Utterance] = []              # stale counts dropped from the queue or cut
        self.errors: list[tuple[Utterance, str]] = []   # what failed, and why (the worker goes on)
        self.unspoken: list[Utterance] = []             # left in the queue when close() timed out
        self._thread = threading.Thread(target=self._work, name=type(self).__name__, daemon=True)

    def say(self, utterance: Utterance) -> None:
        """Queue an utterance; returns at once. A ruling or alert drops queued counts and cuts a playing one."""
        if utterance.kind not in KINDS:
            raise VoiceConfigError(f"unknown utterance kind {utterance.kind!r}; known: {', '.join(sorted(KINDS))}")
        with self._cond:
            if self._closing:
                raise AnnouncerClosed(f"{type(self).__name__}.say() after close()")
            if self._drop_counts and utterance.kind in CUTTING_KINDS | {"count"}:
                stale = [q for q in self._queue if q.kind == "count"]
                if stale:
                    self._queue = deque(q for q in self._queue if q.kind != "count")
                    self.dropped.extend(stale)
                if utterance.kind in CUTTING_KINDS and self._current is not None and self._current.kind == "count":
                    self._cut_current()
            self._queue.append(utterance)
            self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until everything queued has been delivered; False if `timeout` passed first."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and self._current is None, timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Deliver what is queued (up to `timeout` seconds), then stop; what is left goes to `unspoken`."""
        with self._cond:
            if self._closed:
                return
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout)
        if self._thread.is_alive():
            with self._cond:
                self.unspoken.extend(self._queue)
                self._queue.clear()
                self._cut_current()
            self._thread.join(1.0)
        with self._cond:
            self._closed = True
        if self.unspoken:
            log.warning("%s closed with %d utterances unspoken", type(self).__name__, len(self.unspoken))
        self._cleanup()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _describe(self) -> str:
        return ""

    def __repr__(self) -> str:
        name = type(self).__name__
        with self._cond:
            if self._closed:
                return f"<{name} closed>"
            now = f"{self._current.kind}: {self._current.text[:30]!r}" if self._current else "idle"
            return f"<{name} {self._describe()}{now}, {len(self._queue)} queued, {self.delivered} delivered>"

    # ---- for subclasses --------------------------------------------------------
    def _start(self) -> None:
        self._thread.start()

    def _deliver(self, utterance: Utterance) -> bool:
        """Deliver one utterance (worker thread); False if it was cut."""
        raise NotImplementedError

    def _cleanup(self) -> None:
        return None

    def _play(self, runner: Runner, argv: Sequence[str]) -> bool:
        """Start the player unless the utterance was cut meanwhile; wait for it. False if cut."""
        with self._cond:
            if self._cut:
                return False
            player = self._player = runner.start(argv)
        code = player.wait()
        with self._cond:
            self._player = None
            if self._cut:
                return False
        if code:
            raise VoiceError(f"{argv[0]} exited with {code}: {' '.join(argv)} (`aplay -L` lists devices)")
        return True

    # ---- internals ------------------------------------------------------------
    def _cut_current(self) -> None:
        """Called with the lock held: stop what is being delivered now."""
        if self._current is None:
            return
        self._cut = True
        if self._player is not None:
            try:
                self._player.terminate()
            except OSError:                    # it had just finished
                pass

    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue or self._closing)
                if not self._queue:
                    return
                utterance = self._current = self._queue.popleft()
                self._cut = False
            delivered = False
            try:
                delivered = self._deliver(utterance)
            except Exception as exc:           # one bad utterance must not silence the table
                log.warning("%s: could not deliver %r: %s", type(self).__name__, utterance.text, exc)
                with self._cond:
                    self.errors.append((utterance, f"{type(exc).__name__}: {exc}"))
            finally:
                with self._cond:
                    if delivered:
                        self.delivered += 1
                    elif self._cut:            # a count cut by a ruling, or anything cut by close()
                        (self.dropped if utterance.kind == "count" else self.unspoken).append(utterance)
                    self._current = None
                    self._cut = False
                    self._cond.notify_all()


class EspeakAnnouncer(_QueueAnnouncer):
    """Speaks through espeak-ng (rendered to a WAV) and plays it with `aplay -q -D DEVICE`.

    Chimes are tones made here and cached; `volume` is 0-100 for both.
    """

    def __init__(self, device: str = "default", voice: str = "en", volume: int = 80, *,
                 speak_cmd: str = "espeak-ng", play_cmd: str = "aplay", runner: Runner | None = None,
                 drop_counts: bool = True) -> None:
        super().__init__(drop_counts=drop_counts)
        self.device, self.voice, self.volume = device, voice, _check_volume(volume)
        self.speak_cmd, self.play_cmd = speak_cmd, play_cmd
        if runner is None:
            missing = [cmd for cmd in (speak_cmd, play_cmd) if shutil.which(cmd) is None]
            if missing:
                raise AudioUnavailable(f"{' and '.join(missing)} not found: {INSTALL_HINT}"
                                       " (or set [audio] backend = \"silent\")")
            runner = SubprocessRunner()
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


class FileAnnouncer(_QueueAnnouncer):
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
        self.voice, self.volume, self.speak_cmd = voice, _check_volume(volume), speak_cmd
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

"""The voice's machinery shared by every announcer that plays: its errors, the runner that starts
espeak-ng and aplay, and `QueueAnnouncer`, the queue with one worker thread and the cut rule.

One worker thread per announcer plays utterances one at a time from a queue, so
`say()` never blocks the referee and nothing overlaps. A newer ruling or alert
drops queued counts and cuts a count that is playing (a stale "Three!" is
worse than none); rulings and alerts themselves are never dropped or cut.
"""
from __future__ import annotations

import logging
import os
import subprocess
import threading
from collections import deque
from typing import Protocol, Self, Sequence

from referee.table.ports import Utterance

log = logging.getLogger("hardware.voice")

KINDS: frozenset[str] = frozenset({"ruling", "count", "chime", "alert"})
CUTTING_KINDS: frozenset[str] = frozenset({"ruling", "alert"})   # these drop and cut counts


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
        return PlayerProcess(argv)


class PlayerProcess:
    """A started player; keeps its own last error line from stderr as `reason` (aplay says why it failed there)."""

    def __init__(self, argv: Sequence[str]) -> None:
        self._proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE)
        self._prefix = f"{os.path.basename(argv[0])}:"
        self.reason = ""

    def wait(self) -> int | None:
        _, err = self._proc.communicate()
        lines = [line.strip() for line in err.decode(errors="replace").splitlines() if line.strip()]
        own = [line for line in lines if line.startswith(self._prefix)]   # not alsa-lib's, not a format list
        self.reason = own[-1] if own else (lines[-1] if lines else "")
        return self._proc.returncode

    def terminate(self) -> None:
        self._proc.terminate()


def check_volume(volume: int) -> int:
    """The volume if it is an integer 0-100 (not a bool or a float), else VoiceConfigError."""
    if isinstance(volume, bool) or not isinstance(volume, int) or not 0 <= volume <= 100:
        raise VoiceConfigError(f"volume must be an integer 0-100, not {volume!r}")
    return volume


class QueueAnnouncer:
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
            reason = getattr(player, "reason", "")
            raise VoiceError(f"{argv[0]} exited with {code}: {' '.join(argv)}" + (f": {reason}" if reason else "")
                             + " (`aplay -L` lists devices; `referee doctor` tests the one in use)")
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



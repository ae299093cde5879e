"""Keyboard pads for a laptop: one key per seat (lower case slaps, upper case presses).

A terminal only delivers a key when Python reads it, so the stamp is
`time.monotonic_ns()` at that read: milliseconds of jitter, no kernel
timing, not fit for settling slap disputes. Key release is not visible, so
each key is a press and an immediate release.
"""
from __future__ import annotations

import os
import select
import sys
import threading
import time
from typing import IO, Any, Mapping

from .pad_errors import PadConfigError
from .pad_logic import Channel, PadLogic
from .pad_source import Clock, PadSource
from .pad_timing import PadTiming
from .pins import DEFAULT_PAD_KEYS

#: What a terminal read can promise.
KEYBOARD_TIE_US = 20_000


class KeyboardPads(PadSource):
    """Seats on keys (`keys={"a": 0, ...}`, or a string with one key per seat in order: "alzm");
    `feed(text)` for tests, a reader thread for a tty.

    It CANNOT promise kernel timing: stamps are taken when the key is read.
    `stream=None` reads sys.stdin when it is a terminal (cbreak mode, restored
    on close); `start_reader=False` leaves input to `feed()`.
    """

    source_name = "keyboard"

    def __init__(self, keys: Mapping[str, int] | str | None = None, *, stream: IO[str] | None = None,
                 start_reader: bool = True, debounce_ms: float = 10.0, stuck_after_s: float = 3.0,
                 timing: PadTiming | None = None, clock: Clock = time.monotonic_ns,
                 watchdog_s: float | None = 0.25) -> None:
        if isinstance(keys, str):
            if len(set(keys)) != len(keys):
                raise PadConfigError(f"keys {keys!r}: a key is given twice")
            keys = {key: seat for seat, key in enumerate(keys)}
        keys = DEFAULT_PAD_KEYS if keys is None else keys
        if any(len(k) != 1 or not k.isalpha() or not k.islower() for k in keys):
            raise PadConfigError("keys must be single lower-case letters (shift+key is the press)")
        self._keys = dict(keys)
        channels = [Channel(s, kind) for s in sorted(set(keys.values())) for kind in ("slap", "press")]
        logic = PadLogic(channels, source=self.source_name, debounce_ns=round(debounce_ms * 1e6),
                         stuck_after_ns=round(stuck_after_s * 1e9), backend_tie_us=KEYBOARD_TIE_US,
                         timing=timing)
        super().__init__(logic, clock=clock, watchdog_s=watchdog_s)
        self._stream = stream
        self._restore: Any = None
        self._reader: threading.Thread | None = None
        if start_reader:
            self._start_reader()
        self._start_watchdog()

    def feed(self, text: str) -> int:
        """Handle keys as if typed now; returns how many were pad keys."""
        used = 0
        for char in text:
            seat = self._keys.get(char.lower())
            if seat is None:
                continue
            channel = Channel(seat, "press" if char.isupper() else "slap")
            t_ns = self._clock()
            self._edge(channel, t_ns, True)
            self._edge(channel, t_ns, False)
            used += 1
        return used

    def _start_reader(self) -> None:
        stream = self._stream if self._stream is not None else sys.stdin
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            return
        if os.isatty(fd):
            import termios
            import tty

            self._restore = (fd, termios.tcgetattr(fd))
            tty.setcbreak(fd)
        self._reader = threading.Thread(target=self._read_loop, args=(fd,), name="keyboard-pads", daemon=True)
        self._reader.start()

    def _read_loop(self, fd: int) -> None:
        while not self._closing.is_set():
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                data = os.read(fd, 64)
                if not data:
                    return
                self.feed(data.decode(errors="ignore"))

    def _close_backend(self) -> None:
        self._closing.set()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=2)
        if self._restore is not None:
            import termios

            fd, attrs = self._restore
            termios.tcsetattr(fd, termios.TCSADRAIN, attrs)
            self._restore = None

    def _describe(self) -> str:
        keys = "".join(sorted(self._keys))
        return f"keys={keys} UNTIMED(ms)"

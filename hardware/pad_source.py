"""The consumer side every pad backend shares: callbacks, a queue to iterate, a watchdog, close().

Backends subclass `PadSource`, build a `PadLogic`, and call `_edge()` from
whatever thread their hardware calls back on. Delivery happens outside the
lock, in arrival order; ordering by time is the arbiter's job (`t_ns`).
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Callable, Iterator

from referee.core.events import Flinch, Press, Slap

from .pad_errors import PadClosed
from .pad_events import PadEvent, PadNotice
from .pad_logic import Channel, Output, PadLogic

log = logging.getLogger(__name__)

Clock = Callable[[], int]
_CLOSED = object()


class PadSource:
    """Base of every pad device: `on_*` callbacks, iteration, `poll()`, `close()`.

    Callbacks (assign any time; called on the backend's thread, exceptions logged):
    `on_event(PadEvent)`, `on_slap(Slap)`, `on_press(Press)`, `on_flinch(Flinch)`,
    `on_notice(PadNotice)`. Every `PadEvent` also goes to the queue read by
    `get()` / iteration, which ends when the source is closed.
    """

    #: Backend name shown in reprs and in PadEvent.source.
    source_name = "pads"

    def __init__(self, logic: PadLogic, *, clock: Clock = time.monotonic_ns,
                 watchdog_s: float | None = 0.25) -> None:
        self._logic = logic
        self._clock = clock
        self._lock = threading.RLock()
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._closed = False
        self._closing = threading.Event()
        self.on_event: Callable[[PadEvent], None] | None = None
        self.on_slap: Callable[[Slap], None] | None = None
        self.on_press: Callable[[Press], None] | None = None
        self.on_flinch: Callable[[Flinch], None] | None = None
        self.on_notice: Callable[[PadNotice], None] | None = None
        self.notices: list[PadNotice] = []
        self._watchdog: threading.Thread | None = None
        self._watchdog_s = watchdog_s

    # -- for backends -------------------------------------------------------
    def _start_watchdog(self) -> None:
        """Call at the end of a backend's __init__ once it can read levels."""
        if self._watchdog_s is not None:
            self._watchdog = threading.Thread(target=self._watch, name=f"{self.source_name}-watchdog",
                                              daemon=True)
            self._watchdog.start()

    def _edge(self, channel: Channel, t_ns: int, active: bool, tie_us: int | None = None) -> None:
        if self._closed:
            return
        with self._lock:
            out = self._logic.edge(channel, t_ns, active, tie_us)
        self._deliver(out)

    def _flinch(self, seat: int, t_ns: int, tie_us: int | None = None) -> None:
        if self._closed:
            return
        with self._lock:
            out = self._logic.flinch(seat, t_ns, tie_us)
        self._deliver(out)

    def _notice(self, notice: PadNotice) -> None:
        self._deliver([notice])

    def _read_level(self, channel: Channel) -> bool | None:
        """The input's present level from the hardware, or None to trust the last edge."""
        return None

    def _close_backend(self) -> None:
        """Release the hardware; called once by close()."""

    # -- for consumers ------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(sorted({ch.seat for ch in self._logic.channels}))

    @property
    def stuck(self) -> frozenset[int]:
        """Seats whose pad is stuck and ignored until released."""
        with self._lock:
            return self._logic.stuck()

    def tie_us(self, seat: int) -> int:
        """The tie margin this source gives `seat`'s events (backend resolution + calibration)."""
        return self._logic.timing.apply(seat, 0, self._logic.backend_tie_us)[1]

    def poll(self, now_ns: int | None = None) -> None:
        """Settle bounce windows and check for stuck pads; the watchdog calls this periodically."""
        self._check_open()
        now = self._clock() if now_ns is None else now_ns
        with self._lock:
            out = self._logic.poll(now, self._read_level)
        self._deliver(out)

    def get(self, timeout: float | None = None) -> PadEvent:
        """The next event; raises queue.Empty on timeout and PadClosed once closed and drained."""
        item = self._queue.get(timeout=timeout)
        if item is _CLOSED:
            self._queue.put(_CLOSED)
            raise PadClosed(f"{self!r} is closed")
        assert isinstance(item, PadEvent)
        return item

    def drain(self) -> list[PadEvent]:
        """Every event waiting now, without blocking."""
        items: list[PadEvent] = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return items
            if item is _CLOSED:
                self._queue.put(_CLOSED)
                return items
            assert isinstance(item, PadEvent)
            items.append(item)

    def __iter__(self) -> Iterator[PadEvent]:
        while True:
            try:
                yield self.get()
            except PadClosed:
                return

    def close(self) -> None:
        """Stop listening and release the hardware; safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._closing.set()
        try:
            self._close_backend()
        finally:
            if self._watchdog is not None and self._watchdog is not threading.current_thread():
                self._watchdog.join(timeout=2)
            self._queue.put(_CLOSED)

    def __enter__(self) -> "PadSource":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        name = type(self).__name__
        if self._closed:
            return f"<{name} closed>"
        with self._lock:
            seats = " ".join(f"{ch.seat}{'' if ch.kind == 'slap' else '/press'}={self._logic.state(ch)}"
                             for ch in self._logic.channels)
        return f"<{name} {self._describe()} {seats}>"

    def _describe(self) -> str:
        return self.source_name

    # -- internals ----------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise PadClosed(f"{type(self).__name__} is closed")

    def _deliver(self, out: list[Output]) -> None:
        for item in out:
            if isinstance(item, PadNotice):
                self.notices.append(item)
                log.warning("%s", item.message)
                self._call(self.on_notice, item)
                continue
            self._queue.put(item)
            self._call(self.on_event, item)
            event = item.event
            if isinstance(event, Slap):
                self._call(self.on_slap, event)
            elif isinstance(event, Press):
                self._call(self.on_press, event)
            else:
                self._call(self.on_flinch, event)

    @staticmethod
    def _call(callback: Callable[..., None] | None, arg: object) -> None:
        if callback is None:
            return
        try:
            callback(arg)
        except Exception:  # a consumer bug must not kill the hardware thread
            log.exception("pad callback %r failed", callback)

    def _watch(self) -> None:
        assert self._watchdog_s is not None
        while not self._closing.wait(self._watchdog_s):
            try:
                self.poll()
            except PadClosed:
                return
            except Exception:
                log.exception("pad watchdog failed")

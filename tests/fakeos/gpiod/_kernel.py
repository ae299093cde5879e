"""The kernel's GPIO character device, as linux drivers/gpio/gpiolib-cdev.c (v6.x) implements it.

Shared by the `gpiod` fake and `lgpio.py` (lgpio requests lines through the same
v2 uAPI, lgGpio.c). What is modelled, from gpiolib-cdev.c:

- `edge_irq_handler` (hard IRQ, on every edge the line triggers on) stores
  `line->timestamp_ns = ktime_get_ns()` (CLOCK_MONOTONIC) and, for a request of
  more than one line, `line->req_seqno = atomic_inc_return(&lr->seqno)`. Hard
  IRQs that come before the IRQ thread runs overwrite both.
- `edge_irq_thread` (runs `kernel.irq_thread_us` later) makes ONE event with the
  stamp left by the LAST hard IRQ; with both edges its direction is the line's
  logical level read then (`gpiod_get_value_cansleep`), not the edge's; then
  `line_seqno++` and `seqno = line_seqno` (one line) or `req_seqno` (several).
- `linereq_put_event`: a full FIFO drops its OLDEST event (a gap in that line's
  line_seqno); `linereq_create`: FIFO of `event_buffer_size`, else 16 per line,
  which `kfifo_alloc` rounds up to a power of two.
- `edge_detector_setup`: active-low swaps the IRQ trigger edges.

Hard IRQs and thread runs are computed in timeline order from the world's true
level changes whenever a reader looks (`advance(now)`), so what the kernel
reports does not depend on how late the test machine runs Python threads.
"""
from __future__ import annotations

import errno
import heapq
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

import world as world_mod

#: GPIO_V2_LINES_MAX: the most lines one request may hold (and 16 events each at most).
LINES_MAX = 64


@dataclass
class LineConfig:
    """The uAPI flags of one requested line (gpio_v2_line_config, per line)."""

    output: bool = False
    rising: bool = False
    falling: bool = False
    active_low: bool = False
    bias: str = "as-is"            # "pull-up", "pull-down", "disabled" or "as-is"
    realtime: bool = False          # GPIO_V2_LINE_FLAG_EVENT_CLOCK_REALTIME
    output_value: int = 0           # logical


@dataclass(frozen=True)
class RawEvent:
    """struct gpio_v2_line_event as read(2) returns it."""

    timestamp_ns: int
    rising: bool
    offset: int
    seqno: int
    line_seqno: int


@dataclass(eq=False)
class _Line:
    offset: int
    cfg: LineConfig
    cursor_ns: int                  # true changes up to here have reached the hard IRQ handler
    timestamp_ns: int = 0
    req_seqno: int = 0
    line_seqno: int = 0
    thread_at: int | None = None
    late: list[tuple[int, int]] = field(default_factory=list)
    seen: deque[tuple[int, int]] = field(default_factory=lambda: deque(maxlen=256))


#: Observers of every event the kernel queues, `fn(chip_path, event)` (tests and the bench use this
#: to tell the kernel's stamp from what the software made of it).
TAPS: list[Callable[[str, "RawEvent"], None]] = []
#: Observers of every event a full FIFO drops, `fn(chip_path, event)` (a real overflow, to tell from a false alarm).
DROPS: list[Callable[[str, "RawEvent"], None]] = []

_OWNERS: dict[tuple[int, str, int], "Request"] = {}
_OWNERS_LOCK = threading.Lock()


def chip_of(path: str, w: Any = None) -> Any:
    """The world's chip at `path`; FileNotFoundError (ENOENT) as open(2) gives for a missing device."""
    w = w or world_mod.world()
    chip = w.chip(path)
    if chip is None:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
    return chip


def is_requested(path: str, offset: int, w: Any = None) -> bool:
    """Whether a line is held by a request (the kernel's GPIO_V2_LINE_FLAG_USED)."""
    w = w or world_mod.world()
    return (id(w), world_mod.chip_path(path), offset) in _OWNERS


def _pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


class Request:
    """A linereq: lines of one chip requested together, with one event FIFO and one seqno."""

    def __init__(self, path: str, configs: dict[int, LineConfig], *, consumer: str = "",
                 event_buffer_size: int = 0, world: Any = None, on_wake: Any = None) -> None:
        self.world = world or world_mod.world()
        self.on_wake = on_wake  # called (on a world thread) when a watched line changes
        chip = chip_of(path, self.world)
        self.path, self.consumer = chip.path, consumer
        if not configs or len(configs) > LINES_MAX or any(not 0 <= o < chip.lines for o in configs):
            raise OSError(errno.EINVAL, "Invalid argument", self.path)
        size = event_buffer_size or self.world.kernel.event_fifo or 16 * len(configs)
        self.capacity = _pow2(min(size, LINES_MAX * 16))
        self._cond = threading.Condition()
        self._fifo: list[RawEvent] = []
        self._threads: list[tuple[int, int]] = []
        self._seqno = 0
        self._rng = self.world.random(f"irq:{self.path}:{sorted(configs)}")
        now = time.monotonic_ns()
        self.lines = {o: _Line(o, cfg, now) for o, cfg in configs.items()}
        keys = [(id(self.world), self.path, o) for o in configs]
        with _OWNERS_LOCK:
            if any(k in _OWNERS for k in keys):
                raise OSError(errno.EBUSY, "Device or resource busy", self.path)
            _OWNERS.update((k, self) for k in keys)
        self._keys = keys
        self.released = False
        for line in self.lines.values():
            if line.cfg.output:
                self.set_value(line.offset, line.cfg.output_value)
        self._unsubscribe = [self.world.subscribe_line(self.path, o, self._heard(line))
                             for o, line in self.lines.items() if line.cfg.rising or line.cfg.falling]

    def _heard(self, line: _Line) -> Any:
        def wake(t_ns: int, level: int) -> None:
            with self._cond:
                if t_ns <= line.cursor_ns and (t_ns, level) not in line.seen:
                    line.late.append((t_ns, level))  # a device drove the line in the past
                self._cond.notify_all()
            if self.on_wake is not None:
                self.on_wake()
        return wake

    # -- the kernel's side ------------------------------------------------------
    def physical(self, offset: int, t_ns: int) -> int:
        """The line's electrical level at t_ns: what drives it, else its bias (floating reads 0)."""
        level = self.world.level(self.path, offset, t_ns)
        if level is None:
            return 1 if self.lines[offset].cfg.bias == "pull-up" else 0
        return level

    def _triggers(self, cfg: LineConfig, level: int) -> bool:
        rising_phys = bool(level)
        if cfg.active_low:
            rising_phys = not rising_phys
        return (cfg.rising and rising_phys) or (cfg.falling and not rising_phys)

    def _hard_irq(self, line: _Line, t_ns: int, level: int, now_floor: int) -> None:
        line.cursor_ns = max(line.cursor_ns, t_ns)
        if not self._triggers(line.cfg, level):
            return
        line.timestamp_ns = t_ns if not line.cfg.realtime else t_ns + time.time_ns() - time.monotonic_ns()
        if len(self.lines) != 1:
            self._seqno += 1
            line.req_seqno = self._seqno
        if line.thread_at is None:
            lo, hi = self.world.kernel.irq_thread_us
            line.thread_at = max(t_ns + round(self._rng.uniform(lo, hi) * 1000), now_floor)
            heapq.heappush(self._threads, (line.thread_at, line.offset))

    def _irq_thread(self, line: _Line, t_ns: int) -> None:
        line.thread_at = None
        if line.cfg.rising and line.cfg.falling:
            rising = bool(self.physical(line.offset, t_ns) ^ line.cfg.active_low)
        else:
            rising = line.cfg.rising
        line.line_seqno += 1
        seqno = line.line_seqno if len(self.lines) == 1 else line.req_seqno
        if len(self._fifo) >= self.capacity:
            lost = self._fifo.pop(0)       # kfifo_skip: the oldest event is lost
            for drop in list(DROPS):
                drop(self.path, lost)
        event = RawEvent(line.timestamp_ns, rising, line.offset, seqno, line.line_seqno)
        self._fifo.append(event)
        line.timestamp_ns = 0
        for tap in list(TAPS):
            tap(self.path, event)
        if self.world.folder is not None:      # a test in another process reads what the kernel stamped
            self.world.log({"fake": "kernel", "chip": self.path, "offset": event.offset,
                            "t_ns": event.timestamp_ns, "rising": event.rising})

    def advance(self, now_ns: int) -> None:
        """Run every hard IRQ and IRQ thread due by `now_ns`, in time order."""
        with self._cond:
            for line in self.lines.values():
                while line.late:
                    t, level = line.late.pop(0)
                    self._hard_irq(line, t, level, now_ns)
            while True:
                edge = None
                for line in self.lines.values():
                    if line.cfg.rising or line.cfg.falling:
                        nxt = self.world.next_change(self.path, line.offset, line.cursor_ns)
                        if nxt is not None and nxt[0] <= now_ns and (edge is None or nxt[0] < edge[0]):
                            edge = (nxt[0], nxt[1], line)
                thread = self._threads[0] if self._threads and self._threads[0][0] <= now_ns else None
                if thread is not None and (edge is None or thread[0] <= edge[0]):
                    heapq.heappop(self._threads)
                    self._irq_thread(self.lines[thread[1]], thread[0])
                elif edge is not None:
                    edge[2].seen.append((edge[0], edge[1]))
                    self._hard_irq(edge[2], edge[0], edge[1], 0)
                else:
                    return

    def _next_activity(self) -> int | None:
        times = [t for t, _ in self._threads[:1]]
        for line in self.lines.values():
            if line.cfg.rising or line.cfg.falling:
                nxt = self.world.next_change(self.path, line.offset, line.cursor_ns)
                if nxt is not None:
                    times.append(nxt[0])
        return min(times) if times else None

    # -- the file descriptor's side ---------------------------------------------
    def wait(self, timeout_s: float | None) -> bool:
        """poll(2) on the request's fd: True once an event can be read, False on timeout."""
        deadline = None if timeout_s is None else time.monotonic_ns() + int(timeout_s * 1e9)
        with self._cond:
            while True:
                self._check()
                now = time.monotonic_ns()
                self.advance(now)
                if self._fifo:
                    return True
                if deadline is not None and now >= deadline:
                    return False
                wake = self._next_activity()
                until = min(t for t in (wake, deadline, now + 50_000_000) if t is not None)
                self._cond.wait(max(until - now, 0) / 1e9)

    def read(self, max_events: int, *, block: bool = True) -> list[RawEvent]:
        """read(2): the oldest events; blocks until there is one unless `block` is False."""
        if block:
            self.wait(None)
        with self._cond:
            self._check()
            self.advance(time.monotonic_ns())
            out, self._fifo = self._fifo[:max_events], self._fifo[max_events:]
            return out

    def next_activity(self) -> int | None:
        """When the kernel will next have something to do for this request (a known edge or thread run)."""
        with self._cond:
            return self._next_activity()

    def value(self, offset: int) -> int:
        """GPIO_V2_LINE_GET_VALUES: the line's logical value now."""
        self._check()
        return self.physical(offset, time.monotonic_ns()) ^ int(self.lines[offset].cfg.active_low)

    def set_value(self, offset: int, logical: int) -> None:
        """GPIO_V2_LINE_SET_VALUES on an output: the Pi drives the line from now on."""
        self._check()
        line = self.lines[offset]
        if not line.cfg.output:
            raise OSError(errno.EPERM, "Operation not permitted", self.path)
        self.world.drive(self.path, offset, time.monotonic_ns(), int(bool(logical)) ^ int(line.cfg.active_low))

    def release(self) -> None:
        """close(2) of the request's fd: the lines are free again."""
        with self._cond:
            if self.released:
                return
            self.released = True
            self._cond.notify_all()
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        with _OWNERS_LOCK:
            for k in self._keys:
                if _OWNERS.get(k) is self:
                    del _OWNERS[k]

    def _check(self) -> None:
        if self.released:
            raise OSError(errno.EBADF, "Bad file descriptor")

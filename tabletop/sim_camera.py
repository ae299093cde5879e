"""The cameras of a simulated table: frames rendered from the world, or its cards named outright.

`RenderedCamera` (`[camera] source = "rendered"`) is a camera source like
`hardware.camera`'s: it yields (BGR frame, capture t_ns) drawn by
`tabletop.scene_render` from the world's scene, for the real `CardPipeline` to
read. It runs at `fps` in table time while the scene changes and, once the
pile has been still for a few frames, idles until the next change (a frame
every `idle_real_s` keeps the frozen-camera watchdog quiet), so a sped-up
table still gets every landing at full frame rate.

`WorldCardSource` (`[camera] source = "sim"` on a bots table, `referee demo
--no-vision`) names each card the world lays, a camera's latency later, with
no rendering and no vision: the fast path for tests and slow machines.
"""
from __future__ import annotations

import heapq
import itertools
import random
import threading
import time
from typing import Any, Iterator

from referee.core.cards import Card
from referee.core.events import MS, CardSeen, Event
from referee.table.ports import Notice

from .clock import TableClock
from .scene_render import LANDING_NS, SceneRenderer
from .sim_world import SimWorld

Frame = tuple[Any, int]


class RenderedCamera:
    """Frames of the simulated pile, stamped with the table time they show."""

    def __init__(self, world: SimWorld, clock: TableClock, *, fps: float = 30.0, size: tuple[int, int] = (640, 480),
                 seats: int = 4, seed: int = 0, settle_frames: int = 6, idle_real_s: float = 0.25) -> None:
        self.world, self.clock = world, clock
        self.period_ns = int(1e9 / fps)
        self.settle_frames = settle_frames
        self.idle_real_s = idle_real_s
        self.renderers = {row: SceneRenderer(size, card_width=0.2 if row else 0.3, seats=seats, seed=seed)
                          for row in (False, True)}
        self.frames_drawn = 0
        self._closed = threading.Event()

    def __repr__(self) -> str:
        return f"RenderedCamera({self.renderers[False].size[0]}x{self.renderers[False].size[1]}, {self.clock!r})"

    def __iter__(self) -> Iterator[Frame]:
        return self.frames()

    def frames(self) -> Iterator[Frame]:
        t = self.clock() - self.period_ns
        quiet, last_key = 0, None
        while not self._closed.is_set():
            due = self._next_time(t, idle=quiet >= self.settle_frames)
            if due is None:
                return
            t = due
            scene = self.world.scene(t)
            key = _key(scene, t)
            quiet = quiet + 1 if key == last_key else 0
            last_key = key
            frame = self.renderers[self.world.row].render_scene(scene, t)
            self.frames_drawn += 1
            yield frame, t

    def _next_time(self, last: int, *, idle: bool) -> int | None:
        """The next frame's table time, once the clock has reached it: the next frame slot, or when idle the
        next change in the scene (or a keep-alive frame), whichever comes first. A camera that fell behind
        drops frames rather than showing the past."""
        nxt = last + self.period_ns
        lag = self.clock() - nxt
        if lag > 20 * self.period_ns:
            nxt += (lag // self.period_ns) * self.period_ns
        seen = -1
        while not self._closed.is_set():
            now = self.clock()
            if idle and seen != self.world.version:
                seen = self.world.version
                change = self.world.next_change(last)
                wake = now + int(self.idle_real_s * 1e9 * self.clock.speed)
                nxt = max(last + self.period_ns, min(wake, change if change is not None else wake))
            if now >= nxt:
                return nxt
            with self.world.changed:
                self.world.changed.wait(min(0.05, self.clock.real_s(nxt - now)))
        return None

    def close(self) -> None:
        self._closed.set()


def _key(scene: dict[str, list[dict[str, Any]]], t_ns: int) -> tuple[Any, ...]:
    """What a frame shows: the same key twice in a row is a still pile (a landing card is never still)."""
    cards = tuple((c["card"], c["x"], c["y"], c["angle"], min(t_ns - c["t_ns"], LANDING_NS)) for c in scene["cards"])
    return cards, tuple((h["seat"], h["cover"]) for h in scene["hands"])


class WorldCardSource:
    """An EventSource naming every card the world lays, `latency_ms` (a range, table ms) after it landed."""

    name = "camera"

    def __init__(self, world: SimWorld, clock: TableClock, *, latency_ms: tuple[float, float] = (35.0, 90.0),
                 seed: int = 0) -> None:
        self.clock = clock
        self.latency_ms = latency_ms
        self.rng = random.Random(seed)
        self._due: list[tuple[int, int, Event]] = []
        self._seq = itertools.count()
        self._wake = threading.Condition()
        self.closed = False
        world.lay_listeners.append(self._laid)

    def _laid(self, card: Card, t_ns: int) -> None:
        lo, hi = self.latency_ms
        with self._wake:
            heapq.heappush(self._due, (t_ns + int(self.rng.uniform(lo, hi) * MS), next(self._seq), CardSeen(card, t_ns)))
            self._wake.notify()

    def poll(self, timeout_s: float) -> list[Event | Notice]:
        until = time.monotonic() + timeout_s
        with self._wake:
            while True:
                now = self.clock()
                items: list[Event | Notice] = []
                while self._due and self._due[0][0] <= now:
                    items.append(heapq.heappop(self._due)[2])
                if items or self.closed:
                    return items
                left = until - time.monotonic()
                if left <= 0:
                    return []
                if self._due:
                    left = min(left, self.clock.real_s(self._due[0][0] - now))
                self._wake.wait(max(0.0005, left))

    def close(self) -> None:
        with self._wake:
            self.closed = True
            self._wake.notify_all()

    def __repr__(self) -> str:
        return f"<WorldCardSource {len(self._due)} cards on their way>"

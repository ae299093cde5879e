"""The physical world every fake in tests/fakeos reads: one timeline of what happens on the table.

Specified in tests/fakeos/README.md ("The physical world"): `world.json` (all
times µs from t0, unknown keys an error), `DIR/t0` (CLOCK_MONOTONIC ns when the
timeline's zero falls), `DIR/log.jsonl` (what the fakes did). This module knows
only physics (levels, touches, cards, faults); kernels and drivers are the fakes'.
"""
from __future__ import annotations

import bisect
import heapq
import itertools
import json
import logging
import os
import random
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

log_ = logging.getLogger(__name__)

ENV = "TABLETOP_FAKE_WORLD"
LineFn = Callable[[int, int], None]

#: A Raspberry Pi 4 at rest, used when world.json names no board.
DEFAULT_BOARD: dict[str, Any] = {"revision": "c03114", "chips": [
    {"path": "/dev/gpiochip0", "label": "pinctrl-bcm2711", "lines": 58},
    {"path": "/dev/gpiochip1", "label": "raspberrypi-exp-gpio", "lines": 8}]}


class WorldError(ValueError):
    """world.json does not follow tests/fakeos/README.md."""


@dataclass(frozen=True)
class Chip:
    """A gpiochip of the board: `/dev/gpiochipN`, its label and its number of lines."""
    path: str
    label: str
    lines: int


@dataclass(frozen=True)
class Kernel:
    """Kernel timing: IRQ thread latency range, lgpio's poll period, event FIFO size (None: kernel default)."""
    irq_thread_us: tuple[float, float] = (20.0, 120.0)
    lgpio_poll_us: float = 500.0
    event_fifo: int | None = None


@dataclass(frozen=True)
class Wire:
    """What is wired to a line: a pad of (seat, kind), or an MPR121's IRQ output ("bus:0xaddr")."""
    idle: int
    seat: int | None = None
    kind: str | None = None
    mpr121_irq: str | None = None


@dataclass(frozen=True)
class Contact:
    """A hand on a pad: closes at t_us (true first contact), bounces, opens after hold_us (bouncing)."""
    seat: int
    kind: str
    t_us: float
    hold_us: float
    bounce_us: tuple[float, ...] = ()
    release_bounce_us: tuple[float, ...] = ()

    def closings(self) -> list[tuple[float, bool]]:
        """(t_us, closed) for every change of the switch, first contact and bounce included."""
        out, t, closed = [(self.t_us, True)], self.t_us, True
        for stretch in self.bounce_us:
            t, closed = t + stretch, not closed
            out.append((t, closed))
        t, closed = self.t_us + self.hold_us, False
        out.append((t, closed))
        for stretch in self.release_bounce_us:
            t, closed = t + stretch, not closed
            out.append((t, closed))
        return out


@dataclass(frozen=True)
class PileCard:
    """A card lying on the pile: position as fractions of the pile region, angle in degrees."""
    card: str
    x: float
    y: float
    angle: float
    t_ns: int


@dataclass(frozen=True)
class Hand:
    """A hand over the pile covering `cover` (0..1) of it."""
    seat: int
    cover: float
    t_ns: int
    until_ns: int


@dataclass(frozen=True)
class Scene:
    """What a camera over the pile would see: cards bottom to top, hands over them."""
    cards: tuple[PileCard, ...] = ()
    hands: tuple[Hand, ...] = ()


@dataclass(frozen=True)
class CameraFault:
    """A camera fault: `error` (one capture raises; until_ns None), `stall` or `gone` until until_ns."""
    kind: str
    t_ns: int
    until_ns: int | None


NUM, SIGNED = "number >= 0", "number"      # schema leaf types besides int and str (times may be < 0)


def _check(where: str, value: Any, schema: Any) -> Any:
    """Validate `value` against a schema: a leaf type, a tuple of allowed values, [item], or an object
    whose keys ending in "?" are optional ("*": names chosen by the author). Unknown keys are errors."""
    if isinstance(schema, tuple):
        ok = value in schema
    elif schema is int:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    elif schema in (NUM, SIGNED):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and (schema == SIGNED or value >= 0)
    elif schema is str:
        ok = isinstance(value, str)
    elif isinstance(schema, list):
        if not isinstance(value, list):
            raise WorldError(f"{where}: expected a list, got {value!r}")
        return [_check(f"{where}[{i}]", v, schema[0]) for i, v in enumerate(value)]
    else:
        if not isinstance(value, dict):
            raise WorldError(f"{where}: expected an object, got {value!r}")
        if "*" in schema:
            return {k: _check(f"{where}.{k}", v, schema["*"]) for k, v in value.items()}
        keys = {k.rstrip("?"): k.endswith("?") for k in schema}
        unknown, missing = set(value) - set(keys), {k for k, opt in keys.items() if not opt} - set(value)
        if unknown or missing:
            raise WorldError(f"{where}: unknown key(s) {sorted(unknown)}, missing key(s) {sorted(missing)}")
        for k, v in value.items():
            _check(f"{where}.{k}", v, schema[k + "?" if keys[k] else k])
        return value
    if not ok:
        raise WorldError(f"{where}: expected {getattr(schema, '__name__', schema)}, got {value!r}")
    return value


_KIND = ("slap", "press")
_STRETCHES = [NUM]
SCHEMA: dict[str, Any] = {
    "seed?": int,
    "board?": {"revision": str, "chips?": [{"path": str, "label": str, "lines": int}]},
    "kernel?": {"irq_thread_us?": [NUM], "lgpio_poll_us?": NUM, "event_fifo?": int},
    "lines?": {"*": {"seat?": int, "kind?": _KIND, "idle?": (0, 1), "mpr121_irq?": str}},
    "mpr121?": {"*": {"electrodes": {"*": {"seat": int, "kind?": _KIND}}}},
    "contacts?": [{"seat": int, "kind?": _KIND, "t_us": SIGNED, "hold_us": NUM, "bounce_us?": _STRETCHES,
                   "release_bounce_us?": _STRETCHES}],
    "hovers?": [{"seat": int, "t_us": SIGNED, "until_us": SIGNED}],
    "cards?": [{"t_us": SIGNED, "card": str, "x": NUM, "y": NUM, "angle?": SIGNED}],
    "hands?": [{"seat": int, "t_us": SIGNED, "until_us": SIGNED, "cover": NUM}],
    "sweeps?": [{"t_us": SIGNED}],
    "camera?": {"faults?": [{"kind": ("error", "stall", "gone"), "t_us": SIGNED, "until_us?": SIGNED}]},
    # ALSA's cards, read by bin/aplay and bin/espeak-ng (README "sound"); checked here too
    "sound?": {"cards?": [{"index": int, "id": str, "name": str, "devices?": [int], "busy?": (True, False),
                           "iec958_only?": (True, False)}], "user_server?": (True, False)},
}


def chip_path(chip: str) -> str:
    """`gpiochip0` or `/dev/gpiochip0` -> `/dev/gpiochip0`."""
    return chip if chip.startswith("/") else f"/dev/{chip}"


def mpr121_key(bus: int, address: int) -> str:
    """The world.json name of an MPR121: `"1:0x5a"`."""
    return f"{bus}:{address:#x}"


class World:
    """One physical timeline (README "world.json") and the moment its zero falls on (t0)."""

    def __init__(self, spec: Mapping[str, Any] | None = None, *, folder: str | Path | None = None,
                 t0_ns: int | None = None) -> None:
        self.folder = None if folder is None else Path(folder)
        self._t0 = t0_ns
        self._t0_checked = 0
        self._lock = threading.RLock()
        self._drives: dict[tuple[str, int], list[tuple[int, int]]] = {}
        self._changes: dict[tuple[str, int], list[tuple[int, int]]] = {}
        self._subs: list[_Sub] = []
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._closed = False
        self.records: list[dict[str, Any]] = []
        self._parse(dict(spec or {}))

    # -- loading -------------------------------------------------------------
    def _parse(self, spec: dict[str, Any]) -> None:
        _check("world.json", spec, SCHEMA)
        self.seed = spec.get("seed", 0)
        board = spec.get("board", DEFAULT_BOARD)
        try:
            self.revision = int(board["revision"], 16)
        except ValueError:
            raise WorldError(f"board.revision: expected a hex string, got {board['revision']!r}") from None
        self.chips = tuple(Chip(c["path"], c["label"], c["lines"]) for c in board.get("chips", DEFAULT_BOARD["chips"]))
        paths = [c.path for c in self.chips]
        if len(set(paths)) != len(paths) or not all(re.fullmatch(r"/dev/gpiochip\d+", p) for p in paths):
            raise WorldError(f"board.chips: paths must be distinct /dev/gpiochipN, got {paths}")
        k = spec.get("kernel", {})
        irq = tuple(k.get("irq_thread_us", (20, 120)))
        if len(irq) != 2 or irq[0] > irq[1] or k.get("lgpio_poll_us", 1) <= 0 or k.get("event_fifo", 1) < 1:
            raise WorldError(f"kernel: irq_thread_us is [low, high], lgpio_poll_us and event_fifo > 0: {k}")
        self.kernel = Kernel((float(irq[0]), float(irq[1])), float(k.get("lgpio_poll_us", 500)), k.get("event_fifo"))
        for name, chip in spec.get("mpr121", {}).items():
            if not re.fullmatch(r"\d+:0x[0-9a-f]+", name) or not all(e.isdigit() for e in chip["electrodes"]):
                raise WorldError(f"mpr121: {name!r} must be 'bus:0xaddr' (as '1:0x5a') with numbered electrodes")
        self.mpr121 = {name: {int(e): (w["seat"], w.get("kind", "slap")) for e, w in chip["electrodes"].items()}
                       for name, chip in spec.get("mpr121", {}).items()}
        self.wires = {self._line_key(name): self._wire(name, w) for name, w in spec.get("lines", {}).items()}
        self.contacts = tuple(sorted((self._contact(i, c) for i, c in enumerate(spec.get("contacts", []))),
                                     key=lambda c: c.t_us))
        ends: dict[tuple[int, str], float] = {}
        for c in self.contacts:
            if c.t_us < ends.get((c.seat, c.kind), float("-inf")):
                raise WorldError(f"contacts: seat {c.seat} {c.kind} at {c.t_us} µs overlaps the one before")
            ends[(c.seat, c.kind)] = c.t_us + c.hold_us + sum(c.release_bounce_us)
        self.hovers = tuple((h["t_us"], h["until_us"], h["seat"]) for h in spec.get("hovers", []))
        self._cards = sorted((c["t_us"], c["card"], c["x"], c["y"], c.get("angle", 0.0)) for c in spec.get("cards", []))
        self._hands = tuple((h["seat"], h["cover"], h["t_us"], h["until_us"]) for h in spec.get("hands", []))
        self._sweeps = sorted(sw["t_us"] for sw in spec.get("sweeps", []))
        self._faults = [(f["kind"], f["t_us"], f.get("until_us")) for f in spec.get("camera", {}).get("faults", [])]
        if any((until is None) != (kind == "error") for kind, _, until in self._faults):
            raise WorldError("camera.faults: stall and gone need until_us, error has none")

    def _line_key(self, name: str) -> tuple[str, int]:
        chip, _, offset = name.partition(":")
        found = self.chip(chip_path(chip))
        if found is None or not offset.isdigit() or int(offset) >= found.lines:
            raise WorldError(f"lines: {name!r} is not a line of a chip on the board")
        return found.path, int(offset)

    def _wire(self, name: str, w: dict[str, Any]) -> Wire:
        if ("seat" in w) == ("mpr121_irq" in w) or ("kind" in w and "seat" not in w):
            raise WorldError(f"lines.{name}: either a pad (seat, kind) or an MPR121's IRQ (mpr121_irq)")
        if "mpr121_irq" in w and w["mpr121_irq"] not in self.mpr121:
            raise WorldError(f"lines.{name}: no MPR121 {w['mpr121_irq']!r} in 'mpr121'")
        kind = w.get("kind", "slap") if "seat" in w else None
        return Wire(w.get("idle", 1), w.get("seat"), kind, w.get("mpr121_irq"))

    def _contact(self, i: int, c: dict[str, Any]) -> Contact:
        contact = Contact(c["seat"], c.get("kind", "slap"), c["t_us"], c["hold_us"],
                          tuple(c.get("bounce_us", ())), tuple(c.get("release_bounce_us", ())))
        for stretches in (contact.bounce_us, contact.release_bounce_us):
            if len(stretches) % 2 or any(v <= 0 for v in stretches):
                raise WorldError(f"contacts[{i}]: bounce lists have even length (they end where they began), "
                                 "every stretch > 0 µs")
        if sum(contact.bounce_us) >= contact.hold_us:
            raise WorldError(f"contacts[{i}]: bounce_us must end before hold_us")
        return contact

    # -- time ----------------------------------------------------------------
    def t0_ns(self) -> int | None:
        """CLOCK_MONOTONIC ns of the timeline's zero; None until the test starts the world."""
        if self._t0 is None and self.folder is not None:
            now = time.monotonic_ns()
            if now - self._t0_checked > 2_000_000:
                self._t0_checked = now
                try:
                    self._t0 = int((self.folder / "t0").read_text().strip())
                except (OSError, ValueError):
                    pass
        return self._t0

    def start(self, t0_ns: int) -> None:
        """Start the timeline at `t0_ns` (and write DIR/t0 so other processes agree)."""
        if self.folder is not None:
            tmp = self.folder / "t0.tmp"
            tmp.write_text(f"{t0_ns}\n")
            tmp.replace(self.folder / "t0")
        with self._lock:
            self._t0 = t0_ns
            self._changes.clear()
            self._wake.notify_all()

    def now_us(self) -> float | None:
        """Physical time now in µs from t0 (None before t0)."""
        t0 = self.t0_ns()
        return None if t0 is None else (time.monotonic_ns() - t0) / 1000

    def ns(self, t_us: float) -> int:
        """A timeline time (µs from t0) as CLOCK_MONOTONIC ns; the world must have started."""
        t0 = self.t0_ns()
        if t0 is None:
            raise RuntimeError("the world has not started (no t0)")
        return t0 + round(t_us * 1000)

    def random(self, stream: str) -> random.Random:
        """A generator seeded by the world's seed and `stream`: each fake draws its own, reproducibly."""
        return random.Random(f"{self.seed}:{stream}")

    # -- the board -----------------------------------------------------------
    def chip(self, path: str) -> Chip | None:
        """The board's chip at `path` (`/dev/gpiochipN` or `gpiochipN`), or None."""
        path = chip_path(path)
        return next((c for c in self.chips if c.path == path), None)

    def wire(self, chip: str, offset: int) -> Wire | None:
        """What is wired to that line, or None for a line nothing drives."""
        return self.wires.get((chip_path(chip), offset))

    def line_changes(self, chip: str, offset: int) -> list[tuple[int, int]]:
        """The true level changes [(t_ns, level)] of a line, in order: contacts (bounce included) and drives."""
        return list(self._changes_of((chip_path(chip), offset)))

    def _changes_of(self, key: tuple[str, int]) -> list[tuple[int, int]]:
        """The cached merged changes of a line (not a copy: callers must not change it)."""
        with self._lock:
            cached = self._changes.get(key)
            if cached is None:
                cached = self._merge(key)
                if self.t0_ns() is not None:  # before t0 only drives are known
                    self._changes[key] = cached
            return cached

    def _merge(self, key: tuple[str, int]) -> list[tuple[int, int]]:
        wire, t0 = self.wires.get(key), self.t0_ns()
        raw: list[tuple[int, int, int]] = []
        if wire is not None and wire.seat is not None and t0 is not None:
            for c in self.contacts:
                if (c.seat, c.kind) == (wire.seat, wire.kind):
                    raw += [(t0 + round(t * 1000), 0, wire.idle ^ closed) for t, closed in c.closings()]
        raw += [(t, 1, level) for t, level in self._drives.get(key, [])]
        raw.sort(key=lambda r: (r[0], r[1]))
        level = None if wire is None else wire.idle
        out = []
        for t, _, new in raw:
            if new != level:
                out.append((t, new))
                level = new
        return out

    def next_change(self, chip: str, offset: int, after_ns: int) -> tuple[int, int] | None:
        """The first true change (t_ns, level) of a line strictly after `after_ns`, or None (O(log n))."""
        changes = self._changes_of((chip_path(chip), offset))
        i = bisect.bisect_right(changes, (after_ns, 2))
        return changes[i] if i < len(changes) else None

    def level(self, chip: str, offset: int, t_ns: int) -> int | None:
        """The true level of a line at `t_ns`; None when nothing drives it (the bias decides)."""
        key = (chip_path(chip), offset)
        wire = self.wires.get(key)
        changes = self._changes_of(key)
        i = bisect.bisect_right(changes, (t_ns, 2))
        if i:
            return changes[i - 1][1]
        return None if wire is None else wire.idle

    def drive(self, chip: str, offset: int, t_ns: int, level: int) -> None:
        """A device on the board (an MPR121's open-drain IRQ) sets a line's level from `t_ns` on."""
        key, level = (chip_path(chip), offset), 1 if level else 0
        with self._lock:
            before = self.level(*key, t_ns)
            self._drives.setdefault(key, []).append((t_ns, level))
            self._changes.pop(key, None)
            if before != level:  # a drive in the past still reaches subscribers, late, with its stamp
                for sub in self._subs:
                    if sub.key == key and t_ns <= sub.last_ns:
                        sub.late.append((t_ns, level))
            self._wake.notify_all()

    # -- MPR121 --------------------------------------------------------------
    def touch_intervals(self, bus: int, address: int, electrode: int) -> list[tuple[int, int]]:
        """[(t0_ns, t1_ns)] when a hand touches that electrode (no bounce on a capacitive pad)."""
        who = self.mpr121.get(mpr121_key(bus, address), {}).get(electrode)
        if who is None or self.t0_ns() is None:
            return []
        return [(self.ns(c.t_us), self.ns(c.t_us + c.hold_us)) for c in self.contacts if (c.seat, c.kind) == who]

    def hover_intervals(self, bus: int, address: int) -> list[tuple[int, int, int]]:
        """[(t0_ns, t1_ns, seat)] of hovers over pads of that MPR121 (seen by its proximity sum)."""
        seats = {seat for seat, _ in self.mpr121.get(mpr121_key(bus, address), {}).values()}
        if self.t0_ns() is None:
            return []
        return [(self.ns(a), self.ns(b), seat) for a, b, seat in self.hovers if seat in seats]

    # -- the pile and the camera ----------------------------------------------
    def scene(self, t_ns: int) -> Scene:
        """Cards on the pile at `t_ns` (landed since the last sweep, bottom first) and hands over it."""
        if self.t0_ns() is None:
            return Scene()
        t_us = (t_ns - self.ns(0)) / 1000
        swept = max((s for s in self._sweeps if s <= t_us), default=float("-inf"))
        cards = tuple(PileCard(card, x, y, angle, self.ns(t)) for t, card, x, y, angle in self._cards
                      if swept <= t <= t_us)
        hands = tuple(Hand(seat, cover, self.ns(a), self.ns(b)) for seat, cover, a, b in self._hands if a <= t_us < b)
        return Scene(cards, hands)

    def camera_fault(self, t_ns: int) -> CameraFault | None:
        """`gone`, else `stall` in force at `t_ns`, else the latest `error` already due (a camera fake
        raises once per error's t_ns), else None."""
        if self.t0_ns() is None:
            return None
        t_us = (t_ns - self.ns(0)) / 1000
        for kind in ("gone", "stall"):
            for k, a, b in self._faults:
                if k == kind and b is not None and a <= t_us < b:
                    return CameraFault(k, self.ns(a), self.ns(b))
        errors = [a for k, a, _ in self._faults if k == "error" and a <= t_us]
        return CameraFault("error", self.ns(max(errors)), None) if errors else None

    # -- what the fakes did ----------------------------------------------------
    def log(self, record: dict[str, Any]) -> None:
        """Append one JSON line to DIR/log.jsonl (and to `records`, for in-process tests)."""
        line = json.dumps(record, sort_keys=True, default=str)
        with self._lock:
            self.records.append(record)
            if self.folder is not None:
                with open(self.folder / "log.jsonl", "a", encoding="utf-8") as f:
                    f.write(line + "\n")

    # -- real time -------------------------------------------------------------
    @staticmethod
    def wait_until(t_ns: int, stop_event: threading.Event | None = None) -> bool:
        """Sleep until CLOCK_MONOTONIC reaches `t_ns`; False when `stop_event` was set first."""
        while True:
            left = t_ns - time.monotonic_ns()
            if left <= 0:
                return True
            if stop_event is None:
                time.sleep(left / 1e9)
            elif stop_event.wait(left / 1e9):
                return False

    def subscribe_line(self, chip: str, offset: int, fn: LineFn) -> Callable[[], None]:
        """Call `fn(t_ns, level)` on a world thread at (about) each level change of the line from now on,
        with its exact stamp (late if the machine is busy, never reordered); returns an unsubscribe."""
        sub = _Sub((chip_path(chip), offset), fn, time.monotonic_ns() - 1)
        with self._lock:
            if self._closed:
                raise RuntimeError("this world is closed")
            self._subs.append(sub)
            if self._thread is None:
                self._thread = threading.Thread(target=self._dispatch, name="fake-world", daemon=True)
                self._thread.start()
            self._wake.notify_all()

        def unsubscribe() -> None:
            with self._lock:
                if sub in self._subs:
                    self._subs.remove(sub)
        return unsubscribe

    def close(self) -> None:
        """Stop the world thread (subscribers hear nothing more)."""
        with self._lock:
            self._closed = True
            self._subs.clear()
            self._wake.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)

    def _due(self) -> tuple[int, list[tuple[_Sub, int, int]]]:
        """(when the next change falls, the deliveries due at it), under the lock."""
        nxt = None
        heap: list[tuple[int, int, _Sub, int]] = []
        counter = itertools.count()
        late = [(sub, t, level) for sub in self._subs for t, level in sub.late]
        if late:
            for sub in self._subs:
                sub.late.clear()
            return 0, late
        for sub in self._subs:
            changes = self._changes_of(sub.key)
            i = bisect.bisect_right(changes, (sub.last_ns, 2))
            if i < len(changes):
                heapq.heappush(heap, (changes[i][0], next(counter), sub, changes[i][1]))
        if heap:
            nxt = heap[0][0]
        return (-1 if nxt is None else nxt), [(s, t, lv) for t, _, s, lv in heap if t == nxt]

    def _dispatch(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                when, due = self._due()  # before t0 only drives happen
                if when < 0:
                    starting = self.folder is not None and self.t0_ns() is None
                    self._wake.wait(0.002 if starting else 0.05 if self.folder is not None else None)
                    continue
                left = when - time.monotonic_ns()
                if left > 0:
                    self._wake.wait(min(left / 1e9, 0.05))
                    continue
                for sub, t, _ in due:
                    sub.last_ns = max(sub.last_ns, t)
            for sub, t, level in due:
                try:
                    sub.fn(t, level)
                except Exception:  # one broken fake must not stop the world
                    log_.exception("world subscriber %r failed", sub.fn)


@dataclass(eq=False)
class _Sub:
    key: tuple[str, int]
    fn: LineFn
    last_ns: int
    late: list[tuple[int, int]] = field(default_factory=list)


_WORLD: World | None = None
_WORLD_LOCK = threading.Lock()


def load(folder: str | Path) -> World:
    """Read DIR/world.json (strictly), make it the process's world and return it."""
    new = _read(Path(folder))
    install(new)
    return new


def _read(folder: Path) -> World:
    try:
        spec = json.loads((folder / "world.json").read_text())
    except FileNotFoundError:
        spec = {}
    except json.JSONDecodeError as exc:
        raise WorldError(f"{folder / 'world.json'}: {exc}") from None
    return World(spec, folder=folder)


def install(new: World | None) -> World | None:
    """Make `new` the process's world (None: read TABLETOP_FAKE_WORLD again next time); stops the old one."""
    global _WORLD
    with _WORLD_LOCK:
        old, _WORLD = _WORLD, new
    if old is not None and old is not new:
        old.close()
    return new


def world() -> World:
    """The process's world: installed, else loaded from $TABLETOP_FAKE_WORLD, else empty and at rest."""
    global _WORLD
    with _WORLD_LOCK:
        if _WORLD is None:
            folder = os.environ.get(ENV)
            _WORLD = _read(Path(folder)) if folder else World()
        return _WORLD

"""A fake of the `lgpio` Python module (lg 0.2, joan2937/lg) as gpiozero 2.x's pins/lgpio.py uses it.

Modelled on lg's sources:
- PY_LGPIO/lgpio_extra.py: constants; a handle is `(chip number << 16) | handle`;
  failures raise `lgpio.error(error_text)`; `callback()` callbacks are matched by
  chip and gpio and called on one notification thread with (chip, gpio, level, tick),
  where tick is the kernel's edge stamp in ns (gpiozero divides it by 1e9); an
  exception in a callback kills that thread, as in lgpio.
- lgGpio.c: `gpiochip_open(n)` opens /dev/gpiochip<n> (missing: "can not open
  gpiochip"); claiming a line that already is an input (or output) is a no-op, so
  flags change only by free + claim; `gpio_claim_alert` frees the line and makes a
  one-line v2 request with the edge flags; `gpio_get_mode` is the kernel's line
  flags (xMakeStatus) | lg's mode << 8; `gpio_read` of an unclaimed line claims it.
- lgPthAlerts.c: one alert thread ppolls every 0.5 ms, reads up to 128 events a
  line, turns each into a report (level = 2 - event id), debounces as xDebWatEvt,
  sorts the reports by stamp and emits only those at least 0.5 ms old. Both
  0.5 ms figures are the world's `kernel.lgpio_poll_us`.
The kernel behind it (stamps, coalesced bounce, FIFO) is gpiod/_kernel.py
(linux gpiolib-cdev.c); chips and levels come from tests/fakeos/world.py.
"""
from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import world as world_mod
from gpiod import _kernel

LGPIO_PY_VERSION = 0x00020200
exceptions = True

OFF = LOW = CLEAR = 0
ON = HIGH = SET = 1
TIMEOUT = 2
SET_ACTIVE_LOW, SET_OPEN_DRAIN, SET_OPEN_SOURCE = 4, 8, 16
SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE = 32, 64, 128
SET_BIAS_PULL_UP, SET_BIAS_PULL_DOWN, SET_BIAS_DISABLE = SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE
RISING_EDGE, FALLING_EDGE, BOTH_EDGES = 1, 2, 3

OKAY = 0
BAD_HANDLE = -5
BAD_EVENT_REQUEST = -72
BAD_GPIO_NUMBER = -73
CANNOT_OPEN_CHIP = -78
GPIO_BUSY = -79
GPIO_NOT_ALLOCATED = -80
BAD_GPIOCHIP = -89
BAD_DEBOUNCE_MICS = -98
GPIO_NOT_AN_OUTPUT = -104
_TEXT = {BAD_HANDLE: "unknown handle", BAD_EVENT_REQUEST: "bad event request", BAD_GPIO_NUMBER: "bad GPIO number",
         CANNOT_OPEN_CHIP: "can not open gpiochip", GPIO_BUSY: "GPIO busy",
         GPIO_NOT_ALLOCATED: "GPIO not allocated", BAD_GPIOCHIP: "bad gpiochip",
         BAD_DEBOUNCE_MICS: "bad debounce microseconds", GPIO_NOT_AN_OUTPUT: "GPIO not an output"}

# lgpio.h: kernel line status bits (xMakeStatus) and lg's own mode bits (<< 8 in gpio_get_mode)
_IS_KERNEL, _IS_OUTPUT, _IS_ACTIVE_LOW = 1, 2, 4
_IS_INPUT, _IS_RISING, _IS_FALLING = 65536, 131072, 262144
_MODE_INPUT, _MODE_OUTPUT, _MODE_ALERT = 1, 2, 4
_BIAS = {SET_PULL_UP: "pull-up", SET_PULL_DOWN: "pull-down", SET_PULL_NONE: "disabled"}
_BIAS_BITS = {"pull-up": SET_PULL_UP, "pull-down": SET_PULL_DOWN, "disabled": SET_PULL_NONE}
MAX_ALERTS_PER_READ = 128


class error(Exception):
    """lgpio module exception (its str is the repr of lg's error text, as in lgpio_extra.py)."""

    def __init__(self, value: str) -> None:
        super().__init__(value)
        self.value = value

    def __str__(self) -> str:
        return repr(self.value)


def error_text(code: int) -> str:
    return _TEXT.get(code, f"unknown error {code}")


def _fail(code: int) -> Any:
    raise error(error_text(code))


@dataclass(eq=False)
class _Claim:
    mode: int
    request: _kernel.Request
    eflags: int = 0
    pwm: tuple[float, float] | None = None


@dataclass(eq=False)
class _Chip:
    number: int
    path: str
    lines: int
    label: str
    world: Any
    claims: dict[int, _Claim] = field(default_factory=dict)
    debounce_us: dict[int, int] = field(default_factory=dict)


_lock = threading.RLock()
_chips: dict[int, _Chip] = {}
_next_handle = 0


def get_module_version() -> int:
    return LGPIO_PY_VERSION


def _chip(handle: int) -> _Chip:
    chip = _chips.get(handle & 0xFFFF)
    return chip if chip is not None else _fail(BAD_HANDLE)


def gpiochip_open(gpiochip: int) -> int:
    """Open /dev/gpiochip<gpiochip> of the world's board; a missing chip raises lgpio.error."""
    global _next_handle
    if gpiochip < 0:
        _fail(BAD_GPIOCHIP)
    w = world_mod.world()
    found = w.chip(f"/dev/gpiochip{gpiochip}")
    if found is None:
        _fail(CANNOT_OPEN_CHIP)
    with _lock:
        handle, _next_handle = _next_handle, _next_handle + 1
        _chips[handle] = _Chip(gpiochip, found.path, found.lines, found.label, w)
    return handle | (gpiochip << 16)


def gpiochip_close(handle: int) -> int:
    with _lock:
        chip = _chip(handle)
        for gpio in list(chip.claims):
            _free(chip, gpio)
        del _chips[handle & 0xFFFF]
    return OKAY


def gpio_get_chip_info(handle: int) -> list[Any]:
    """[status, lines, name, label] (GPIO_GET_CHIPINFO_IOCTL)."""
    chip = _chip(handle)
    return [OKAY, chip.lines, f"gpiochip{chip.number}", chip.label]


def gpio_get_line_info(handle: int, gpio: int) -> list[Any]:
    """[status, gpio, line flags (as gpio_get_mode), name, user]."""
    chip = _chip(handle)
    claim = chip.claims.get(gpio)
    return [OKAY, gpio, gpio_get_mode(handle, gpio), "", "lg" if claim else ""]


def gpio_get_mode(handle: int, gpio: int) -> int:
    """The line's kernel flags (xMakeStatus) | lg's mode << 8."""
    chip = _line(handle, gpio)
    claim = chip.claims.get(gpio)
    if claim is None:
        return _IS_INPUT | (_IS_KERNEL if _kernel.is_requested(chip.path, gpio, chip.world) else 0)
    cfg = claim.request.lines[gpio].cfg
    status = _IS_KERNEL | (_IS_OUTPUT if cfg.output else _IS_INPUT) | _BIAS_BITS.get(cfg.bias, 0)
    status |= (_IS_ACTIVE_LOW if cfg.active_low else 0) | (_IS_RISING if cfg.rising else 0)
    return status | (_IS_FALLING if cfg.falling else 0) | (claim.mode << 8)


def _line(handle: int, gpio: int) -> _Chip:
    chip = _chip(handle)
    if not 0 <= gpio < chip.lines:
        _fail(BAD_GPIO_NUMBER)
    return chip


def _claim(chip: _Chip, gpio: int, mode: int, lflags: int, *, eflags: int = 0, level: int = 0) -> None:
    _free(chip, gpio)
    cfg = _kernel.LineConfig(output=mode == _MODE_OUTPUT, rising=bool(eflags & RISING_EDGE),
                             falling=bool(eflags & FALLING_EDGE), active_low=bool(lflags & SET_ACTIVE_LOW),
                             bias=next((b for bit, b in _BIAS.items() if lflags & bit), "as-is"), output_value=level)
    try:
        request = _kernel.Request(chip.path, {gpio: cfg}, consumer="lg", world=chip.world,
                                  on_wake=_alerts.wake if eflags else None)
    except OSError:
        _fail(BAD_EVENT_REQUEST if eflags else GPIO_BUSY)
    chip.claims[gpio] = _Claim(mode, request, eflags)
    if eflags:
        _alerts.add(chip, gpio, request, eflags)


def _free(chip: _Chip, gpio: int) -> None:
    claim = chip.claims.pop(gpio, None)
    if claim is not None:
        _alerts.remove(claim.request)
        claim.request.release()


def gpio_claim_input(handle: int, gpio: int, lFlags: int = 0) -> int:
    """Claim as input; a no-op when already an input (lgGpio.c xSetAsInput)."""
    with _lock:
        chip = _line(handle, gpio)
        claim = chip.claims.get(gpio)
        if claim is None or claim.mode != _MODE_INPUT:
            _claim(chip, gpio, _MODE_INPUT, lFlags)
    return OKAY


def gpio_claim_output(handle: int, gpio: int, level: int = 0, lFlags: int = 0) -> int:
    """Claim as output driving `level`; a no-op when already an output (lgGpio.c xSetAsOutput)."""
    with _lock:
        chip = _line(handle, gpio)
        claim = chip.claims.get(gpio)
        if claim is None or claim.mode != _MODE_OUTPUT:
            _claim(chip, gpio, _MODE_OUTPUT, lFlags, level=level)
    return OKAY


def gpio_free(handle: int, gpio: int) -> int:
    with _lock:
        chip = _line(handle, gpio)
        if gpio not in chip.claims:
            _fail(GPIO_NOT_ALLOCATED)
        _free(chip, gpio)
    return OKAY


def gpio_claim_alert(handle: int, gpio: int, eFlags: int, lFlags: int = 0, notify_handle: int | None = None) -> int:
    """Free the line and request it for edge events (a one-line v2 request), reported by the alert thread."""
    with _lock:
        _claim(_line(handle, gpio), gpio, _MODE_ALERT, lFlags, eflags=eFlags)
    return OKAY


def gpio_read(handle: int, gpio: int) -> int:
    """The line's logical level now (an unclaimed line is claimed as an input first)."""
    with _lock:
        chip = _line(handle, gpio)
        if gpio not in chip.claims:
            _claim(chip, gpio, _MODE_INPUT, 0)
        request = chip.claims[gpio].request
    return request.value(gpio)


def gpio_write(handle: int, gpio: int, level: int) -> int:
    with _lock:
        chip = _line(handle, gpio)
        claim = chip.claims.get(gpio)
        if claim is None:
            _claim(chip, gpio, _MODE_OUTPUT, 0, level=level)
        elif claim.mode != _MODE_OUTPUT:
            _fail(GPIO_NOT_AN_OUTPUT)
        else:
            claim.request.set_value(gpio, level)
    return OKAY


def tx_pwm(handle: int, gpio: int, pwm_frequency: float, pwm_duty_cycle: float, pulse_offset: int = 0,
           pulse_cycles: int = 0) -> int:
    """Software PWM: recorded (gpiozero's PWM LEDs), not turned into level changes."""
    with _lock:
        chip = _line(handle, gpio)
        if chip.claims.get(gpio) is None or chip.claims[gpio].mode != _MODE_OUTPUT:
            _claim(chip, gpio, _MODE_OUTPUT, 0)
        chip.claims[gpio].pwm = None if not pwm_frequency else (pwm_frequency, pwm_duty_cycle)
    return OKAY


def gpio_set_debounce_micros(handle: int, gpio: int, debounce_micros: int) -> int:
    """lg's own debounce of alerts (xDebWatEvt): report an edge once stable for that long, stamped then."""
    if not 0 <= debounce_micros <= 5_000_000:
        _fail(BAD_DEBOUNCE_MICS)
    with _lock:
        _line(handle, gpio).debounce_us[gpio] = debounce_micros
        _alerts.set_debounce(handle & 0xFFFF, gpio, debounce_micros)
    return OKAY


class _Callback:
    """What `callback()` returns: cancel() removes it; without a function it counts edges (tally)."""

    def __init__(self, chip: int, gpio: int, edge: int, func: Callable[[int, int, int, int], None] | None) -> None:
        self.chip, self.gpio, self.edge, self.count = chip, gpio, edge, 0
        self.func = func if func is not None else self._tally
        _alerts.callbacks.append(self)

    def _tally(self, chip: int, gpio: int, level: int, tick: int) -> None:
        self.count += 1

    def tally(self) -> int:
        return self.count

    def reset_tally(self) -> None:
        self.count = 0

    def cancel(self) -> None:
        if self in _alerts.callbacks:
            _alerts.callbacks.remove(self)


def callback(handle: int, gpio: int, edge: int = RISING_EDGE,
             func: Callable[[int, int, int, int], None] | None = None) -> _Callback:
    """Call `func(chip, gpio, level, tick)` for every alert of that gpio (tick: kernel ns)."""
    return _Callback(handle >> 16, gpio, edge, func)


@dataclass(eq=False)
class _AlertRec:
    chip: _Chip
    gpio: int
    request: _kernel.Request
    eflags: int
    debounce_ns: int = 0
    debounced: bool = True
    last_evt_ts: int = 0
    last_evt_lv: int = 0
    last_rpt_lv: int = -1


class _Alerts:
    """lgPthAlerts.c's alert thread, and lgpio_extra.py's notification thread behind the pipe."""

    def __init__(self) -> None:
        self.callbacks: list[_Callback] = []
        self._recs: list[_AlertRec] = []
        self._cond = threading.Condition(threading.Lock())
        self._reports: queue.SimpleQueue[tuple[int, int, int, int]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._notifier: threading.Thread | None = None
        self._woken = False

    def wake(self) -> None:
        with self._cond:
            self._woken = True
            self._cond.notify_all()

    def add(self, chip: _Chip, gpio: int, request: _kernel.Request, eflags: int) -> None:
        rec = _AlertRec(chip, gpio, request, eflags, chip.debounce_us.get(gpio, 0) * 1000)
        with self._cond:
            self._recs.append(rec)
            if self._thread is None:
                self._thread = threading.Thread(target=self._alert_loop, name="lgpio-alerts", daemon=True)
                self._thread.start()
            if self._notifier is None or not self._notifier.is_alive():  # a test after a crashed callback
                self._notifier = threading.Thread(target=self._notify_loop, name="lgpio-notify", daemon=True)
                self._notifier.start()
            self._woken = True
            self._cond.notify_all()

    def remove(self, request: _kernel.Request) -> None:
        with self._cond:
            self._recs = [r for r in self._recs if r.request is not request]

    def set_debounce(self, handle: int, gpio: int, micros: int) -> None:
        with self._cond:
            for rec in self._recs:
                if rec.chip is _chips.get(handle) and rec.gpio == gpio:
                    rec.debounce_ns = micros * 1000

    def _event(self, rec: _AlertRec, ts: int | None, level: int, out: list[tuple[int, int, int, int]]) -> None:
        """xDebWatEvt: debounce (when set), then the event itself; `ts` None is the periodic check."""
        now = time.monotonic_ns() - 50_000 if ts is None else ts
        if rec.debounce_ns and not rec.debounced and now - rec.last_evt_ts > rec.debounce_ns:
            if rec.eflags != BOTH_EDGES or rec.last_rpt_lv != rec.last_evt_lv:
                out.append((rec.last_evt_ts + rec.debounce_ns, rec.chip.number, rec.gpio, rec.last_evt_lv))
                rec.last_rpt_lv = rec.last_evt_lv
            rec.debounced = True
        if ts is not None:
            rec.last_evt_ts, rec.last_evt_lv, rec.debounced = ts, level, False
            if not rec.debounce_ns:
                out.append((ts, rec.chip.number, rec.gpio, level))
                rec.last_rpt_lv = level

    def _alert_loop(self) -> None:
        buffered: list[tuple[int, int, int, int]] = []
        while True:
            poll_ns = round(world_mod.world().kernel.lgpio_poll_us * 1000)
            with self._cond:
                recs = list(self._recs)
            for rec in recs:
                try:
                    events = rec.request.read(MAX_ALERTS_PER_READ, block=False)
                except OSError:      # freed while we looked
                    continue
                for ev in events:
                    self._event(rec, ev.timestamp_ns, 1 if ev.rising else 0, buffered)
                self._event(rec, None, 0, buffered)
            buffered.sort()
            due = time.monotonic_ns() - poll_ns
            while buffered and buffered[0][0] <= due:
                self._reports.put(buffered.pop(0))
            if buffered or any(r.debounce_ns and not r.debounced for r in recs):
                time.sleep(poll_ns / 1e9)
                continue
            nexts = [t for t in (r.request.next_activity() for r in recs) if t is not None]
            with self._cond:
                wait = (min(nexts) - time.monotonic_ns()) / 1e9 if nexts else 0.05 if recs else None
                if not self._woken and (wait is None or wait > 0):
                    self._cond.wait(None if wait is None else min(wait, 0.05))
                self._woken = False

    def _notify_loop(self) -> None:
        while True:
            tick, chip, gpio, level = self._reports.get()
            for cb in list(self.callbacks):
                if cb.chip == chip and cb.gpio == gpio:
                    cb.func(chip, gpio, level, tick)  # an exception ends this thread, as in lgpio


_alerts = _Alerts()

"""The MPR121 of the smbus2 fake: registers and behaviour per the NXP datasheet (rev. 4/5), in real time.

A model thread wakes at the chip's status updates; every register access first
brings the model up to now (CLOCK_MONOTONIC). Modelled, with the datasheet's
section:
- reset: every register 0 but 0x5C = 0x10 and 0x5D = 0x24; soft reset is 0x63
  written to 0x80 (5.1, 5.13). Writes only in stop mode, except ECR (0x5E) and
  the GPIO registers 0x73-0x7A (5.1); reads any time.
- ECR: ELE_EN / ELEPROX_EN non-zero is run mode, all zero stop mode; ELEPROX is
  scanned first, then ELE0, ELE1... (5.11). CL loads the baseline at run entry:
  00 keep the registers, 01 no tracking, 10 the first data's 5 high bits, 11 all
  10 bits (5.11).
- acquisition: a scan every ESI ms, each channel charged FFI times at CDT (first
  filter: their average); a scan longer than ESI (FFI x 2 CDT x channels)
  stretches the interval (5.8, AN3890). The second filter averages SFI scans:
  filtered data, baselines and status update once per ESI x SFI, when the
  block's last scan is done (5.2-5.4).
- touch when baseline - filtered > touch threshold, release when < release
  threshold (5.6); DT/DR more detections in a row before the status moves, a
  delay of ESI x SFI x DT (5.7).
- baseline tracking (5.5, AN3891): rising / falling / touched, each with MHD,
  NHD, NCL, FDL (ELEPROX its own set, 0x36-0x40). As modelled: the filter acts
  every FDL+1 updates; a difference within MHD is taken at once; a larger one
  moves the baseline NHD toward the data once it has lasted more than NCL
  updates (touched: no MHD). Baseline registers hold the 8 high bits; a write
  clears the 2 low ones (5.4).
- ELEPROX (AN3893): ELE0-1, 0-3 or 0-11 charged together: one reading for them
  all, with its own thresholds (0x59/0x5A) -- it cannot tell whose hand it is.
- status 0x00/0x01: ELE0-11, ELEPROX (bit 12), OVCF (bit 15). Over-current
  (`Mpr121.short_rext()`) sets OVCF, stops the chip, clears status, outputs and
  ECR bits 5-0, and discards run-mode ECR writes until OVCF is written 1 (5.2).
- IRQ (pin 1, open drain, active low; "Serial Communication"): pulled low at the
  update where a touch/release status bit changes, released when 0x00 or 0x01
  is read; driven with `World.drive` on the line wired `"mpr121_irq"`, stamped
  at the update. A copy of the model runs LOOK_AHEAD_NS ahead and puts its lows
  on the line early, so the edge is on time whatever Python's scheduling.
- block reads auto-increment (table 2); one read of 0x00-0x2A is one moment (5.3).
Not modelled: noise, per-electrode CDC/CDT and autoconfiguration (OOR stays 0),
GPIO/LED functions (their registers only store bytes).

Hands (physics, not the datasheet): smbus2/hands.py.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from world import World, mpr121_key  # tests/fakeos is first on sys.path, as for every fake

from .hands import Hands
PROX = 12                          # channel index of ELEPROX (registers 0x1C/0x1D, 0x2A, 0x59/0x5A)
_FFI = (6, 10, 18, 34)
_SFI = (4, 6, 10, 18)
_PROX_SETS = ((), (0, 1), (0, 1, 2, 3), tuple(range(12)))
_ANYTIME_WRITES = frozenset({0x5E, *range(0x73, 0x7B)})
LOOK_AHEAD_NS = 50_000_000
_STATE = ("acc", "filt", "base", "touched", "deb", "ncount", "fcount", "scen", "k", "first_block")


@dataclass(frozen=True)
class _Run:
    """The settings a run uses, read from the registers when it starts (they cannot change while running)."""

    scan: tuple[int, ...]          # channels in scan order (ELEPROX first)
    prox_set: tuple[int, ...]
    ffi: int
    sfi: int
    cdt_ns: int
    interval_ns: int
    scan_ns: int
    scale: float
    cl: int
    tth: tuple[int, ...]
    rth: tuple[int, ...]
    dt: int
    dr: int
    filters: tuple[tuple[int, ...], tuple[int, ...]]   # 11 bytes each: electrodes 0x2B-0x35, ELEPROX 0x36-0x40

    @classmethod
    def from_regs(cls, regs: bytearray) -> "_Run":
        ecr, afe1, afe2 = regs[0x5E], regs[0x5C], regs[0x5D]
        ele = min(ecr & 0x0F, 12)
        prox_set = _PROX_SETS[ecr >> 4 & 3]
        scan = ((PROX,) if prox_set else ()) + tuple(range(ele))
        ffi, cdt_code = _FFI[afe1 >> 6], afe2 >> 5
        cdt_ns = 0 if cdt_code == 0 else 250 << cdt_code            # 0.5 µs x 2**(code-1)
        scan_ns = ffi * 2 * cdt_ns * len(scan)
        return cls(scan, prox_set, ffi, _SFI[afe2 >> 3 & 3], cdt_ns,
                   max(1_000_000 << (afe2 & 7), scan_ns), scan_ns, (afe1 & 0x3F) * cdt_ns / (16 * 500),
                   ecr >> 6, tuple(regs[0x41:0x5B:2]), tuple(regs[0x42:0x5B:2]),
                   regs[0x5B] & 7, regs[0x5B] >> 4 & 7, (tuple(regs[0x2B:0x36]), tuple(regs[0x36:0x41])))


class Mpr121:
    """One MPR121 on a bus, driven by the world's contacts and hovers (see the module docstring)."""

    def __init__(self, w: World, bus: int, address: int) -> None:
        self.world, self.bus, self.address = w, bus, address
        self.key = mpr121_key(bus, address)
        self.wiring: dict[int, tuple[int, str]] = dict(w.mpr121.get(self.key, {}))
        self.irq_line = next(((chip, off) for (chip, off), wire in w.wires.items() if wire.mpr121_irq == self.key), None)
        self.cond = threading.Condition()
        self.status_changes: list[tuple[int, int]] = []      # (t_ns, status) at every status change
        self._thread: threading.Thread | None = None
        self._closed = False
        self.hands = Hands(w, bus, address, self.wiring)
        self.irq_low = False
        self._pending: list[int] = []            # IRQ lows on the line ahead, for updates still to come
        self._committed = 0                      # the latest of them
        self._ahead: dict[str, Any] | None = None   # the model's state run ahead (see _look_ahead)
        self._ahead_t0: int | None = None
        self._dry = False                        # while running ahead: no side effects...
        self._dry_changes: list[int] = []        # ...and the updates that change the status noted
        self._reset()

    # -- registers ------------------------------------------------------------
    def _reset(self) -> None:
        self.regs = bytearray(0x81)
        self.regs[0x5C], self.regs[0x5D] = 0x10, 0x24
        self.run: _Run | None = None
        self.base, self.filt, self.touched = [0] * 13, [0] * 13, [False] * 13
        self.deb, self.ncount, self.fcount, self.scen, self.acc = [0] * 13, [0] * 13, [0] * 13, [0] * 13, [0] * 13
        self.k, self.run_t, self.first_block, self.ovcf = 0, 0, True, False
        self._release_irq(time.monotonic_ns())

    def read(self, register: int, length: int) -> list[int]:
        """A multi-byte read from `register` (auto-increment); reading 0x00 or 0x01 releases IRQ."""
        with self.cond:
            now = time.monotonic_ns()
            self._advance(now)
            out = [self.regs[r] if r <= 0x80 else 0 for r in range(register, register + length)]
            if register <= 1 < register + length or register == 0:
                self._release_irq(now)
            return out

    def write(self, register: int, value: int) -> None:
        """One register write, with the datasheet's stop-mode rule."""
        with self.cond:
            now = time.monotonic_ns()
            self._advance(now)
            if register == 0x80 or (register == 0x5E and value & 0x3F != self.regs[0x5E] & 0x3F):
                self._cancel_pending()
            if register == 0x80:
                if value == 0x63:
                    self._reset()
            elif register == 0x01 and value & 0x80:
                self.ovcf = False
                self._publish()
            elif register == 0x5E:
                self._write_ecr(now, value)
            elif self.run is None or register in _ANYTIME_WRITES:
                if 0x1E <= register <= 0x2A:
                    self.base[register - 0x1E] = value << 2
                    self.regs[register] = value
                elif register > 0x2A:
                    self.regs[register] = value
            self.cond.notify_all()

    def short_rext(self) -> None:
        """Over-current on REXT: OVCF set, stop mode, status and outputs cleared (datasheet 5.2)."""
        with self.cond:
            self._advance(time.monotonic_ns())
            self._cancel_pending()
            self.ovcf, self.run = True, None
            self.regs[0x5E] &= 0xC0
            self.touched, self.filt, self.base = [False] * 13, [0] * 13, [0] * 13
            self._publish()

    def _write_ecr(self, now: int, value: int) -> None:
        if self.ovcf and value & 0x3F:
            return                                   # discarded while OVCF is set
        was = self.regs[0x5E] & 0x3F
        self.regs[0x5E] = value
        if not value & 0x3F:
            self.run = None
        elif value & 0x3F != was or self.run is None:
            self.run = _Run.from_regs(self.regs)
            self.k, self.run_t, self.first_block = 0, now, True
            self.acc = [0] * 13
            self.deb = [0] * 13
            self._start_thread()

    def _publish(self) -> None:
        """Write the outputs into 0x00-0x2A at once, so one block read sees one moment."""
        status = self.status_word()
        r = self.regs
        r[0x00], r[0x01] = status & 0xFF, status >> 8 & 0xFF
        for c in range(13):
            r[0x04 + 2 * c], r[0x05 + 2 * c] = self.filt[c] & 0xFF, self.filt[c] >> 8 & 3
            r[0x1E + c] = self.base[c] >> 2 & 0xFF

    def status_word(self) -> int:
        """Registers 0x01:0x00 as one int: bits 0-11 ELE0-11, 12 ELEPROX, 15 OVCF."""
        return sum(1 << c for c in range(13) if self.touched[c]) | (0x8000 if self.ovcf else 0)

    # -- the IRQ output -----------------------------------------------------------
    def _assert_irq(self, t_ns: int) -> None:
        on_line = t_ns in self._pending
        if on_line:
            self._pending.remove(t_ns)
        if not self.irq_low:
            self.irq_low = True
            if self.irq_line is not None and not on_line:
                self.world.drive(self.irq_line[0], self.irq_line[1], t_ns, 0)

    def _cancel_pending(self) -> None:
        """A write stops or restarts the chip: IRQ lows put on the line for its future updates are
        taken back (a zero-width glitch at each, the price of putting them there ahead)."""
        for t in self._pending:
            if self.irq_line is not None:
                self.world.drive(self.irq_line[0], self.irq_line[1], t, 1)
        self._pending, self._ahead = [], None

    def _release_irq(self, t_ns: int) -> None:
        if self.irq_low:
            self.irq_low = False
            if self.irq_line is not None:
                self.world.drive(self.irq_line[0], self.irq_line[1], t_ns, 1)

    # -- physics --------------------------------------------------------------------
    def _first_level(self, run: _Run, tc: int) -> list[int]:
        """Each channel's first-filter output for the scan starting at `tc` (13 values)."""
        hands = self.hands
        i = hands.index(tc)
        here = hands.counts(i, run.prox_set, run.scale)
        change = hands.next_change(tc)
        if change is None or change > tc + run.scan_ns:
            return here
        burst = run.ffi * 2 * run.cdt_ns                              # an input changed during this scan
        for pos, c in enumerate(run.scan):
            reads = [tc + pos * burst + (2 * m + 1) * run.cdt_ns for m in range(run.ffi)]
            here[c] = sum(hands.counts(hands.index(t), run.prox_set, run.scale)[c] for t in reads) // run.ffi
        return here

    # -- the model ------------------------------------------------------------------
    def _advance(self, now: int) -> None:
        """Run every scan that has finished by `now`."""
        run = self.run
        if run is None:
            return
        self.hands.refresh()
        while True:
            tc = self.run_t + self.k * run.interval_ns
            if tc + run.scan_ns > now:
                return
            if self.k % run.sfi == 0 and self._steady(run, tc):
                self._skip(run, now)
                tc = self.run_t + self.k * run.interval_ns
                if tc + run.scan_ns > now:
                    return
            for c, v in zip(range(13), self._first_level(run, tc)):
                self.acc[c] += v
            self.k += 1
            if self.k % run.sfi == 0:
                self._update(run, tc + run.scan_ns)

    def _update(self, run: _Run, t_ns: int) -> None:
        """The second filter's output: filtered data, detection and baseline, once per ESI x SFI."""
        before = self.status_word()
        for c in run.scan:
            data = self.acc[c] // run.sfi
            self.filt[c] = data
            if self.first_block and run.cl >= 2:
                self.base[c] = data & 0x3E0 if run.cl == 2 else data
            self._detect(run, c, data)
            if run.cl != 1:
                self._track(run, c, data)
        self.acc = [0] * 13
        self.first_block = False
        if not self._dry:
            self._publish()
        status = self.status_word()
        if self._dry:
            if status & 0x1FFF != before & 0x1FFF:
                self._dry_changes.append(t_ns)
        elif status & 0x1FFF != before & 0x1FFF:
            self.status_changes.append((t_ns, status))
            self.world.log({"fake": "smbus2", "chip": self.key, "t_ns": t_ns, "status": f"{status:#06x}"})
            self._assert_irq(t_ns)

    def _detect(self, run: _Run, c: int, data: int) -> None:
        delta = self.base[c] - data
        if self.touched[c]:
            hit, limit = delta < run.rth[c], run.dr
        else:
            hit, limit = delta > run.tth[c], run.dt
        self.deb[c] = self.deb[c] + 1 if hit else 0
        if self.deb[c] > limit:
            self.touched[c], self.deb[c] = not self.touched[c], 0

    def _track(self, run: _Run, c: int, data: int) -> None:
        f = run.filters[c == PROX]
        d = data - self.base[c]
        if self.touched[c]:
            scen, mhd, nhd, ncl, fdl = 3, None, f[8], f[9], f[10]
        elif d:
            i = 0 if d > 0 else 4
            scen, mhd, nhd, ncl, fdl = (1 if d > 0 else 2), f[i] & 0x3F, f[i + 1] & 0x3F, f[i + 2], f[i + 3]
        else:
            self.scen[c] = self.ncount[c] = self.fcount[c] = 0
            return
        if scen != self.scen[c]:
            self.scen[c], self.ncount[c], self.fcount[c] = scen, 0, 0
        self.fcount[c] += 1
        if self.fcount[c] <= fdl:
            return
        self.fcount[c] = 0
        if mhd is not None and abs(d) <= mhd:
            self.base[c], self.ncount[c] = data, 0
            return
        self.ncount[c] += 1
        if self.ncount[c] > ncl and d:
            step = min(nhd & 0x3F, abs(d))
            self.base[c] += step if d > 0 else -step
            self.ncount[c] = 0

    def _steady(self, run: _Run, tc: int) -> bool:
        """True when the next blocks would change nothing while the inputs stay as at `tc`."""
        change = self.hands.next_change(tc)
        if self.first_block or (change is not None and change <= tc + run.interval_ns * run.sfi):
            return False
        vals = self.hands.counts(self.hands.index(tc), run.prox_set, run.scale)
        for c in run.scan:
            data, base = vals[c], self.base[c]
            if data != self.filt[c] or self.deb[c]:
                return False
            delta = base - data
            if (delta < run.rth[c]) if self.touched[c] else (delta > run.tth[c]):
                return False
            frozen = self.touched[c] and run.filters[c == PROX][8] & 0x3F == 0
            if not (run.cl == 1 or data == base or frozen):
                return False
        return True

    def _skip(self, run: _Run, now: int) -> None:
        """Jump whole blocks while steady, up to `now` or the next change of the inputs."""
        tc = self.run_t + self.k * run.interval_ns
        change = self.hands.next_change(tc)
        limit = now if change is None else min(now, change - 1)
        blocks = (limit - run.scan_ns - tc - (run.sfi - 1) * run.interval_ns) // (run.interval_ns * run.sfi)
        if blocks > 0:
            self.k += blocks * run.sfi

    def _start_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name=f"fake-mpr121-{self.key}", daemon=True)
            self._thread.start()

    def _state(self) -> dict[str, Any]:
        return {n: list(v) if isinstance(v, list) else v for n in _STATE for v in [getattr(self, n)]}

    def _look_ahead(self, horizon: int) -> None:
        """Run a copy of the model on to `horizon` and put the IRQ lows it makes on the line now, each
        stamped at its update: the chip pulls the line in hardware, on time, whatever Python's
        scheduling of this thread. Only a write that stops or restarts the chip changes that future."""
        if self.run is None or self.irq_line is None:
            return
        real = self._state()
        if self._ahead is None or self._ahead["k"] < self.k or self._ahead_t0 != self.hands.t0:
            self._ahead = self._state()                      # (re)start from the model as it is now
        for n, v in self._ahead.items():
            setattr(self, n, v)
        self._dry, self._dry_changes = True, []
        try:
            self._advance(horizon)
        finally:
            self._ahead, self._ahead_t0 = self._state(), self.hands.t0
            for n, v in real.items():
                setattr(self, n, v)
            self._dry = False
        for t in self._dry_changes:
            if t > self._committed:
                self.world.drive(self.irq_line[0], self.irq_line[1], t, 0)
                self._pending.append(t)
                self._committed = t

    def _loop(self) -> None:
        with self.cond:
            while not self._closed:
                now = time.monotonic_ns()
                self._advance(now)
                self._look_ahead(now + LOOK_AHEAD_NS)
                self.cond.wait(None if self.run is None else LOOK_AHEAD_NS / 4e9)

    def close(self) -> None:
        """Stop the model thread (the chip stops answering for this world)."""
        with self.cond:
            self._closed = True
            self.cond.notify_all()

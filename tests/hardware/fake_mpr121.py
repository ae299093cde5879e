"""A fake I2C bus holding one MPR121 that follows the datasheet's register map.

What it models: reset values (0x5C = 0x10, 0x5D = 0x24, everything else 0),
soft reset by writing 0x63 to 0x80, configuration writes ignored in run mode
(ECR != 0) except to ECR itself, 2-byte touch status at 0x00/0x01 whose read
releases the IRQ, filtered data (0x04.., 10 bits in two bytes), baselines
(0x1E.., 8 high bits), and wrong addresses failing like a missing device.
"""
from __future__ import annotations

import errno
from typing import Callable


class FakeMPR121Bus:
    def __init__(self, address: int = 0x5A) -> None:
        self.address = address
        self.regs = [0] * 0x81
        self.writes: list[tuple[int, int]] = []
        self.ignored_writes: list[tuple[int, int]] = []
        self.on_status_read: Callable[[], None] | None = None
        self.status_reads = 0
        self._reset()

    def _reset(self) -> None:
        self.regs = [0] * 0x81
        self.regs[0x5C] = 0x10
        self.regs[0x5D] = 0x24

    def _check(self, addr: int) -> None:
        if addr != self.address:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")

    @property
    def running(self) -> bool:
        return self.regs[0x5E] & 0x3F != 0

    # -- the smbus2 slice -----------------------------------------------------
    def write_byte_data(self, i2c_addr: int, register: int, value: int) -> None:
        self._check(i2c_addr)
        assert 0 <= value <= 0xFF
        self.writes.append((register, value))
        if register == 0x80:
            if value == 0x63:
                self._reset()
            return
        if register < 0x2B or (self.running and register != 0x5E):
            self.ignored_writes.append((register, value))  # read-only, or not in stop mode
            return
        self.regs[register] = value

    def read_byte_data(self, i2c_addr: int, register: int) -> int:
        self._check(i2c_addr)
        if register in (0x00, 0x01):
            self._status_read()
        return self.regs[register]

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int) -> list[int]:
        self._check(i2c_addr)
        if register <= 0x01 < register + length or register == 0x00:
            self._status_read()
        return self.regs[register:register + length]

    # -- test controls --------------------------------------------------------
    def set_touched(self, electrodes: set[int], *, prox: bool = False, overcurrent: bool = False) -> None:
        mask = sum(1 << e for e in electrodes)
        self.regs[0x00] = mask & 0xFF
        self.regs[0x01] = (mask >> 8) & 0x0F | (0x10 if prox else 0) | (0x80 if overcurrent else 0)

    def set_reading(self, electrode: int, *, filtered: int, baseline: int) -> None:
        self.regs[0x04 + 2 * electrode] = filtered & 0xFF
        self.regs[0x05 + 2 * electrode] = (filtered >> 8) & 0x03
        self.regs[0x1E + electrode] = baseline >> 2

    def _status_read(self) -> None:
        self.status_reads += 1
        if self.on_status_read is not None:
            self.on_status_read()

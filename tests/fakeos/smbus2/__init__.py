"""Fake `smbus2`: the I2C buses of the world's Pi, holding its MPR121 touch controllers.

Follows smbus2 0.4's `SMBus` for the calls the project and i2cdetect-like
probes make. `SMBus(bus)` opens /dev/i2c-<bus>: bus 1 (a Pi with I2C on) and
every bus world.json's `mpr121` names; others fail with FileNotFoundError. A
transfer to an address no chip answers fails with OSError EREMOTEIO (121), as
Linux's i2c-dev does when nothing acknowledges; a block longer than 32 bytes
is a ValueError, as in smbus2. The chips (smbus2/mpr121.py) belong to the
world, not to an SMBus: they run while buses open and close.
"""
from __future__ import annotations

import errno
import os
import threading
from typing import Any, Sequence

from world import World, mpr121_key, world  # tests/fakeos is first on sys.path, as for every fake

from .mpr121 import Mpr121

I2C_SMBUS_BLOCK_MAX = 32

_CHIPS: dict[tuple[int, int], Mpr121] = {}
_CHIPS_WORLD: list[World | None] = [None]
_CHIPS_LOCK = threading.Lock()


def chip(bus: int, address: int) -> Mpr121 | None:
    """The world's MPR121 at `address` on `bus` (the same object for every SMBus), or None."""
    w = world()
    with _CHIPS_LOCK:
        if _CHIPS_WORLD[0] is not w:
            for old in _CHIPS.values():
                old.close()
            _CHIPS.clear()
            _CHIPS_WORLD[0] = w
        found = _CHIPS.get((bus, address))
        if found is None and mpr121_key(bus, address) in w.mpr121:
            found = _CHIPS[(bus, address)] = Mpr121(w, bus, address)
        return found


def close_chips() -> None:
    """Stop every chip's model thread (a test's world is over)."""
    with _CHIPS_LOCK:
        for old in _CHIPS.values():
            old.close()
        _CHIPS.clear()
        _CHIPS_WORLD[0] = None


def buses() -> set[int]:
    """The /dev/i2c-N a Pi of this world has: 1, and every bus world.json puts an MPR121 on."""
    return {1} | {int(name.partition(":")[0]) for name in world().mpr121}


class SMBus:
    """smbus2.SMBus over the world's buses: the calls the project and i2cdetect-like probes use."""

    def __init__(self, bus: int | str | None = None, force: bool = False) -> None:
        self.fd: int | None = None
        self.force = force
        self.address: int | None = None
        self._pointer: dict[int, int] = {}
        if bus is not None:
            self.open(bus)

    def open(self, bus: int | str) -> None:
        """Open /dev/i2c-<bus> (a number or that path); FileNotFoundError when the board has no such bus."""
        number = bus if isinstance(bus, int) else int(str(bus).rpartition("-")[2])
        if number not in buses():
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), f"/dev/i2c-{number}")
        self.fd = number

    def close(self) -> None:
        self.fd = None

    def __enter__(self) -> "SMBus":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def _chip(self, i2c_addr: int) -> Mpr121:
        if self.fd is None:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        found = chip(self.fd, i2c_addr)
        if found is None:
            raise OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))
        self.address = i2c_addr
        return found

    def read_byte(self, i2c_addr: int, force: bool | None = None) -> int:
        """A plain read: the register after the last one addressed (auto-increment)."""
        register = self._pointer.get(i2c_addr, 0)
        value = self._chip(i2c_addr).read(register, 1)[0]
        self._pointer[i2c_addr] = register + 1
        return value

    def write_byte(self, i2c_addr: int, value: int, force: bool | None = None) -> None:
        """A plain write: sets the register pointer."""
        self._chip(i2c_addr)
        self._pointer[i2c_addr] = value

    def read_byte_data(self, i2c_addr: int, register: int, force: bool | None = None) -> int:
        return self.read_i2c_block_data(i2c_addr, register, 1)[0]

    def write_byte_data(self, i2c_addr: int, register: int, value: int, force: bool | None = None) -> None:
        if not 0 <= value <= 0xFF:
            raise ValueError(f"byte out of range: {value}")
        self._chip(i2c_addr).write(register, value)
        self._pointer[i2c_addr] = register + 1

    def read_word_data(self, i2c_addr: int, register: int, force: bool | None = None) -> int:
        """SMBus word read: the low byte at `register`, the high byte after it."""
        low, high = self.read_i2c_block_data(i2c_addr, register, 2)
        return low | high << 8

    def write_word_data(self, i2c_addr: int, register: int, value: int, force: bool | None = None) -> None:
        self.write_i2c_block_data(i2c_addr, register, [value & 0xFF, value >> 8 & 0xFF])

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int,
                            force: bool | None = None) -> list[int]:
        if not 0 < length <= I2C_SMBUS_BLOCK_MAX:
            raise ValueError(f"Desired block length over {I2C_SMBUS_BLOCK_MAX} bytes" if length > 0
                             else "Desired block length must be positive")
        out = self._chip(i2c_addr).read(register, length)
        self._pointer[i2c_addr] = register + length
        return out

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: Sequence[int],
                             force: bool | None = None) -> None:
        if len(data) > I2C_SMBUS_BLOCK_MAX:
            raise ValueError(f"Data length cannot exceed {I2C_SMBUS_BLOCK_MAX} bytes")
        found = self._chip(i2c_addr)
        for i, value in enumerate(data):
            found.write(register + i, value)
        self._pointer[i2c_addr] = register + len(data)

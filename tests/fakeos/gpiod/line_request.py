"""`gpiod.LineRequest`, shaped like libgpiod v2's bindings/python/gpiod/line_request.py, over the fake kernel.

Events come from gpiod/_kernel.py (gpiolib-cdev.c's model); `read_edge_events()`
reads at most 64 by default, as the bindings' C extension does (request.c).
"""
from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Iterable

from . import _kernel
from .edge_event import EdgeEvent
from .exception import RequestReleasedError
from .line import Value

__all__ = ["LineRequest"]

_FDS = itertools.count(100)


class LineRequest:
    """A set of requested lines: values, and edge events from the kernel's FIFO."""

    def __init__(self, request: _kernel.Request, chip_name: str, lines: list[int | str]) -> None:
        self._req: _kernel.Request | None = request
        self._chip_name = chip_name
        self._lines = lines
        self._fd = next(_FDS)  # not a real descriptor: select() on it will not work

    def __bool__(self) -> bool:
        return self._req is not None

    def __enter__(self) -> "LineRequest":
        self._check_released()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _check_released(self) -> _kernel.Request:
        if self._req is None:
            raise RequestReleasedError()
        return self._req

    def release(self) -> None:
        """Free the lines; the object must not be used afterwards."""
        if self._req is not None:
            self._req.release()
            self._req = None

    def get_value(self, line: int | str) -> Value:
        """The logical value of one requested line."""
        return self.get_values([line])[0]

    def get_values(self, lines: Iterable[int | str] | None = None) -> list[Value]:
        """Logical values of some (default: all) requested lines."""
        req = self._check_released()
        return [Value(req.value(int(line))) for line in (lines or self._lines)]

    def set_value(self, line: int | str, value: Value) -> None:
        """Drive one output line."""
        self.set_values({line: value})

    def set_values(self, values: dict[int | str, Value]) -> None:
        """Drive some output lines."""
        req = self._check_released()
        for line, value in values.items():
            req.set_value(int(line), value.value)

    def wait_edge_events(self, timeout: timedelta | float | None = None) -> bool:
        """True once edge events can be read; False after `timeout` (seconds or timedelta; None: forever)."""
        req = self._check_released()
        seconds = timeout.total_seconds() if isinstance(timeout, timedelta) else timeout
        return req.wait(seconds)

    def read_edge_events(self, max_events: int | None = None) -> list[EdgeEvent]:
        """Read up to `max_events` (default 64) events, blocking until there is at least one."""
        req = self._check_released()
        return [EdgeEvent(1 if ev.rising else 2, ev.timestamp_ns, ev.offset, ev.seqno, ev.line_seqno)
                for ev in req.read(64 if max_events is None else max_events)]

    def fileno(self) -> int:
        return self.fd

    @property
    def fd(self) -> int:
        self._check_released()
        return self._fd

    @property
    def chip_name(self) -> str:
        self._check_released()
        return self._chip_name

    @property
    def num_lines(self) -> int:
        return len(self.offsets)

    @property
    def offsets(self) -> list[int]:
        self._check_released()
        return [int(line) for line in self._lines]

    @property
    def lines(self) -> list[int | str]:
        self._check_released()
        return list(self._lines)

    def __str__(self) -> str:
        if self._req is None:
            return "<LineRequest RELEASED>"
        return f'<LineRequest chip="{self._chip_name}" num_lines={self.num_lines} offsets={self.offsets}>'

"""`gpiod.Chip` and `gpiod.ChipInfo`, shaped like libgpiod v2's bindings/python/gpiod/chip.py and chip_info.py.

A chip is one of the world's `board.chips`; opening a missing one raises
FileNotFoundError, as gpiod_chip_open's open(2) does (ENOENT).
"""
from __future__ import annotations

import errno
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Iterable

from . import _kernel
from .exception import ChipClosedError
from .line import Bias, Clock, Direction, Edge, Value
from .line_request import LineRequest
from .line_settings import LineSettings

__all__ = ["Chip", "ChipInfo"]

_BIAS = {Bias.PULL_UP: "pull-up", Bias.PULL_DOWN: "pull-down", Bias.DISABLED: "disabled"}


@dataclass(frozen=True)
class ChipInfo:
    """Immutable snapshot of a chip's status."""

    name: str
    label: str
    num_lines: int


def _config(settings: LineSettings, output_value: Value | None) -> _kernel.LineConfig:
    """LineSettings as the uAPI flags the kernel validates (gpio_v2_line_flags_validate)."""
    edges = settings.edge_detection
    if edges is not Edge.NONE and settings.direction is not Direction.INPUT:
        raise OSError(errno.EINVAL, "Invalid argument: edge detection requires explicit input")
    if settings.event_clock is Clock.HTE:
        raise OSError(errno.EOPNOTSUPP, "Operation not supported: no hardware timestamp engine")
    if settings.debounce_period != timedelta(0):
        raise NotImplementedError("the kernel's software debouncer is not modelled by this fake")
    value = settings.output_value if output_value is None else output_value
    return _kernel.LineConfig(output=settings.direction is Direction.OUTPUT,
                              rising=edges in (Edge.RISING, Edge.BOTH), falling=edges in (Edge.FALLING, Edge.BOTH),
                              active_low=settings.active_low, bias=_BIAS.get(settings.bias, "as-is"),
                              realtime=settings.event_clock is Clock.REALTIME, output_value=value.value)


def _keys(config: dict[Any, LineSettings | None]) -> Iterable[tuple[Any, LineSettings | None]]:
    for key, settings in config.items():
        for line in (key,) if isinstance(key, (int, str)) else key:
            yield line, settings


class Chip:
    """A GPIO chip of the world's board, opened by its path."""

    def __init__(self, path: str) -> None:
        self._chip = _kernel.chip_of(path)
        self._path = path

    def __bool__(self) -> bool:
        return self._chip is not None

    def __enter__(self) -> "Chip":
        self._check_closed()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_closed(self) -> None:
        if self._chip is None:
            raise ChipClosedError()

    def close(self) -> None:
        """Close the chip; requests made from it stay valid."""
        self._chip = None

    @property
    def path(self) -> str:
        self._check_closed()
        return self._path

    def get_info(self) -> ChipInfo:
        """Name (`gpiochipN`), label and number of lines, as GPIO_GET_CHIPINFO_IOCTL gives them."""
        self._check_closed()
        return ChipInfo(self._chip.path.rsplit("/", 1)[-1], self._chip.label, self._chip.lines)

    def line_offset_from_id(self, id: str | int) -> int:
        """An offset, checked against the chip (the world's lines have no names)."""
        self._check_closed()
        if isinstance(id, str) or not 0 <= id < self._chip.lines:
            raise ValueError("line offset of out range" if isinstance(id, int) else f"unknown line name: {id}")
        return id

    def request_lines(self, config: dict[Any, LineSettings | None], consumer: str | None = None,
                      event_buffer_size: int | None = None,
                      output_values: dict[int | str, Value] | None = None) -> LineRequest:
        """Request lines for exclusive use (GPIO_V2_GET_LINE_IOCTL)."""
        self._check_closed()
        configs: dict[int, _kernel.LineConfig] = {}
        lines: list[int | str] = []
        for line, settings in _keys(config):
            offset = self.line_offset_from_id(line)
            if offset in configs:
                raise ValueError(f"line must be configured exactly once - offset {offset} repeats")
            configs[offset] = _config(settings or LineSettings(), (output_values or {}).get(line))
            lines.append(line)
        request = _kernel.Request(self._chip.path, configs, consumer=consumer or "",
                                  event_buffer_size=event_buffer_size or 0)
        return LineRequest(request, self._chip.path.rsplit("/", 1)[-1], lines)

    def __repr__(self) -> str:
        return f'gpiod.Chip("{self._path}")' if self._chip is not None else "<Chip CLOSED>"

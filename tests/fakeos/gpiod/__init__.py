"""A fake of libgpiod v2's Python bindings (`gpiod`, brgl/libgpiod bindings/python/gpiod) over the fake world.

The public API the project uses, shaped as in the bindings: `request_lines`,
`Chip(path).get_info()`, `is_gpiochip_device`, `LineSettings`, `gpiod.line.*`,
`EdgeEvent`, `LineRequest`. Chips are the world's `board.chips`
(tests/fakeos/world.py); the kernel behind them is gpiod/_kernel.py, a model of
linux drivers/gpio/gpiolib-cdev.c (stamps, sequence numbers, FIFO overflow).
"""
from __future__ import annotations

from typing import Any

from . import line
from ._kernel import chip_of
from .chip import Chip, ChipInfo
from .edge_event import EdgeEvent
from .exception import ChipClosedError, RequestReleasedError
from .line_request import LineRequest
from .line_settings import LineSettings

__version__ = "2.2.0"
api_version = "2.2"

__all__ = ["Chip", "ChipInfo", "ChipClosedError", "EdgeEvent", "LineRequest", "LineSettings",
           "RequestReleasedError", "is_gpiochip_device", "line", "request_lines", "__version__", "api_version"]


def is_gpiochip_device(path: str) -> bool:
    """Whether `path` is a GPIO chip character device (one of the world's chips)."""
    try:
        chip_of(path)
    except OSError:
        return False
    return True


def request_lines(path: str, config: dict[Any, LineSettings | None], consumer: str | None = None,
                  event_buffer_size: int | None = None, output_values: dict[int | str, line.Value] | None = None,
                  ) -> LineRequest:
    """Open the chip at `path`, request lines as `config` says, close the chip, return the request."""
    with Chip(path) as chip:
        return chip.request_lines(config, consumer=consumer, event_buffer_size=event_buffer_size,
                                  output_values=output_values)

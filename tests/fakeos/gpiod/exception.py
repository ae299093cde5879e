"""`gpiod` exceptions, as in libgpiod v2's bindings/python/gpiod/exception.py."""
from __future__ import annotations

__all__ = ["ChipClosedError", "RequestReleasedError"]


class ChipClosedError(Exception):
    """Error raised when an already closed chip is used."""

    def __init__(self) -> None:
        super().__init__("I/O operation on closed chip")


class RequestReleasedError(Exception):
    """Error raised when a released request is used."""

    def __init__(self) -> None:
        super().__init__("GPIO lines have been released")

"""`gpiod.line`: the setting enums of libgpiod v2's Python bindings (bindings/python/gpiod/line.py).

Values are those of libgpiod's C enums (gpiod.h), as the real `_ext` exports them.
"""
from __future__ import annotations

from enum import Enum

__all__ = ["Value", "Direction", "Bias", "Drive", "Edge", "Clock"]


class Value(Enum):
    """Logical line states."""

    INACTIVE = 0
    ACTIVE = 1

    def __bool__(self) -> bool:
        return self is Value.ACTIVE


class Direction(Enum):
    """Direction settings."""

    AS_IS = 1
    INPUT = 2
    OUTPUT = 3


class Bias(Enum):
    """Internal bias settings."""

    AS_IS = 1
    UNKNOWN = 2
    DISABLED = 3
    PULL_UP = 4
    PULL_DOWN = 5


class Drive(Enum):
    """Drive settings."""

    PUSH_PULL = 1
    OPEN_DRAIN = 2
    OPEN_SOURCE = 3


class Edge(Enum):
    """Edge detection settings."""

    NONE = 1
    RISING = 2
    FALLING = 3
    BOTH = 4


class Clock(Enum):
    """Event clock settings."""

    MONOTONIC = 1
    REALTIME = 2
    HTE = 3

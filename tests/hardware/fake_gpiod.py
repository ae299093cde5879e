"""A stand-in for the libgpiod v2 `gpiod` package, shaped like its public API, for tests off the Pi."""
from __future__ import annotations

import types
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum
from typing import Any


class Direction(Enum):
    AS_IS = 1
    INPUT = 2
    OUTPUT = 3


class Edge(Enum):
    NONE = 1
    RISING = 2
    FALLING = 3
    BOTH = 4


class Bias(Enum):
    AS_IS = 1
    UNKNOWN = 2
    DISABLED = 3
    PULL_UP = 4
    PULL_DOWN = 5


class Clock(Enum):
    MONOTONIC = 1
    REALTIME = 2
    HTE = 3


class Value(Enum):
    INACTIVE = 0
    ACTIVE = 1


@dataclass
class LineSettings:
    direction: Direction = Direction.AS_IS
    edge_detection: Edge = Edge.NONE
    bias: Bias = Bias.AS_IS
    active_low: bool = False
    debounce_period: timedelta = timedelta()
    event_clock: Clock = Clock.MONOTONIC
    output_value: Value = Value.INACTIVE


@dataclass(frozen=True)
class EdgeEvent:
    class Type(Enum):
        RISING_EDGE = 1
        FALLING_EDGE = 2

    event_type: "EdgeEvent.Type"
    timestamp_ns: int
    line_offset: int
    global_seqno: int
    line_seqno: int


class FakeRequest:
    """A LineRequest with a scripted event FIFO; `emit()` plays the kernel."""

    def __init__(self, chip: str, consumer: str, config: dict[Any, LineSettings]) -> None:
        self.chip, self.consumer, self.config = chip, consumer, config
        self.offsets = [o for key in config for o in (key if isinstance(key, tuple) else (key,))]
        self.values = {o: Value.INACTIVE for o in self.offsets}
        self.fifo: list[EdgeEvent] = []
        self.released = False
        self._global = 0
        self._line: dict[int, int] = {}

    def emit(self, offset: int, active: bool, t_ns: int, *, skip: int = 0) -> None:
        self._global += 1 + skip
        self._line[offset] = self._line.get(offset, 0) + 1 + skip
        self.values[offset] = Value.ACTIVE if active else Value.INACTIVE
        kind = EdgeEvent.Type.RISING_EDGE if active else EdgeEvent.Type.FALLING_EDGE
        self.fifo.append(EdgeEvent(kind, t_ns, offset, self._global, self._line[offset]))

    def wait_edge_events(self, timeout: float | None = None) -> bool:
        assert not self.released
        return bool(self.fifo)

    def read_edge_events(self, max_events: int | None = None) -> list[EdgeEvent]:
        assert not self.released
        out, self.fifo = self.fifo, []
        return out

    def get_value(self, offset: int) -> Value:
        assert not self.released
        return self.values[offset]

    def release(self) -> None:
        assert not self.released, "released twice"
        self.released = True


def make_module() -> Any:
    """A fresh fake `gpiod` module; `module.requests` lists every request made."""
    module = types.SimpleNamespace()
    module.line = types.SimpleNamespace(Direction=Direction, Edge=Edge, Bias=Bias, Clock=Clock, Value=Value)
    module.LineSettings = LineSettings
    module.EdgeEvent = EdgeEvent
    module.requests = []

    def request_lines(path: str, consumer: str = "", config: dict[Any, LineSettings] | None = None) -> FakeRequest:
        req = FakeRequest(path, consumer, config or {})
        module.requests.append(req)
        return req

    module.request_lines = request_lines
    return module

"""Calibrated per-pad latency offsets and tie margins, applied in exactly one place (`PadTiming.apply`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from .pad_errors import PadConfigError

_KEYS = frozenset({"offset_ns", "tie_margin_us"})


def _frozen(mapping: Mapping[int, int], what: str) -> Mapping[int, int]:
    out: dict[int, int] = {}
    for seat, value in mapping.items():
        if not isinstance(seat, int) or seat < 0:
            raise PadConfigError(f"{what}: seat must be an int >= 0, got {seat!r}")
        if not isinstance(value, int) or isinstance(value, bool):
            raise PadConfigError(f"{what}[{seat}] must be an int, got {value!r}")
        out[seat] = value
    return MappingProxyType(out)


@dataclass(frozen=True)
class PadTiming:
    """Calibration for a table's pads.

    `offset_ns[seat]`: how late this pad's edge is after the hand touched it
    (switch travel, MPR121 filter delay); subtracted from every stamp.
    `tie_margin_us[seat]`: the calibration's own uncertainty for that pad;
    added to the backend's resolution to make the event's `tie_us`.
    Seats not listed get 0 for both.
    """

    offset_ns: Mapping[int, int] = field(default_factory=dict)
    tie_margin_us: Mapping[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "offset_ns", _frozen(self.offset_ns, "offset_ns"))
        margins = _frozen(self.tie_margin_us, "tie_margin_us")
        if any(v < 0 for v in margins.values()):
            raise PadConfigError("tie_margin_us must not be negative")
        object.__setattr__(self, "tie_margin_us", margins)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> "PadTiming":
        """Build from a calibration file's dict; unknown keys are an error, not a silent default."""
        unknown = set(data) - _KEYS
        if unknown:
            raise PadConfigError(f"unknown pad timing keys: {sorted(unknown)}")
        return cls(
            offset_ns={int(k): v for k, v in data.get("offset_ns", {}).items()},
            tie_margin_us={int(k): v for k, v in data.get("tie_margin_us", {}).items()},
        )

    def apply(self, seat: int, raw_t_ns: int, backend_tie_us: int) -> tuple[int, int]:
        """The one place a raw stamp becomes a judged stamp: (t_ns, tie_us)."""
        return (raw_t_ns - self.offset_ns.get(seat, 0),
                backend_tie_us + self.tie_margin_us.get(seat, 0))

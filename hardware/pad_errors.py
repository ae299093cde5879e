"""Errors and warnings of the pad layer; each also subclasses a builtin so callers may catch either."""
from __future__ import annotations


class PadError(Exception):
    """Base class of every pad-layer error."""


class PadClosed(PadError, RuntimeError):
    """The pad source was used after close()."""


class UntimedPinFactory(PadError, ValueError):
    """The pin factory stamps edges when Python runs the callback, not when the
    kernel saw them (rpigpio, native, pigpio): not good enough to judge slaps."""


class PadConfigError(PadError, ValueError):
    """A pad map, pin or setting that cannot work (duplicate pins, unknown keys, bad values)."""


class MPR121Error(PadError, OSError):
    """The MPR121 did not answer like an MPR121 (wrong address, wiring, or chip)."""


class UntimedPadsWarning(RuntimeWarning):
    """Pads are running without kernel timestamps: fine for play, not for disputes."""


class PadClockWarning(RuntimeWarning):
    """Edge timestamps arrived on CLOCK_REALTIME (kernel < 5.7) and are being converted."""

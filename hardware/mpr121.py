"""NXP/Freescale MPR121 capacitive touch controller: registers, configuration, status reads.

Only what the pads need: soft reset, a fast sample interval (ESI = 1 ms by
default), per-electrode touch/release thresholds for calibration, touch
status, filtered data and baselines, and the proximity "electrode" 12
(ELEPROX: the sum of ELE0-1, 0-3 or 0-11). The bus is anything with
smbus2's `read_byte_data` / `write_byte_data` / `read_i2c_block_data`.
Register numbers follow the MPR121 datasheet (rev. 4) and AN3944.

Timing (datasheet 5.2-5.8): the chip scans every ESI (longer when FFI x 2 CDT
x channels does not fit), averages SFI scans, and only then updates filtered
data, baselines and the touch status: once per ESI x SFI. A touch shows at the
first update whose average crosses the threshold, so its status change lands
0 to ESI x SFI after the hand (`MPR121Config.tie_margin_us`) when one scan's
change is enough (delta >= SFI x threshold), up to SFI - 1 scans more when it
barely crosses (`faint_tie_margin_us`), plus exactly DT x ESI x SFI of
debounce (`touch_delay_us`: known, so taken off the stamp).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol, Sequence

from .pad_errors import MPR121Error, PadConfigError

# -- register map (datasheet table 6) ---------------------------------------
TOUCH_STATUS_L = 0x00    # ELE0-7
TOUCH_STATUS_H = 0x01    # ELE8-11 in bits 0-3, ELEPROX bit 4, OVCF bit 7
OOR_STATUS_L = 0x02
FILTERED_DATA = 0x04     # 2 bytes per electrode (LSB, then 2 MSBs), ELE0..ELEPROX
BASELINE = 0x1E          # 1 byte per electrode: the 8 high bits of the 10-bit baseline
BASELINE_FILTER = 0x2B   # MHDR NHDR NCLR FDLR MHDF NHDF NCLF FDLF NHDT NCLT FDLT (0x2B-0x35)
PROX_BASELINE_FILTER = 0x36  # the same eleven for ELEPROX (0x36-0x40)
TOUCH_THRESHOLD = 0x41   # ELEn touch at 0x41 + 2n, release at 0x42 + 2n; ELEPROX at 0x59/0x5A
DEBOUNCE = 0x5B          # DR (bits 6:4) release, DT (bits 2:0) touch, in samples
AFE_CONFIG = 0x5C        # FFI (7:6) first filter iterations, CDC (5:0) charge current µA
FILTER_CONFIG = 0x5D     # CDT (7:5) charge time, SFI (4:3) second filter iterations, ESI (2:0) period
ECR = 0x5E               # CL (7:6) calibration lock, ELEPROX_EN (5:4), ELE_EN (3:0); 0 = stop mode
SOFT_RESET = 0x80        # write 0x63
SOFT_RESET_VALUE = 0x63
FILTER_CONFIG_RESET = 0x24  # what 0x5D reads after reset: how we recognise the chip

PROX_ELECTRODE = 12
STATUS_PROX = 1 << 12
STATUS_OVERCURRENT = 1 << 15
ELECTRODE_COUNT = 12

Proximity = Literal["off", "ele0_1", "ele0_3", "ele0_11"]
_PROX_BITS: dict[str, int] = {"off": 0, "ele0_1": 1, "ele0_3": 2, "ele0_11": 3}
_SAMPLE_PERIODS_MS = (1, 2, 4, 8, 16, 32, 64, 128)   # ESI 0..7
_SECOND_FILTER = (4, 6, 10, 18)                      # SFI 0..3
_FIRST_FILTER = (6, 10, 18, 34)                      # FFI 0..3
_SCAN_NS_PER_CHARGE = 500                            # CDT code 1: 0.5 µs, doubling per code
# Baseline filters, MHD NHD NCL FDL rising, the same falling, NHD NCL FDL touched
# (AN3944's values): rises tracked at once, falls (a hand) barely, a touch frozen,
# so a hover's per-electrode delta stays readable while it lasts.
_TOUCH_BASELINE = (0x01, 0x01, 0x00, 0x00, 0x01, 0x01, 0xFF, 0x02, 0x00, 0x00, 0x00)
# Proximity: rises taken at once (MHD 63), falls (approach) barely tracked.
_PROX_BASELINE = (0x3F, 0x3F, 0x00, 0x00, 0x01, 0x01, 0xFF, 0xFF, 0x00, 0x00, 0x00)


class I2CBus(Protocol):
    """The slice of smbus2.SMBus the driver uses."""

    def read_byte_data(self, i2c_addr: int, register: int) -> int: ...
    def write_byte_data(self, i2c_addr: int, register: int, value: int) -> None: ...
    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int) -> list[int]: ...


def open_smbus(bus: int = 1) -> I2CBus:
    """Open /dev/i2c-<bus> with smbus2 (optional dependency, imported only here)."""
    try:
        smbus2 = importlib.import_module("smbus2")
    except ImportError as exc:
        raise ImportError("MPR121 pads need the smbus2 package (pip install smbus2) "
                          "or any bus object with the same three methods") from exc
    return smbus2.SMBus(bus)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class MPR121Config:
    """Sensor settings; thresholds are the calibration knobs (counts of filtered-data drop)."""

    electrodes: int = ELECTRODE_COUNT           # ELE0..ELE(n-1) run
    sample_period_ms: int = 1                   # ESI: the interval between scans
    touch_threshold: int = 12
    release_threshold: int = 6
    per_electrode: dict[int, tuple[int, int]] = field(default_factory=dict)  # {e: (touch, release)}
    proximity: Proximity = "ele0_11"
    prox_touch_threshold: int = 4
    prox_release_threshold: int = 2
    charge_current_ua: int = 16                 # CDC, 1-63 µA
    charge_time_code: int = 1                   # CDT: 0.5 µs * 2**(code-1)
    first_filter: int = 6                       # FFI samples: 6, 10, 18 or 34
    second_filter: int = 4                      # SFI samples: 4, 6, 10 or 18
    touch_debounce: int = 0                     # DT: detections (updates) more in a row; 0: the first
    release_debounce: int = 0                   # DR, the same for releases
    hover_threshold: int = 4                    # per-electrode delta of a hand above that pad (flinch)

    def __post_init__(self) -> None:
        if not 1 <= self.electrodes <= ELECTRODE_COUNT:
            raise PadConfigError("electrodes must be 1..12")
        if self.sample_period_ms not in _SAMPLE_PERIODS_MS:
            raise PadConfigError(f"sample_period_ms must be one of {_SAMPLE_PERIODS_MS}")
        if self.second_filter not in _SECOND_FILTER or self.first_filter not in _FIRST_FILTER:
            raise PadConfigError("first_filter/second_filter not supported by the chip")
        if self.proximity not in _PROX_BITS:
            raise PadConfigError(f"proximity must be one of {sorted(_PROX_BITS)}")
        if not 1 <= self.charge_current_ua <= 63 or not 1 <= self.charge_time_code <= 7:
            raise PadConfigError("charge current 1..63 µA, charge time code 1..7")
        if not (0 <= self.touch_debounce <= 7 and 0 <= self.release_debounce <= 7):
            raise PadConfigError("debounce counts are 0..7")
        if not 1 <= self.hover_threshold <= 255:
            raise PadConfigError("hover_threshold is 1..255 counts")
        for t, r in [(self.touch_threshold, self.release_threshold),
                     (self.prox_touch_threshold, self.prox_release_threshold),
                     *self.per_electrode.values()]:
            _check_thresholds(t, r)

    @property
    def scan_us(self) -> int:
        """One scan of every enabled channel: FFI charges of 2 x CDT each (5.8)."""
        channels = self.electrodes + (self.proximity != "off")
        scan_ns = self.first_filter * 2 * (_SCAN_NS_PER_CHARGE << (self.charge_time_code - 1)) * channels
        return -(-scan_ns // 1000)

    @property
    def sample_period_us(self) -> int:
        """The scan interval: ESI, or the scan itself when it is longer (5.8)."""
        return max(self.sample_period_ms * 1000, self.scan_us)

    @property
    def update_period_us(self) -> int:
        """How often filtered data, baselines and touch status change: every SFI scans (5.2)."""
        return self.second_filter * self.sample_period_us

    @property
    def tie_margin_us(self) -> int:
        """How late a status change can be after the hand: one update period, plus the scan that
        ends it (the status changes when the scan is done). Debounce adds a known delay
        (`touch_delay_us`), not uncertainty."""
        return self.update_period_us + self.scan_us

    @property
    def faint_tie_margin_us(self) -> int:
        """The same for a change that barely crosses its threshold (delta under SFI x threshold): it
        needs more scans of the block, so it can show up to SFI - 1 scans later still. Hovers seen by
        ELEPROX are such changes; calibrate slap thresholds under a slap's delta / SFI."""
        return self.tie_margin_us + (self.second_filter - 1) * self.sample_period_us

    @property
    def touch_delay_us(self) -> int:
        """The fixed delay DT adds to a touch's status change (DT x ESI x SFI, 5.7)."""
        return self.touch_debounce * self.update_period_us

    @property
    def release_delay_us(self) -> int:
        return self.release_debounce * self.update_period_us

    def ecr(self) -> int:
        """Run-mode ECR: baseline tracking on, loaded with the first data's 10 bits (CL=0b11, so
        no ramp-up), proximity and electrodes enabled."""
        return 0xC0 | (_PROX_BITS[self.proximity] << 4) | self.electrodes


def _check_thresholds(touch: int, release: int) -> None:
    if not (0 <= release < touch <= 255):
        raise PadConfigError(f"need 0 <= release < touch <= 255, got touch={touch} release={release}")


class MPR121:
    """One MPR121 on an I2C bus: reset and configure on construction, stop mode on close()."""

    def __init__(self, bus: I2CBus, address: int = 0x5A, config: MPR121Config | None = None) -> None:
        self.bus = bus
        self.address = address
        self.config = config or MPR121Config()
        self._closed = False
        self._write(SOFT_RESET, SOFT_RESET_VALUE)
        if self._read(FILTER_CONFIG) != FILTER_CONFIG_RESET:
            raise MPR121Error(f"no MPR121 at 0x{address:02X}: register 0x5D does not read 0x24 after reset")
        self.configure(self.config)

    # -- configuration (stop mode) --------------------------------------------
    def configure(self, config: MPR121Config) -> None:
        """Write every setting in stop mode, then run."""
        self.config = config
        self._write(ECR, 0)
        for i, value in enumerate(_TOUCH_BASELINE):
            self._write(BASELINE_FILTER + i, value)
        for i, value in enumerate(_PROX_BASELINE):
            self._write(PROX_BASELINE_FILTER + i, value)
        for e in range(ELECTRODE_COUNT):
            touch, release = config.per_electrode.get(e, (config.touch_threshold, config.release_threshold))
            self._write_thresholds(e, touch, release)
        self._write_thresholds(PROX_ELECTRODE, config.prox_touch_threshold, config.prox_release_threshold)
        self._write(DEBOUNCE, (config.release_debounce << 4) | config.touch_debounce)
        self._write(AFE_CONFIG, (_FIRST_FILTER.index(config.first_filter) << 6) | config.charge_current_ua)
        self._write(FILTER_CONFIG, (config.charge_time_code << 5)
                    | (_SECOND_FILTER.index(config.second_filter) << 3)
                    | _SAMPLE_PERIODS_MS.index(config.sample_period_ms))
        self._write(ECR, config.ecr())

    def set_thresholds(self, touch: int, release: int, electrodes: Sequence[int] | None = None) -> None:
        """Calibration: new touch/release thresholds (all electrodes by default; 12 = proximity)."""
        _check_thresholds(touch, release)
        targets = range(ELECTRODE_COUNT) if electrodes is None else electrodes
        per = dict(self.config.per_electrode)
        self._write(ECR, 0)
        try:
            for e in targets:
                if not 0 <= e <= PROX_ELECTRODE:
                    raise PadConfigError(f"no electrode {e}")
                self._write_thresholds(e, touch, release)
                if e < PROX_ELECTRODE:
                    per[e] = (touch, release)
        finally:
            self._write(ECR, self.config.ecr())
        prox = ((touch, release) if PROX_ELECTRODE in targets
                else (self.config.prox_touch_threshold, self.config.prox_release_threshold))
        self.config = replace(self.config, per_electrode=per,
                              prox_touch_threshold=prox[0], prox_release_threshold=prox[1])

    def thresholds(self, electrode: int) -> tuple[int, int]:
        """(touch, release) as the chip holds them."""
        base = TOUCH_THRESHOLD + 2 * electrode
        return self._read(base), self._read(base + 1)

    # -- readings ---------------------------------------------------------------
    def read_status(self) -> int:
        """Touch status as one int: bits 0-11 electrodes, 12 proximity, 15 over-current.

        Reading it also releases the IRQ line.
        """
        low, high = self.bus.read_i2c_block_data(self.address, TOUCH_STATUS_L, 2)
        return low | (high & 0x1F) << 8 | (STATUS_OVERCURRENT if high & 0x80 else 0)

    def filtered(self, electrode: int) -> int:
        """10-bit filtered data of an electrode (12 = proximity)."""
        low, high = self.bus.read_i2c_block_data(self.address, FILTERED_DATA + 2 * electrode, 2)
        return low | (high & 0x03) << 8

    def baseline(self, electrode: int) -> int:
        """10-bit baseline (the chip keeps its 8 high bits)."""
        return self._read(BASELINE + electrode) << 2

    def deltas(self, electrodes: Sequence[int]) -> dict[int, int]:
        """Baseline minus filtered data: how much nearer a hand is than usual (bigger = nearer)."""
        return {e: self.baseline(e) - self.filtered(e) for e in electrodes}

    def all_deltas(self) -> list[int]:
        """Baseline minus filtered data of ELE0-11 and ELEPROX, in two block reads (no status read)."""
        data = self.bus.read_i2c_block_data(self.address, FILTERED_DATA, 26)
        base = self.bus.read_i2c_block_data(self.address, BASELINE, 13)
        return [(base[e] << 2) - (data[2 * e] | (data[2 * e + 1] & 0x03) << 8) for e in range(13)]

    def running(self) -> bool:
        """True in run mode (ECR enables electrodes); over-current or a reset stops the chip."""
        return self._read(ECR) & 0x3F != 0

    @property
    def sample_period_us(self) -> int:
        return self.config.sample_period_us

    # -- lifecycle ----------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Put the chip in stop mode (it stops sampling and raising IRQs)."""
        if not self._closed:
            self._closed = True
            try:
                self._write(ECR, 0)
            except OSError:
                pass

    def __enter__(self) -> "MPR121":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._closed:
            return f"<MPR121 0x{self.address:02X} closed>"
        c = self.config
        return (f"<MPR121 0x{self.address:02X} {c.electrodes} electrodes, {c.sample_period_ms} ms x {c.second_filter}, "
                f"touch/release {c.touch_threshold}/{c.release_threshold}, proximity {c.proximity}>")

    def _write_thresholds(self, electrode: int, touch: int, release: int) -> None:
        self._write(TOUCH_THRESHOLD + 2 * electrode, touch)
        self._write(TOUCH_THRESHOLD + 2 * electrode + 1, release)

    def _read(self, register: int) -> int:
        return int(self.bus.read_byte_data(self.address, register))

    def _write(self, register: int, value: int) -> None:
        self.bus.write_byte_data(self.address, register, value & 0xFF)

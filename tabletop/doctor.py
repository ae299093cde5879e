"""`referee doctor`: checks everything a real table needs, one line per check with a fix.

Every probe reads the machine only through `Probes` (paths, pin factory,
camera lister, I2C probe, subprocess runner, clocks), so tests can simulate
a Pi: a mock pin factory, a missing camera, a missing MPR121, a bad config.
Exit status: 0 when nothing the configured game needs has failed, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from hardware.edge_clock import TickKind, classify_factory
from referee.config import ConfigError, TableConfig, load
from tabletop.doctor_audio import SILENCE_S, check_audio, check_espeak
from tabletop.doctor_report import FAIL, OK, WARN, Check

__all__ = ["FAIL", "OK", "SILENCE_S", "WARN", "CameraInfo", "Check", "Probes", "add_parser", "check_audio",
           "check_espeak", "exit_code", "run", "run_checks"]

DEFAULT_CONFIG = Path("/etc/tabletop/table.toml")
#: Where calibration profiles will live (system first, then the user's).
PROFILE_DIRS: tuple[Path, ...] = (Path("/var/lib/tabletop/profiles"),
                                  Path("~/.config/tabletop/profiles").expanduser())
#: A profile older than this is stale: lighting, pads and seating drift.
PROFILE_MAX_AGE_DAYS = 30.0
#: Journal free space: below FAIL_MB a game cannot be recorded safely; below WARN_MB it soon cannot.
JOURNAL_FAIL_MB = 50
JOURNAL_WARN_MB = 500
#: BOOTTIME - MONOTONIC beyond this means the machine has been suspended since boot.
SUSPEND_WARN_S = 1.0
#: MPR121 addresses (ADDR to GND, VDD, SDA, SCL).
MPR121_ADDRESSES = (0x5A, 0x5B, 0x5C, 0x5D)

@dataclass(frozen=True)
class CameraInfo:
    """A camera the lister found: its model, and the highest frame rate it offers (None: unknown)."""

    model: str
    max_fps: float | None = None
    note: str = ""


Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


def _run(cmd: Sequence[str]) -> "subprocess.CompletedProcess[str]":
    """Run a command briefly, capturing text output; never raises for a non-zero exit."""
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=10, check=False)


def _default_pin_factory() -> Any:
    """The pin factory the pads would get (GPIOZERO_PIN_FACTORY, else lgpio on the header chip by label)."""
    from hardware.edge_clock import default_pin_factory
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PinFactoryFallback: the verdict below says it better
        return default_pin_factory()


def _default_cameras() -> list[CameraInfo]:
    """Cameras libcamera sees, with each one's fastest sensor mode (opens each camera briefly)."""
    os.environ.setdefault("LIBCAMERA_LOG_LEVELS", "*:ERROR")
    from picamera2 import Picamera2  # the OS package python3-picamera2
    found = []
    for num, info in enumerate(Picamera2.global_camera_info()):
        model = str(info.get("Model", "camera"))
        try:
            cam = Picamera2(num)
            try:
                fps = max(float(m.get("fps", 0)) for m in cam.sensor_modes) or None
            finally:
                cam.close()
            found.append(CameraInfo(model, fps))
        except Exception as exc:  # busy (the referee service has it) or a libcamera hiccup
            found.append(CameraInfo(model, None, f"frame rate not read: {type(exc).__name__}"))
    return found


def _default_i2c_probe(bus: int, address: int) -> bool:
    """True when a device acknowledges a read at `address` (as i2cdetect does for 0x50-0x5F)."""
    import smbus2
    with smbus2.SMBus(bus) as smbus:
        try:
            smbus.read_byte(address)
        except OSError:
            return False
    return True


@dataclass
class Probes:
    """Everything the doctor reads from the machine; replace any field to simulate hardware."""

    pin_factory: Callable[[], Any] = _default_pin_factory
    cameras: Callable[[], list[CameraInfo]] = _default_cameras
    i2c_probe: Callable[[int, int], bool] = _default_i2c_probe
    run: Runner = _run
    which: Callable[[str], str | None] = shutil.which
    dev: Path = Path("/dev")
    proc: Path = Path("/proc")
    disk_usage: Callable[[Path], Any] = shutil.disk_usage
    clock_ns: Callable[[int], int] = time.clock_gettime_ns
    clock_res: Callable[[int], float] = time.clock_getres
    profile_dirs: Sequence[Path] = PROFILE_DIRS
    now: Callable[[], float] = time.time
    cwd: Path = field(default_factory=Path.cwd)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


# ---------------------------------------------------------------- checks

def check_config(path: Path) -> tuple[Check, TableConfig | None]:
    """Load the table config strictly; a bad one is a FAIL naming the key."""
    if not path.exists():
        return Check("config", FAIL, f"no config at {path}",
                     f"run deploy/install.sh, or copy deploy/table.example.toml to {path}"), None
    try:
        config = load(path)
    except ConfigError as exc:
        return Check("config", FAIL, str(exc), f"edit {path}: see deploy/table.example.toml for every key"), None
    return Check("config", OK, f"{path}: game {config.game.id}, {config.game.players} players, "
                               f"pads {config.pads.backend}, camera {config.camera.source}, "
                               f"kiosk mode {config.kiosk.mode}"), config


def check_pins(config: TableConfig, probes: Probes) -> Check:
    """Which gpiozero pin factory is in use, and whether its edges carry kernel timestamps."""
    backend = config.pads.backend
    needed = backend in ("gpio", "mpr121")  # gpio pads, and the MPR121's IRQ line
    fix_lgpio = ("sudo apt install python3-lgpio (the venv needs --system-site-packages), "
                 "and unset GPIOZERO_PIN_FACTORY or set it to lgpio")
    try:
        factory = probes.pin_factory()
    except Exception as exc:
        return Check("pins", FAIL if needed else WARN,
                     f"no GPIO pin factory ({type(exc).__name__}: {exc})", fix_lgpio)
    name = type(factory).__name__
    kind = classify_factory(factory)
    if kind is TickKind.KERNEL:
        return Check("pins", OK, f"{name}: kernel edge timestamps (pads {backend})")
    if kind is TickKind.MOCK:
        detail = f"{name}: a mock pin factory, no real GPIO (pads {backend})"
    else:
        detail = f"{name}: no kernel edge timestamps, slaps stamped when Python runs (pads {backend})"
    if not needed:
        return Check("pins", WARN, detail + "; not used by this config", fix_lgpio)
    return Check("pins", FAIL, detail, fix_lgpio)


def check_gpiod(config: TableConfig, probes: Probes) -> Check | None:
    """For the libgpiod backend: the GPIO character device must exist."""
    if config.pads.backend != "gpiod":
        return None
    if config.pads.chip == "auto":
        try:
            import gpiod
        except ImportError:
            return Check("gpiochip", FAIL, "the gpiod module (libgpiod v2 bindings) is missing",
                         "pip install gpiod in the referee's venv (deploy/install.sh does)")
        from hardware.gpiochips import header_chip_path
        from hardware.pad_errors import PadConfigError
        try:
            path = header_chip_path(gpiod)
        except (PadConfigError, OSError) as exc:
            return Check("gpiochip", FAIL, str(exc), "set [pads] chip to the header's /dev/gpiochipN")
        return Check("gpiochip", OK, f"{path}: the header chip by its label (libgpiod kernel timestamps)")
    chip = Path(config.pads.chip)
    chip = probes.dev / chip.name if chip.parent == Path("/dev") else chip
    if not chip.exists():
        return Check("gpiochip", FAIL, f"{config.pads.chip} missing",
                     'use chip = "auto" (a Pi 5 header is /dev/gpiochip0 only from kernel 6.6.45, gpiochip4 before)')
    return Check("gpiochip", OK, f"{config.pads.chip} present (libgpiod kernel timestamps)")


def check_camera(config: TableConfig, probes: Probes) -> Check:
    """A camera the configured source can open, and whether it reaches the configured frame rate."""
    source = config.camera.source
    if source == "opencv":
        node = probes.dev / f"video{config.camera.device}"
        if node.exists():
            return Check("camera", OK, f"/dev/{node.name} present (opencv source)")
        return Check("camera", FAIL, f"/dev/{node.name} missing (opencv source)",
                     "plug in the USB camera, or set [camera] device / source")
    try:
        cameras = probes.cameras()
    except ImportError as exc:
        return Check("camera", FAIL if source == "picamera2" else WARN, f"picamera2 not importable ({exc})",
                     "sudo apt install python3-picamera2; the venv must be made with --system-site-packages")
    except Exception as exc:
        return Check("camera", FAIL if source == "picamera2" else WARN,
                     f"libcamera could not list cameras ({type(exc).__name__}: {exc})",
                     "check the ribbon cable (contacts towards the board), then `rpicam-hello --list-cameras`")
    if not cameras:
        verdict = FAIL if source == "picamera2" else WARN
        return Check("camera", verdict, f"no camera found (camera source {source})",
                     "reseat the ribbon cable with power off, then `rpicam-hello --list-cameras`; "
                     "on a Pi 5 use the CAM/DISP 0 port")
    cam = cameras[0]
    if source != "picamera2":
        return Check("camera", WARN, f"{cam.model} found, but [camera] source is {source!r}",
                     'set [camera] source = "picamera2" to judge real cards')
    want = config.camera.fps
    if cam.max_fps is None:
        return Check("camera", OK, f"{cam.model}, frame rate not measured ({cam.note or 'unknown'}); "
                                   f"config asks {want:g} fps")
    if cam.max_fps + 0.5 < want:
        return Check("camera", FAIL, f"{cam.model} reaches {cam.max_fps:.0f} fps, config asks {want:g}",
                     f"lower [camera] fps to {int(cam.max_fps)} or less")
    return Check("camera", OK, f"{cam.model}, up to {cam.max_fps:.0f} fps (config {want:g} fps)")


def check_clock(probes: Probes) -> Check:
    """CLOCK_MONOTONIC (every stamp) must advance, be fine-grained, and not have missed a suspend."""
    boot1 = probes.clock_ns(time.CLOCK_BOOTTIME)
    mono = probes.clock_ns(time.CLOCK_MONOTONIC)
    boot2 = probes.clock_ns(time.CLOCK_BOOTTIME)
    mono2 = probes.clock_ns(time.CLOCK_MONOTONIC)
    if mono2 < mono or boot2 < boot1:
        return Check("clock", FAIL, "a clock went backwards", "report this kernel: stamps cannot be ordered")
    drift_s = ((boot1 + boot2) / 2 - mono) / 1e9
    res = probes.clock_res(time.CLOCK_MONOTONIC)
    if res > 1e-6:
        return Check("clock", WARN, f"CLOCK_MONOTONIC resolution {res * 1e9:.0f} ns",
                     "pads and camera stamps need a high-resolution clock: use a stock Raspberry Pi OS kernel")
    if abs(drift_s) > SUSPEND_WARN_S:
        return Check("clock", WARN, f"BOOTTIME is {drift_s:.1f} s ahead of MONOTONIC: the system was suspended",
                     "disable suspend (sudo systemctl mask sleep.target suspend.target) and reboot")
    return Check("clock", OK, f"MONOTONIC and BOOTTIME agree ({abs(drift_s) * 1e3:.1f} ms apart), resolution {res * 1e9:.0f} ns")


def check_i2c(config: TableConfig, probes: Probes) -> Check:
    """The I2C bus device, and for MPR121 pads the board answering at the configured address."""
    buses = sorted(p.name for p in probes.dev.glob("i2c-*"))
    pads = config.pads
    if pads.backend != "mpr121":
        return Check("i2c", OK, f"not used by pads {pads.backend} ({', '.join(buses) or 'no /dev/i2c-*'})")
    node = probes.dev / f"i2c-{pads.i2c_bus}"
    if not node.exists():
        return Check("i2c", FAIL, f"/dev/i2c-{pads.i2c_bus} missing (I2C off)",
                     "sudo raspi-config nonint do_i2c 0, then reboot")
    try:
        found = [a for a in MPR121_ADDRESSES if probes.i2c_probe(pads.i2c_bus, a)]
    except Exception as exc:
        return Check("i2c", FAIL, f"cannot scan bus {pads.i2c_bus} ({type(exc).__name__}: {exc})",
                     "add the user to the i2c group; sudo apt install python3-smbus2")
    listed = ", ".join(f"0x{a:02X}" for a in found) or "nothing"
    if pads.i2c_address not in found:
        fix = (f"set [pads] i2c_address = 0x{found[0]:02X}" if found else
               "check MPR121 wiring: 3V3, GND, SDA to GPIO 2 (pin 3), SCL to GPIO 3 (pin 5), ADDR to GND for 0x5A")
        return Check("i2c", FAIL, f"no MPR121 at 0x{pads.i2c_address:02X} on bus {pads.i2c_bus} (found {listed})", fix)
    return Check("i2c", OK, f"MPR121 at 0x{pads.i2c_address:02X} on bus {pads.i2c_bus} (found {listed})")


def check_journal(config: TableConfig, probes: Probes) -> Check:
    """The journal's folder exists, is writable, and has room."""
    path = Path(config.journal.path)
    folder = (path if path.is_absolute() else probes.cwd / path).parent
    if not folder.is_dir():
        return Check("journal", FAIL, f"journal folder {folder} missing",
                     f"sudo install -d -o tabletop {folder} (deploy/install.sh does this)")
    free_mb = probes.disk_usage(folder).free / 1e6
    if free_mb < JOURNAL_FAIL_MB:
        return Check("journal", FAIL, f"{folder}: only {free_mb:.0f} MB free",
                     "free space on the SD card, or set [journal] keep_games")
    if not os.access(folder, os.W_OK):
        return Check("journal", WARN, f"{folder}: {free_mb:.0f} MB free, not writable by this user",
                     "fine when the service user owns it; else sudo chown tabletop " + str(folder))
    if free_mb < JOURNAL_WARN_MB:
        return Check("journal", WARN, f"{folder}: {free_mb:.0f} MB free", "free space, or set [journal] keep_games")
    return Check("journal", OK, f"{folder}: {free_mb:.0f} MB free")


def check_profile(probes: Probes) -> Check:
    """A calibration profile exists and is fresh (a warning only: calibration is still to come)."""
    profiles = [p for d in probes.profile_dirs if d.is_dir() for p in d.glob("*.toml")]
    where = " or ".join(str(d) for d in probes.profile_dirs)
    if not profiles:
        return Check("profile", WARN, f"no calibration profile in {where}",
                     "calibrate the table (default pad offsets and camera region are used until then)")
    newest = max(profiles, key=lambda p: p.stat().st_mtime)
    age_days = (probes.now() - newest.stat().st_mtime) / 86400
    if age_days > PROFILE_MAX_AGE_DAYS:
        return Check("profile", WARN, f"{newest.name} is {age_days:.0f} days old",
                     "recalibrate: lighting, pads and seating drift")
    return Check("profile", OK, f"{newest} ({age_days:.1f} days old)")


def run_checks(config_path: Path, probes: Probes | None = None) -> list[Check]:
    """Every check in order; with a bad config the hardware checks use the code's defaults."""
    probes = probes or Probes()
    config_check, config = check_config(config_path)
    config = config or TableConfig()
    checks = [config_check, check_pins(config, probes), check_gpiod(config, probes),
              check_camera(config, probes), check_clock(probes), check_i2c(config, probes),
              check_audio(config, probes), check_espeak(config, probes), check_journal(config, probes),
              check_profile(probes)]
    return [c for c in checks if c is not None]


def exit_code(checks: Sequence[Check]) -> int:
    """1 when anything the table needs failed, else 0 (warnings do not fail)."""
    return 1 if any(c.verdict == FAIL for c in checks) else 0


def run(args: argparse.Namespace, probes: Probes | None = None) -> int:
    """The command: print each check (or JSON), return the exit code."""
    checks = run_checks(Path(args.config), probes)
    code = exit_code(checks)
    if args.json:
        print(json.dumps({"ok": code == 0, "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        for c in checks:
            print(c.line())
        fails = sum(c.verdict == FAIL for c in checks)
        warns = sum(c.verdict == WARN for c in checks)
        print(f"{fails} failed, {warns} warnings" + ("" if fails else ": this table can play"))
    return code


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `referee doctor` (entry point `referee.commands`)."""
    p = sub.add_parser("doctor", help="check the Pi: pins, camera, clock, I2C, audio, journal, profile",
                       description="One line per check (ok / warn / FAIL) with a fix; exits 1 when "
                                   "something the configured game needs has failed.")
    p.add_argument("--config", default=str(DEFAULT_CONFIG), help=f"table config (default {DEFAULT_CONFIG})")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.set_defaults(run=run)

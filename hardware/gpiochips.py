"""Find the gpiochip of the Pi's 40-pin header by its label, not its number.

The header's chip is labelled `pinctrl-rp1` on a Pi 5 (the RP1 south bridge),
`pinctrl-bcm2711` on a Pi 4 and `pinctrl-bcm2835` on older boards. Its number
moves: on a Pi 5 the RP1 is /dev/gpiochip4 with kernels before 6.6.45 and
/dev/gpiochip0 from 6.6.45 on (the SoC's own chips moved to 10-13), so
"gpiochip0" or "gpiochip4" picked by board type is right only on some kernels
(gpiozero's LGPIOFactory guesses 4 when /dev/gpiochip4 exists on a Pi 5).
Labels come from the library that will drive the pins: libgpiod v2
(`Chip(path).get_info().label`) or lgpio (`gpio_get_chip_info(handle)`).
"""
from __future__ import annotations

import glob
import re
from typing import Any, Mapping, TypeVar

from .pad_errors import PadConfigError

#: Header chip labels, newest board first.
HEADER_LABELS: tuple[str, ...] = ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")
#: Chip numbers tried besides the /dev/gpiochip* that exist (a Pi 5 has 0-13 at most).
PROBE_NUMBERS = range(32)
AUTO = "auto"

K = TypeVar("K")


def chip_numbers() -> list[int]:
    """Numbers worth trying: 0..31 and any /dev/gpiochipN present."""
    found = {int(m.group(1)) for p in glob.glob("/dev/gpiochip*") if (m := re.fullmatch(r"/dev/gpiochip(\d+)", p))}
    return sorted(found | set(PROBE_NUMBERS))


def pick_header(labels: Mapping[K, str]) -> K | None:
    """The chip whose label is a header label, preferring the newest board's; None if there is none."""
    for wanted in HEADER_LABELS:
        for key, label in sorted(labels.items(), key=lambda kv: str(kv[0])):
            if label == wanted:
                return key
    return None


def gpiod_labels(gpiod: Any) -> dict[str, str]:
    """{"/dev/gpiochipN": label} of every chip libgpiod can open."""
    out: dict[str, str] = {}
    for n in chip_numbers():
        path = f"/dev/gpiochip{n}"
        if gpiod.is_gpiochip_device(path):
            try:
                with gpiod.Chip(path) as chip:
                    out[path] = chip.get_info().label
            except OSError:
                continue
    return out


def lgpio_labels(lgpio: Any) -> dict[int, str]:
    """{N: label} of every /dev/gpiochipN lgpio can open."""
    out: dict[int, str] = {}
    for n in chip_numbers():
        try:
            handle = lgpio.gpiochip_open(n)
        except lgpio.error:
            continue
        try:
            out[n] = str(lgpio.gpio_get_chip_info(handle)[3])
        finally:
            lgpio.gpiochip_close(handle)
    return out


def header_chip_path(gpiod: Any, chip: str = AUTO) -> str:
    """The chip path to request pad lines on: `chip` as given, else (AUTO) the header's by label."""
    if chip != AUTO:
        return chip
    labels = gpiod_labels(gpiod)
    found = pick_header(labels)
    if found is None:
        raise PadConfigError(f"no GPIO header chip ({', '.join(HEADER_LABELS)}) among {labels or 'no chips'}; "
                             "set [pads] chip to the chip's path")
    return found


def header_chip_number(lgpio: Any) -> int | None:
    """The header chip's number for LGPIOFactory(chip=N), or None when no chip has a header label."""
    return pick_header(lgpio_labels(lgpio))

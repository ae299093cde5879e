"""The default wiring: which Broadcom GPIO each seat's pads use (see hardware/README.md).

Seats are 0-based here and in every event; people hear them 1-based ("pad 1").
Pins avoid I2C (2, 3), SPI0 (7-11), UART (14, 15) and PCM/I2S audio (18-21).
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

#: Slap pad per seat: a momentary switch from the GPIO to ground (internal pull-up).
DEFAULT_PAD_PINS: Mapping[int, int] = MappingProxyType({0: 17, 1: 27, 2: 22, 3: 23, 4: 24, 5: 25})

#: Optional "press" button per seat (slapstick: chicken out / stop / done), wired like a pad.
DEFAULT_PRESS_PINS: Mapping[int, int] = MappingProxyType({0: 5, 1: 6, 2: 16, 3: 26, 4: 12, 5: 13})

#: MPR121 capacitive board: IRQ (open drain, active low) to this GPIO; SDA/SCL on GPIO 2/3.
DEFAULT_MPR121_IRQ_PIN: int = 4

#: MPR121 I2C address with ADDR tied to GND (0x5B: VDD, 0x5C: SDA, 0x5D: SCL).
DEFAULT_MPR121_ADDRESS: int = 0x5A

#: Electrode per seat on a single MPR121 (0-11); electrode 12 is the proximity sum.
DEFAULT_MPR121_ELECTRODES: Mapping[int, int] = MappingProxyType({0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5})

#: Keyboard pads for laptops: lower case slaps, upper case (shift) presses.
DEFAULT_PAD_KEYS: Mapping[str, int] = MappingProxyType({"a": 0, "l": 1, "z": 2, "m": 3, "q": 4, "p": 5})

#: RGB LED per seat, (red, green, blue) GPIO; common cathode to GND, one resistor per colour.
#: Direct GPIO fits four seats plus the status LED, on SPI0 and UART pins (turn SPI and the
#: serial console off), the pads of seats 4-5 and the press-button pins: a table with lights
#: puts its press buttons on MPR121 electrodes (see README "Lights and voice").
DEFAULT_LIGHT_PINS: Mapping[int, tuple[int, int, int]] = MappingProxyType({
    0: (9, 10, 11), 1: (7, 8, 25), 2: (14, 15, 24), 3: (12, 13, 16)})

#: The status RGB LED (whole table: "check the table", ready, winner).
DEFAULT_STATUS_PINS: tuple[int, int, int] = (5, 6, 26)

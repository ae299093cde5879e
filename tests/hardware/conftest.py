"""Fixtures: a fresh gpiozero MockFactory of TimedMockPins for every test, reset afterwards."""
from __future__ import annotations

from typing import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from hardware.mock_pins import TimedMockPin


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    saved = Device.pin_factory
    factory = MockFactory(pin_class=TimedMockPin)
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved

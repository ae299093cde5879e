"""RgbLights on gpiozero mock PWM pins, and the ruling -> pattern table."""
from __future__ import annotations

import time
from typing import Callable, Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.light_patterns import LIGHT_PATTERNS, patterns_for
from hardware.lights import (BadSeat, LightsClosed, LightsConfigError, LightsError, RgbLights,
                             UnknownPattern)
from referee.table.ports import PATTERNS, Lights
from referee.core.rulings import KINDS, Ruling

SEAT0, SEAT1, STATUS = (7, 8, 9), (10, 11, 14), (5, 6, 16)


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory(pin_class=MockPWMPin)
    try:
        yield f
    finally:
        f.reset()


@pytest.fixture
def lights(factory: MockFactory) -> Iterator[RgbLights]:
    with RgbLights([SEAT0, SEAT1], STATUS, pin_factory=factory) as lt:
        yield lt


def rgb(factory: MockFactory, pins: tuple[int, int, int]) -> tuple[float, float, float]:
    return tuple(float(factory.pin(p).state) for p in pins)  # type: ignore[return-value]


def wait_until(cond: Callable[[], bool], what: str, limit_s: float = 5.0) -> None:
    """Wait for a background blink thread to have written something (a generous limit, not a timing check)."""
    deadline = time.monotonic() + limit_s
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.005)


def written(factory: MockFactory, pins: tuple[int, int, int], since: list[int]) -> list[list[float]]:
    """Per channel (r, g, b): the values written since `since` (mock pins record changes only)."""
    return [[float(s.state) for s in factory.pin(p).states[n:]] for p, n in zip(pins, since)]


def blinked(factory: MockFactory, pins: tuple[int, int, int], since: list[int], on: tuple, off: tuple) -> bool:
    """Every channel whose two colours differ has gone to its on value and back to its off value."""
    for pin, n, a, b in zip(pins, since, on, off):
        if a == b:
            continue
        seq = [float(s.state) for s in factory.pin(pin).states[n - 1:]]   # from the value before show()
        if not any(x == a and y == b for x, y in zip(seq, seq[1:])):
            return False
    return True


def marks(factory: MockFactory, pins: tuple[int, int, int]) -> list[int]:
    return [len(factory.pin(p).states) for p in pins]


def test_rgb_lights_satisfy_the_port(lights: RgbLights) -> None:
    port: Lights = lights                      # type-checks against the Protocol
    assert callable(port.show) and callable(port.close)
    assert set(LIGHT_PATTERNS) == set(PATTERNS)
    assert lights.seats == 2 and lights.has_status


@pytest.mark.parametrize("name", [p for p in PATTERNS if LIGHT_PATTERNS[p].effect == "solid"])
def test_solid_patterns_set_the_pins(lights: RgbLights, factory: MockFactory, name: str) -> None:
    lights.show(0, "won")              # start from a blink: a solid colour must stop it
    lights.show(0, name)
    assert rgb(factory, SEAT0) == pytest.approx(LIGHT_PATTERNS[name].on_color)
    assert lights._leds[0]._blink_thread is None
    assert lights.pattern(0) == name
    assert rgb(factory, SEAT1) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("name", [p for p in PATTERNS if LIGHT_PATTERNS[p].effect == "blink"])
def test_blink_patterns_alternate_their_two_colours(lights: RgbLights, factory: MockFactory, name: str) -> None:
    look = LIGHT_PATTERNS[name]
    since = marks(factory, SEAT1)
    lights.show(1, name)
    wait_until(lambda: blinked(factory, SEAT1, since, look.on_color, look.off_color), f"{name} to blink")
    for vals, a, b in zip(written(factory, SEAT1, since), look.on_color, look.off_color):
        assert set(vals) <= {a, b}
    assert rgb(factory, SEAT0) == (0.0, 0.0, 0.0)
    assert lights.pattern(1) == name


def test_waiting_pulses_yellow(lights: RgbLights, factory: MockFactory) -> None:
    since = marks(factory, SEAT0)
    lights.show(0, "waiting")
    wait_until(lambda: len(set(written(factory, SEAT0, since)[0])) >= 4, "a pulse")
    reds, greens, blues = written(factory, SEAT0, since)
    assert blues == [] and max(reds) <= 1.0
    assert greens[:3] == pytest.approx([0.7 * r for r in reds[:3]])


def test_every_pattern_looks_different() -> None:
    looks = {(p.effect, p.on_color, p.off_color, p.on_time, p.off_time, p.fade_time)
             for p in LIGHT_PATTERNS.values()}
    assert len(looks) == len(LIGHT_PATTERNS)


def test_status_light_shows_check_the_table(lights: RgbLights, factory: MockFactory) -> None:
    since = marks(factory, STATUS)
    lights.show(None, "check_table")
    wait_until(lambda: blinked(factory, STATUS, since, (1.0, 0.35, 0.0), (0.0, 0.0, 0.0)),
               "the status LED to blink amber")
    assert lights.pattern(None) == "check_table"
    assert rgb(factory, SEAT0) == rgb(factory, SEAT1) == (0.0, 0.0, 0.0)


def test_without_status_light_none_drives_every_seat(factory: MockFactory) -> None:
    with RgbLights([SEAT0, SEAT1], pin_factory=factory) as lt:
        lt.show(None, "out")
        assert rgb(factory, SEAT0) == rgb(factory, SEAT1) == pytest.approx((0.25, 0.0, 0.0))
        assert lt.pattern(0) == lt.pattern(1) == "out"
        with pytest.raises(BadSeat, match="no status light"):
            lt.pattern(None)
        assert "status" not in repr(lt)


def test_repr_shows_each_light_then_closed(lights: RgbLights) -> None:
    lights.show(0, "turn")
    lights.show(None, "ready")
    assert repr(lights) == "<RgbLights seats=[0: turn, 1: off] status=ready>"
    lights.close()
    assert repr(lights) == "<RgbLights closed>"


def test_close_turns_off_releases_pins_and_refuses_use(factory: MockFactory) -> None:
    lt = RgbLights([SEAT0], STATUS, pin_factory=factory)
    lt.show(0, "winner")
    lt.show(None, "check_table")
    lt.close()
    lt.close()                                       # idempotent
    assert rgb(factory, SEAT0) == rgb(factory, STATUS) == (0.0, 0.0, 0.0)
    with pytest.raises(LightsClosed):
        lt.show(0, "turn")
    assert issubclass(LightsClosed, RuntimeError)
    with RgbLights([SEAT0], STATUS, pin_factory=factory) as again:   # pins were released
        again.show(0, "turn")


@pytest.mark.parametrize("seat", [2, -1, True, "0", 1.0])
def test_bad_seat_is_a_clear_value_error(lights: RgbLights, seat: object) -> None:
    with pytest.raises(BadSeat, match=r"seats are 0\.\.1") as err:
        lights.show(seat, "turn")  # type: ignore[arg-type]
    assert isinstance(err.value, ValueError) and isinstance(err.value, LightsError)


def test_unknown_pattern_is_a_value_error(lights: RgbLights) -> None:
    with pytest.raises(UnknownPattern, match="known: off, ") as err:
        lights.show(0, "disco")
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("seats, status, message", [
    ([], None, "at least one seat"),
    ([(7, 8)], None, "seat 0: expected three"),
    ([(7, 8, 9), (9, 10, 11)], None, r"used twice by the lights: \[9\]"),
    ([(7, 8, 9)], (9, 10, 11), r"used twice"),
    ([(7, 8, 9)], (10, 11), "status: expected three"),
])
def test_impossible_pins_are_refused(factory: MockFactory, seats: list, status: tuple | None, message: str) -> None:
    with pytest.raises(LightsConfigError, match=message):
        RgbLights(seats, status, pin_factory=factory)


# ---- ruling -> patterns --------------------------------------------------------
def test_every_ruling_kind_maps_to_known_patterns() -> None:
    for kind in sorted(KINDS):
        fields = {"winner": 1, "loser": 0} if kind == "game_over" else {"seats": [0, 2]}
        for seat, pattern in patterns_for(Ruling(kind, 1, 0, "", fields), players=3):
            assert pattern in PATTERNS and (seat is None or 0 <= seat < 3)


@pytest.mark.parametrize("kind, seat, expected", [
    ("wins_pile", 2, [(2, "won")]),
    ("picks_up", 1, [(1, "pick_up")]),
    ("false_slap", 0, [(0, "false_slap")]),
    ("dead_card", 3, [(3, "false_slap")]),
    ("waiting", 1, [(1, "waiting")]),
    ("back_in", 1, [(1, "ready")]),
    ("out", 2, [(2, "out")]),
    ("sits_out", 2, [(2, "out")]),
    ("check_table", None, [(None, "check_table")]),
    ("ignored", 1, []),
    ("pays", 1, []),
    ("target", None, []),
    ("reverse", None, []),
])
def test_seat_rulings(kind: str, seat: int | None, expected: list) -> None:
    assert patterns_for(Ruling(kind, seat, 0)) == expected


def test_whole_table_rulings() -> None:
    over = Ruling("game_over", 2, 0, "", {"winner": 2, "loser": None})
    assert patterns_for(over) == [(2, "winner"), (None, "winner")]
    assert patterns_for(over, players=3) == [(0, "off"), (1, "off"), (2, "winner"), (None, "winner")]
    lost = Ruling("game_over", None, 0, "", {"winner": None, "loser": 1})
    assert patterns_for(lost, players=2) == [(0, "off"), (1, "out"), (None, "winner")]
    assert patterns_for(Ruling("round_end", None, 0), players=2) == [(0, "ready"), (1, "ready"), (None, "ready")]
    assert patterns_for(Ruling("slap_again", None, 0, "", {"seats": [1, 3]})) == [(1, "ready"), (3, "ready"), (None, "ready")]


def test_a_ruling_shown_on_the_lights(lights: RgbLights, factory: MockFactory) -> None:
    for seat, pattern in patterns_for(Ruling("game_over", 1, 0, "", {"winner": 1, "loser": 0}), players=2):
        lights.show(seat, pattern)
    assert repr(lights) == "<RgbLights seats=[0: out, 1: winner] status=winner>"
    assert rgb(factory, SEAT0) == pytest.approx((0.25, 0.0, 0.0))


def test_default_light_pins_clash_with_nothing_a_four_seat_table_uses(factory: MockFactory) -> None:
    from hardware.pins import DEFAULT_LIGHT_PINS, DEFAULT_MPR121_IRQ_PIN, DEFAULT_PAD_PINS, DEFAULT_STATUS_PINS
    lights = [p for rgb in DEFAULT_LIGHT_PINS.values() for p in rgb] + list(DEFAULT_STATUS_PINS)
    reserved = {0, 1, 2, 3, 18, 19, 20, 21, DEFAULT_MPR121_IRQ_PIN} | {DEFAULT_PAD_PINS[s] for s in range(4)}
    assert len(set(lights)) == len(lights) == 15 and not set(lights) & reserved
    assert all(0 <= p <= 27 for p in lights)
    with RgbLights([DEFAULT_LIGHT_PINS[s] for s in range(4)], DEFAULT_STATUS_PINS, pin_factory=factory) as lt:
        lt.show(3, "turn")
        assert rgb(factory, DEFAULT_LIGHT_PINS[3]) == (0.0, 0.0, 1.0)

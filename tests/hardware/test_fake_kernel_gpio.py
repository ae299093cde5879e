"""The GPIO fakes against the kernel and library behaviour they model (gpiolib-cdev.c, lgPthAlerts.c, lgGpio.c),
the world they read, and choosing the header's gpiochip by label."""
from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest

from hardware.gpiochips import header_chip_number, header_chip_path

from .conftest import FakeOS

FIXED_IRQ = {"irq_thread_us": [50, 50]}   # every IRQ thread runs 50 µs after its first hard IRQ


def _request(gpiod: Any, offsets: tuple[int, ...], **kw: Any) -> Any:
    line = gpiod.line
    settings = gpiod.LineSettings(direction=line.Direction.INPUT, edge_detection=line.Edge.BOTH,
                                  bias=line.Bias.PULL_UP, active_low=True, event_clock=line.Clock.MONOTONIC)
    return gpiod.request_lines("/dev/gpiochip0", consumer="test", config={offsets: settings}, **kw)


def _events(req: Any) -> list[Any]:
    out = []
    while req.wait_edge_events(0):
        out += req.read_edge_events()
    return out


def test_bounce_faster_than_the_irq_thread_is_one_event_with_the_last_stamp_and_a_later_level(fakeos: FakeOS) -> None:
    import gpiod
    # closed at 0, open at 20, closed at 40 (all before the thread runs at 50), open at 140, closed at 240
    contact = {"seat": 0, "t_us": 0, "hold_us": 5000, "bounce_us": [20, 20, 100, 100]}
    w = fakeos.table([contact], kernel=FIXED_IRQ)
    req = _request(gpiod, (17, 27))
    t0 = fakeos.go(w)
    fakeos.wait(w, 8000)
    got = [((e.timestamp_ns - t0) // 1000, e.event_type.name, e.global_seqno, e.line_seqno) for e in _events(req)]
    assert got == [(40, "RISING_EDGE", 3, 1),     # three hard IRQs, one event: the last stamp, level at 50
                   (140, "FALLING_EDGE", 4, 2),
                   (240, "RISING_EDGE", 5, 3),
                   (5000, "FALLING_EDGE", 6, 4)]
    req.release()


def test_first_event_of_a_touch_can_say_released(fakeos: FakeOS) -> None:
    import gpiod
    # closed at 0, open at 30 (overwriting the stamp), the thread at 50 reads it open: "released", stamped 30
    w = fakeos.table([{"seat": 0, "t_us": 0, "hold_us": 500_000, "bounce_us": [30, 200]}], kernel=FIXED_IRQ)
    req = _request(gpiod, (17,))
    t0 = fakeos.go(w)
    fakeos.wait(w, 1000)
    events = _events(req)
    assert [((e.timestamp_ns - t0) // 1000, e.event_type.name) for e in events][:2] == [
        (30, "FALLING_EDGE"), (230, "RISING_EDGE")]
    assert [(e.global_seqno, e.line_seqno) for e in events] == [(1, 1), (2, 2)]  # one line: seqno = line_seqno
    req.release()


def test_a_full_fifo_drops_its_oldest_events_and_the_line_seqno_shows_it(fakeos: FakeOS) -> None:
    import gpiod
    bounce = [200] * 10                      # 11 edges, each its own event
    w = fakeos.table([{"seat": 0, "t_us": 0, "hold_us": 500_000, "bounce_us": bounce}],   # read long before release
                     kernel={"irq_thread_us": [50, 50], "event_fifo": 4})
    req = _request(gpiod, (17, 27))
    t0 = fakeos.go(w)
    fakeos.wait(w, 3000)
    events = _events(req)
    assert [e.line_seqno for e in events] == [8, 9, 10, 11]
    assert (events[0].timestamp_ns - t0) // 1000 == 1400
    req.release()


def test_kernel_fifo_default_is_16_a_line_rounded_to_a_power_of_two(fakeos: FakeOS) -> None:
    import gpiod
    fakeos.table()
    req = _request(gpiod, (17, 27, 22))
    assert req._req.capacity == 64
    req.release()
    req = _request(gpiod, (17,), event_buffer_size=5)
    assert req._req.capacity == 8
    with pytest.raises(OSError):                 # the line is taken: EBUSY
        _request(gpiod, (17, 27))
    req.release()


def test_gpiod_chips_come_from_the_world(fakeos: FakeOS) -> None:
    import gpiod
    fakeos.table(board="pi5")
    assert gpiod.is_gpiochip_device("/dev/gpiochip0") and not gpiod.is_gpiochip_device("/dev/gpiochip4")
    with gpiod.Chip("/dev/gpiochip10") as chip:
        assert chip.get_info().label == "gpio-brcmstb@107d508500"
    with pytest.raises(FileNotFoundError):
        gpiod.Chip("/dev/gpiochip4")
    req = _request(gpiod, (17,))
    assert req.wait_edge_events(timedelta(milliseconds=5)) is False
    assert req.get_value(17) == gpiod.line.Value.INACTIVE   # pull-up, nothing pressed
    req.release()
    with pytest.raises(gpiod.RequestReleasedError):
        req.get_value(17)


def test_lgpio_alerts_are_sorted_late_by_the_poll_and_carry_kernel_ns(fakeos: FakeOS) -> None:
    import lgpio
    contacts = [{"seat": 0, "t_us": 300, "hold_us": 2000}, {"seat": 1, "t_us": 0, "hold_us": 2000}]
    w = fakeos.table(contacts, kernel=FIXED_IRQ)
    handle = lgpio.gpiochip_open(0)
    got: list[tuple[int, int, int, int]] = []
    for gpio in (17, 27):
        lgpio.gpio_claim_alert(handle, gpio, lgpio.BOTH_EDGES, lgpio.SET_PULL_UP)
        lgpio.callback(handle, gpio, lgpio.BOTH_EDGES,
                       lambda c, g, lv, tick: got.append((g, lv, tick, time.monotonic_ns())))
    t0 = fakeos.go(w)
    fakeos.wait(w, 6000)
    assert [(g, lv, (tick - t0) // 1000) for g, lv, tick, _ in got] == [
        (27, 0, 0), (17, 0, 300), (27, 1, 2000), (17, 1, 2300)]
    assert all(heard - tick >= 500_000 for _, _, tick, heard in got)   # emitted 0.5 ms after the stamp at least
    assert lgpio.gpio_read(handle, 17) == 1
    assert lgpio.gpio_get_mode(handle, 17) & (1 << 10)                # lg's alert mode bit
    lgpio.gpiochip_close(handle)


def test_lgpio_opens_chips_by_number_and_tells_their_labels(fakeos: FakeOS) -> None:
    import lgpio
    fakeos.table(board="pi5-old-kernel")
    handle = lgpio.gpiochip_open(4)
    assert lgpio.gpio_get_chip_info(handle) == [0, 54, "gpiochip4", "pinctrl-rp1"]
    lgpio.gpiochip_close(handle)
    with pytest.raises(lgpio.error, match="can not open gpiochip"):
        lgpio.gpiochip_open(5)


@pytest.mark.parametrize("board, number, path, model", [
    ("pi4", 0, "/dev/gpiochip0", "4B"),
    ("pi5-old-kernel", 4, "/dev/gpiochip4", "5B"),
    ("pi5", 0, "/dev/gpiochip0", "5B")])
def test_header_chip_is_found_by_label_and_gpiozero_reads_the_board(fakeos: FakeOS, board: str, number: int,
                                                                   path: str, model: str) -> None:
    import gpiod
    import lgpio
    from gpiozero.pins.lgpio import LGPIOFactory
    fakeos.table(board=board)
    assert header_chip_number(lgpio) == number
    assert header_chip_path(gpiod) == path
    assert header_chip_path(gpiod, "/dev/gpiochip1") == "/dev/gpiochip1"
    factory = LGPIOFactory(chip=number)
    try:
        assert factory.board_info.model == model      # read through the revision stand-in
    finally:
        factory.close()


def test_world_json_is_validated_strictly(fakeos: FakeOS) -> None:
    World, WorldError = fakeos.world.World, fakeos.world.WorldError
    good = {"seat": 0, "t_us": 0, "hold_us": 100}
    bad: dict[str, Any]
    for bad in ({"contact": []}, {"contacts": [{**good, "bounce": [1, 2]}]}, {"lines": {"gpiochip7:1": {"seat": 0}}},
                {"contacts": [{**good, "bounce_us": [10]}]}, {"contacts": [good, {**good, "t_us": 50}]},
                {"kernel": {"irq_thread_us": [20, 120], "poll_us": 1}}, {"camera": {"faults": [{"kind": "error"}]}}):
        with pytest.raises(WorldError):
            World(bad)
    w = World({"lines": {"gpiochip0:17": {"seat": 0}}, "contacts": [{**good, "bounce_us": [10, 20]}]}, t0_ns=0)
    assert w.line_changes("/dev/gpiochip0", 17) == [(0, 0), (10_000, 1), (30_000, 0), (100_000, 1)]
    assert w.level("gpiochip0", 17, 5_000) == 0 and w.level("gpiochip0", 18, 5_000) is None

"""The smbus2 fake's MPR121 against the datasheet (rev. 4/5), register by register and in time.

Raw register writes, as AN3944's quick start does them; the world's timeline
says when hands touch and hover. Times are checked against the datasheet's
rules: status, data and baselines change once per ESI x SFI (5.2-5.4), debounce
delays by DT updates (5.7), IRQ falls at a change and rises when the status is
read, writes outside stop mode are ignored (5.1), ECR's CL loads the baseline (5.11).
"""
from __future__ import annotations

from typing import Any, Iterator

import pytest

from .fake_mpr121 import IRQ_LINE, fakeos, go, table, table_spec, wait_until

ADDR = 0x5A
SCAN_NS = 13 * 6 * 2 * 500          # FFI 6 charges of 2 x 0.5 µs, 13 channels


@pytest.fixture
def fake() -> Iterator[Any]:
    with fakeos() as world:
        yield world


def configure(bus: Any, *, afe2: int = 0x20, debounce: int = 0, ecr: int = 0xF0 | 12,
              touch: int = 12, release: int = 6) -> None:
    """AN3944's order: stop, baseline filters, thresholds, debounce, AFE, then ECR last."""
    bus.write_byte_data(ADDR, 0x80, 0x63)
    for i, v in enumerate((1, 1, 0, 0, 1, 1, 0xFF, 2, 0, 0, 0) + (0x3F, 0x3F, 0, 0, 1, 1, 0xFF, 0xFF, 0, 0, 0)):
        bus.write_byte_data(ADDR, 0x2B + i, v)
    for e in range(12):
        bus.write_byte_data(ADDR, 0x41 + 2 * e, touch)
        bus.write_byte_data(ADDR, 0x42 + 2 * e, release)
    bus.write_byte_data(ADDR, 0x59, 4)
    bus.write_byte_data(ADDR, 0x5A, 2)
    bus.write_byte_data(ADDR, 0x5B, debounce)
    bus.write_byte_data(ADDR, 0x5C, 0x10)
    bus.write_byte_data(ADDR, 0x5D, afe2)
    bus.write_byte_data(ADDR, 0x5E, ecr)


def touch(seat: int, t_ms: float, hold_ms: float = 40) -> dict[str, Any]:
    return {"seat": seat, "t_us": t_ms * 1000, "hold_us": hold_ms * 1000}


def status_changes(w: Any) -> list[tuple[float, int]]:
    """(ms from t0, status) of the chip's status changes, from the log the fake keeps in the world."""
    return [((r["t_ns"] - w.ns(0)) / 1e6, int(r["status"], 16)) for r in w.records if r.get("fake") == "smbus2"]


def test_reset_values_and_the_stop_mode_write_rule(fake: Any) -> None:
    table(fake, table_spec())
    import smbus2
    bus = smbus2.SMBus(1)
    bus.write_byte_data(ADDR, 0x5E, 0x0C)
    bus.write_byte_data(ADDR, 0x80, 0x63)                                 # soft reset: stop mode again
    regs = [bus.read_byte_data(ADDR, r) for r in range(0x80)]
    assert {r: v for r, v in enumerate(regs) if v} == {0x5C: 0x10, 0x5D: 0x24}
    bus.write_byte_data(ADDR, 0x41, 5)
    bus.write_byte_data(ADDR, 0x1E, 0xFF)                                 # baseline: writable in stop mode
    bus.write_byte_data(ADDR, 0x5E, 0x0C)                                 # run (CL 00: keep that baseline)
    bus.write_byte_data(ADDR, 0x41, 9)                                    # ignored in run mode
    bus.write_byte_data(ADDR, 0x77, 0x30)                                 # GPIO: any time
    assert [bus.read_byte_data(ADDR, r) for r in (0x41, 0x77, 0x5E, 0x1E)] == [5, 0x30, 0x0C, 0xFF]
    assert smbus2.chip(1, ADDR).base[0] == 1020                           # low two bits cleared on write


def test_an_absent_chip_or_bus_fails_as_i2c_dev_does(fake: Any) -> None:
    table(fake, table_spec())
    import smbus2
    with smbus2.SMBus(1) as bus:
        assert bus.read_byte(ADDR) == 0                                   # a probe: touch status 0x00
        with pytest.raises(OSError) as excinfo:
            bus.read_byte(0x5B)
        assert excinfo.value.errno == 121
        with pytest.raises(ValueError):
            bus.read_i2c_block_data(ADDR, 0x04, 33)
    with pytest.raises(FileNotFoundError):
        smbus2.SMBus(0)


# SFI 4 x ESI 1 ms, and 10 x 2 ms; thresholds under the contact's drop (80) / SFI: one scan shows it
@pytest.mark.parametrize("afe2, update_ms, threshold", [(0x20, 4, 12), (0x20 | 0x10 | 0x01, 20, 6)])
def test_status_changes_once_per_esi_x_sfi_and_at_most_that_after_the_hand(fake: Any, afe2: int,
                                                                          update_ms: int, threshold: int) -> None:
    contacts = [touch(s, 40 + 23.7 * s, 30) for s in range(6)]
    w = table(fake, table_spec(contacts=contacts))
    import smbus2
    configure(smbus2.SMBus(1), afe2=afe2, touch=threshold, release=threshold // 2)
    go(w, 5)
    wait_until(w, 240)
    changes = status_changes(w)
    firsts = {s: min(t for t, st in changes if st >> s & 1) for s in range(6)}
    for s, c in enumerate(contacts):
        assert 0 <= firsts[s] - c["t_us"] / 1000 < update_ms + SCAN_NS / 1e6, (s, firsts[s])
    grid = [(t - changes[0][0]) / update_ms for t, _ in changes]
    assert all(abs(g - round(g)) < 1e-6 for g in grid)                   # every change on the update grid


def test_debounce_delays_the_status_by_dt_updates(fake: Any) -> None:
    w = table(fake, table_spec(contacts=[touch(0, 50, 60), touch(1, 131.5, 2)]))   # seat 1 too short
    import smbus2
    configure(smbus2.SMBus(1), debounce=0x02, ecr=0xC0 | 12)              # DT 2, no proximity
    go(w, 5)
    wait_until(w, 200)
    (t_on, on), (t_off, off) = status_changes(w)
    assert on == 1 and off == 0
    assert 8 <= t_on - 50 < 12 + SCAN_NS / 1e6                           # 2 more detections, 4 ms apart


def test_irq_falls_at_the_change_and_rises_when_the_status_is_read(fake: Any) -> None:
    w = table(fake, table_spec(contacts=[touch(2, 30, 20), touch(3, 70, 20)]))
    import smbus2
    bus = smbus2.SMBus(1)
    configure(bus)
    chip_path, _, offset = IRQ_LINE.partition(":")
    go(w, 5)
    wait_until(w, 140)                                                    # four changes, nothing read
    assert [lv for _, lv in w.line_changes(chip_path, int(offset))] == [0]     # low once, held low
    first = status_changes(w)[0][0]
    assert (w.line_changes(chip_path, int(offset))[0][0] - w.ns(0)) / 1e6 == pytest.approx(first, abs=1e-6)
    assert bus.read_word_data(ADDR, 0x00) == 0                            # both released by now
    t_read = w.line_changes(chip_path, int(offset))[-1]
    assert t_read[1] == 1 and (t_read[0] - w.ns(0)) / 1e6 > 140


def test_proximity_sees_a_hover_no_electrode_reports(fake: Any) -> None:
    w = table(fake, table_spec(hovers=[{"seat": 2, "t_us": 30_000, "until_us": 200_000}]))
    import smbus2
    bus = smbus2.SMBus(1)
    configure(bus)
    go(w, 5)
    wait_until(w, 100)
    assert bus.read_word_data(ADDR, 0x00) == 0x1000                       # ELEPROX only
    data = bus.read_i2c_block_data(ADDR, 0x04, 26)
    base = bus.read_i2c_block_data(ADDR, 0x1E, 13)
    deltas = [(base[c] << 2) - (data[2 * c] | data[2 * c + 1] << 8) for c in range(13)]
    assert [d + 3 >= want >= d for d, want in zip(deltas, (0, 2, 6, 2, 0, 0))] == [True] * 6
    assert deltas[12] >= 10 - 3                                           # the sum of the drops


@pytest.mark.parametrize("cl, loaded", [(0b10, "five high bits"), (0b11, "ten bits"), (0b01, "no tracking")])
def test_ecr_cl_loads_the_baseline_at_run_entry(fake: Any, cl: int, loaded: str) -> None:
    w = go(table(fake, table_spec()), 0)
    import smbus2
    configure(smbus2.SMBus(1), ecr=cl << 6 | 12)
    wait_until(w, 60)
    chip = smbus2.chip(1, ADDR)
    data, base = chip.filt[:12], chip.base[:12]
    if loaded == "ten bits":
        assert base == data
    elif loaded == "five high bits":                                       # then rising tracking, 1 a step
        assert all(d & 0x3E0 <= b <= d for d, b in zip(data, base)) and base != [d & 0x3E0 for d in data]
    else:
        assert base == [0] * 12 and chip.status_word() == 0


def test_over_current_stops_the_chip_until_ovcf_is_written(fake: Any) -> None:
    w = go(table(fake, table_spec()), 0)
    import smbus2
    bus = smbus2.SMBus(1)
    configure(bus)
    wait_until(w, 20)
    smbus2.chip(1, ADDR).short_rext()
    assert bus.read_byte_data(ADDR, 0x01) == 0x80 and bus.read_byte_data(ADDR, 0x5E) == 0xC0
    bus.write_byte_data(ADDR, 0x5E, 0xCC)
    assert bus.read_byte_data(ADDR, 0x5E) == 0xC0                         # discarded while OVCF is set
    bus.write_byte_data(ADDR, 0x01, 0x80)
    bus.write_byte_data(ADDR, 0x5E, 0xCC)
    assert bus.read_byte_data(ADDR, 0x01) == 0 and bus.read_byte_data(ADDR, 0x5E) == 0xCC


def test_a_scan_longer_than_esi_stretches_the_interval(fake: Any) -> None:
    table(fake, table_spec())
    import smbus2
    bus = smbus2.SMBus(1)
    bus.write_byte_data(ADDR, 0x5C, 0xC0 | 16)                            # FFI 34
    bus.write_byte_data(ADDR, 0x5D, 0xE4)                                 # CDT 32 µs, SFI 4, ESI 16 ms
    bus.write_byte_data(ADDR, 0x5E, 0x3C)                                 # 13 channels
    assert smbus2.chip(1, ADDR).run.interval_ns == 34 * 64_000 * 13      # 28.3 ms, not 16

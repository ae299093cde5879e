"""Pad calibration against simulated pads with known offsets, bounce, jitter and wiring."""
from __future__ import annotations

from pathlib import Path

import pytest

from calibration.cli import add_parser  # noqa: F401  (the entry point imports)
from calibration.pad_script import EdgeReplay, ScriptedTable, write_events
from calibration.pads_cal import calibrate_pads, choose_thresholds
from calibration.profile import load
from hardware.pads_sim import SimPads
from referee.cli import main

OFFSETS_NS = [1_200_000, 350_000, 4_000_000, 800_000]
BOUNCE_NS = [2_000_000, 0, 5_000_000, 1_000_000]
JITTER_NS = 40_000


def run(wiring=None, seed: int = 3, trials: int = 12):  # type: ignore[no-untyped-def]
    pads = SimPads(5, debounce_ms=0, watchdog_s=None)
    table = ScriptedTable(OFFSETS_NS, BOUNCE_NS, jitter_ns=JITTER_NS, wiring=wiring, seed=seed)
    try:
        return calibrate_pads(pads, 4, table.bind(pads, 4), trials=trials, reference_seat=4), table
    finally:
        pads.close()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_offsets_recovered_within_50us(seed: int) -> None:
    result, _ = run(seed=seed)
    for s in result.seats:
        # the truth is the pad's median latency: its fixed offset plus half the uniform jitter
        truth = OFFSETS_NS[s.seat] + JITTER_NS / 2
        assert abs(s.offset_ns - truth) <= 50_000, (s.seat, s.offset_ns, truth)
    assert result.wiring_ok and result.complete


def test_bounce_measured_and_debounce_covers_it() -> None:
    result, _ = run()
    for s in result.seats:
        assert s.bounce_ms <= BOUNCE_NS[s.seat] / 1e6 + 0.01
        assert s.bounce_ms >= BOUNCE_NS[s.seat] / 1e6 - 1.0      # chatter stops within a ms of the end
    assert result.debounce_ms >= 5.0 * 1.5


def test_tie_margin_is_honest() -> None:
    result, _ = run(trials=20)
    # uniform jitter of 40 µs: robust sd ~ 17 µs, so a margin of a few tens of µs, not zero and not ms
    for s in result.seats:
        assert 10 <= s.tie_margin_us <= 80
    assert result.table_tie_us >= max(s.tie_margin_us for s in result.seats)


def test_swapped_wiring_is_found() -> None:
    result, _ = run(wiring=[0, 1, 3, 2])
    assert [s.wiring for s in result.seats] == [0, 1, 3, 2]
    assert not result.wiring_ok and result.complete
    # seat 3 hit input 3, so its offset is input 3's
    assert abs(result.seats[2].offset_ns - OFFSETS_NS[3]) < 50_000


def test_dead_pad_is_reported() -> None:
    pads = SimPads(3, debounce_ms=0, watchdog_s=None)
    table = ScriptedTable([100_000, 100_000], seed=0, wiring=[0, 0])
    result = calibrate_pads(pads, 2, table.bind(pads, 2), trials=3, reference_seat=2)
    pads.close()
    assert not result.complete


def test_thresholds_from_baseline_and_deltas() -> None:
    touch, release = choose_thresholds([0, 1, 2, 3, 2, 1], [40, 45, 60, 52, 48])
    assert 3 < release < touch < 40
    with pytest.raises(ValueError, match="too close"):
        choose_thresholds([5, 8, 6], [12, 14, 13])


def test_cli_from_recorded_slaps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, table = run(wiring=[1, 0, 2, 3])
    events = write_events(table.log, tmp_path / "slaps.jsonl")
    assert EdgeReplay(events).seats == 4
    code = main(["calibrate", "pads", "--events", str(events), "--yes", "--profile-dir", str(tmp_path),
                 "--table", "t1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "swapped wiring" in out and "tie margin the table can promise" in out
    pads = load(tmp_path / "t1.toml").pads
    assert pads is not None and pads.wiring == [1, 0, 2, 3]
    for seat, us in enumerate(pads.offsets_us):
        assert abs(us * 1000 - (OFFSETS_NS[pads.wiring[seat]] + JITTER_NS / 2)) <= 50_000
    # check re-measures from the same slaps and agrees
    assert main(["calibrate", "check", "--events", str(events), "--yes", "--profile-dir", str(tmp_path),
                 "--table", "t1"]) == 1      # camera and deck are not calibrated
    out = capsys.readouterr().out
    assert out.count("ok   pad seat") == 4

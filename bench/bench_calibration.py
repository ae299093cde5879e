"""Calibration benchmark: deck learning, pad offset recovery, camera region and latency.

- Deck: ../shared/data/crops-piatnik, each card's shots split by position
  (3 learned, 6 held out); the stock recognizer and the calibrated deck store
  are scored on the same held-out shots (top card named = correct).
- Deck from labelled multi-card photos: bench/bench_deck_scenes.py (scenes-bicycle,
  even file-name positions learned, odd held out; stock vs learned store).
- Pads: simulated pads with known offsets, bounce and 40 µs jitter; error of
  the recovered offsets against each pad's true median latency.
- Camera: rendered one-card drops with 45 ms + U(0, 10 ms) capture latency;
  IoU of the found card box with the renderer's own placement, latency error.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = ROOT.parent / "shared" / "data"


def bench_deck() -> list[str]:
    from calibration import deck_cal
    from calibration.deck_shots import folder_shots, split
    from calibration.decks import deck_cards

    folder = DATA / "crops-piatnik"
    if not (folder / "labels.csv").exists():
        return [f"- deck: skipped, {folder} not found"]
    shots = folder_shots(folder)
    learn, check = split(shots, 3)
    t = time.perf_counter()
    _, report = deck_cal.calibrate(learn, check, deck_cards("24"))
    took = time.perf_counter() - t
    base = deck_cal.score(deck_cal.recognize, check)
    base_confused = sorted(f"{r.card} as {w}" for r in base.values() for w in r.named_as)
    lines = ["| deck (crops-piatnik, 24 cards) | held-out shots | named right (per image) |", "|---|---|---|",
             f"| stock recognizer | {len(check)} | {report.baseline_accuracy:.1%} |",
             f"| after calibration (learned from {len(learn)} shots) | {len(check)} | {report.accuracy:.1%} |", "",
             f"- after calibration, still confused: {', '.join(report.confused) or 'none'}; "
             f"cards named right on every held-out shot: "
             f"{sum(r.correct == r.shots for r in report.per_card.values())}/{len(report.per_card)}; "
             f"deck usable: {report.usable}",
             f"- stock recognizer's misses: {len(base_confused)} cards affected "
             f"({', '.join(sorted({c.split(' ')[0] for c in base_confused}))})",
             f"- learning + checking took {took:.1f} s"]
    return lines


def bench_pads() -> list[str]:
    from calibration.pad_script import ScriptedTable
    from calibration.pads_cal import calibrate_pads
    from hardware.pads_sim import SimPads

    offsets = [1_200_000, 350_000, 4_000_000, 800_000]
    bounce = [2_000_000, 0, 5_000_000, 1_000_000]
    jitter = 40_000
    errors: list[float] = []
    margins: list[int] = []
    for seed in range(10):
        pads = SimPads(5, debounce_ms=0, watchdog_s=None)
        table = ScriptedTable(offsets, bounce, jitter_ns=jitter, seed=seed)
        result = calibrate_pads(pads, 4, table.bind(pads, 4), trials=10, reference_seat=4)
        pads.close()
        errors += [abs(s.offset_ns - (offsets[s.seat] + jitter / 2)) / 1000 for s in result.seats]
        margins.append(result.table_tie_us)
    return [f"- pads (10 runs x 4 seats, 10 slaps each, 40 µs jitter): offset error median "
            f"{statistics.median(errors):.1f} µs, max {max(errors):.1f} µs; table tie margin "
            f"{min(margins)}-{max(margins)} µs"]


def bench_camera() -> list[str]:
    from calibration.camera_cal import calibrate_camera, iou
    from calibration.sim_camera import SimClock, lagged, rest_box

    ious: list[float] = []
    lat_err: list[float] = []
    for seed in range(5):
        sim, truth = rest_box("QH", seed=seed)
        clock = SimClock()
        r = calibrate_camera(lagged(sim.frames(), clock, 45_000_000, 10_000_000, seed), clock=clock)
        ious.append(iou(r.card, truth) if r.card else 0.0)
        lat_err.append(abs(r.latency_ms(99) - 54.9))     # true p99 of 45 + U(0, 10) ms
    return [f"- camera (5 rendered drops): card box IoU min {min(ious):.3f}, mean {statistics.mean(ious):.3f}; "
            f"p99 latency error max {max(lat_err):.2f} ms (true p99 54.9 ms)"]


def run() -> list[str]:
    from bench import bench_deck_scenes

    return (["## Calibration", ""] + bench_deck() + [""] + bench_pads() + bench_camera() + [""]
            + bench_deck_scenes.run())


if __name__ == "__main__":
    print("\n".join(run()))

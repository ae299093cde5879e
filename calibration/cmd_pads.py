"""`referee calibrate pads`: seat -> input wiring, bounce, latency offsets, tie margin, MPR121 thresholds."""
from __future__ import annotations

import argparse
import time
from typing import Any

from .pad_script import EdgeReplay, ScriptedTable, write_events
from .pads_cal import PadsResult, calibrate_pads
from .profile import PadsProfile
from .sources import parse_ints
from .steps import open_profile, prompter, store, table_config
from .ui import Prompter


def _live_pads(args: argparse.Namespace, seats: int, reference: int | None) -> Any:
    """The table's own pads with no debounce and no timing, plus the reference input."""
    config = table_config(args)
    pads = config.pads
    if pads.backend in ("gpio", "gpiod"):
        pins = dict(enumerate(pads.pins[:seats]))
        if reference is not None:
            if args.reference_pin is None:
                raise SystemExit("referee calibrate pads: --reference-pin is needed (or --no-reference)")
            pins[reference] = args.reference_pin
        if pads.backend == "gpio":
            from hardware.pads import GpioPads
            return GpioPads(pins, debounce_ms=0.0)
        from hardware.pads_gpiod import GpiodPads
        return GpiodPads(pins, chip=pads.chip, debounce_ms=0.0)
    if pads.backend == "mpr121":
        from hardware.pads_mpr121 import Mpr121Pads
        electrodes = dict(enumerate(pads.electrodes or list(range(seats))))
        if reference is not None:
            if args.reference_pin is None:
                raise SystemExit("referee calibrate pads: --reference-pin (the reference electrode) is needed")
            electrodes[reference] = args.reference_pin
        return Mpr121Pads(electrodes, bus=pads.i2c_bus, address=pads.i2c_address, irq_pin=pads.irq_pin,
                          debounce_ms=0.0)
    raise SystemExit(f"referee calibrate pads: backend {pads.backend!r} has nothing to calibrate; "
                     "use --events FILE or --simulate")


def _wait_for_slap(ui: Prompter, window_s: float = 2.0):  # type: ignore[no-untyped-def]
    def perform(seat: int, trial: int) -> None:
        if trial == 0:
            ui.wait(f"Seat {seat + 1}: slap your pad together with the reference, once each time you are asked")
        ui.say(f"seat {seat + 1}: SLAP ({trial + 1})")
        time.sleep(window_s)
    return perform


def _thresholds(pads: Any, seats: int, ui: Prompter) -> tuple[list[int], list[int]]:
    from .pads_cal import choose_thresholds, sample_deltas
    electrodes = {s: pads._slap_electrodes[s] for s in range(seats)}
    ui.wait("Everyone: hands well away from the pads")
    idle = sample_deltas(lambda: pads.chip.deltas(list(electrodes.values())), 100, time.sleep)
    touch, release = [], []
    for seat, e in electrodes.items():
        ui.wait(f"Seat {seat + 1}: rest your hand flat on your pad")
        held = sample_deltas(lambda: pads.chip.deltas([e]), 50, time.sleep)
        t, r = choose_thresholds(idle[e], held[e])
        pads.set_thresholds(t, r, [seat])
        ui.say(f"  seat {seat + 1}: idle noise up to {max(idle[e])}, touch {min(held[e])}..{max(held[e])}"
               f" -> touch {t}, release {r}")
        touch.append(t)
        release.append(r)
    return touch, release


def run(args: argparse.Namespace) -> int:
    ui = prompter(args)
    profile, path = open_profile(args)
    replay = EdgeReplay(args.events) if args.events else None
    if args.seats is not None:
        seats = args.seats
    elif replay is not None:
        seats = replay.seats
    else:
        seats = table_config(args).game.players
    use_reference = not args.no_reference
    reference = (args.reference_seat if args.reference_seat is not None else seats) if use_reference else None
    trials = replay.trials_per_seat if replay is not None else args.trials
    touch: list[int] = []
    release: list[int] = []
    backend = "sim"
    ui.step(1, 2, f"{seats} seats, {trials} slaps each" + (", with a reference contact" if use_reference else ""))
    if replay is not None or args.simulate:
        from hardware.pads_sim import SimPads
        inputs = max(seats + (1 if use_reference else 0), replay.inputs if replay else 0)
        pads = SimPads(inputs, debounce_ms=0.0, watchdog_s=None)
        if replay is not None:
            perform = replay.bind(pads)
            backend = "recorded"
        else:
            offsets = [v * 1000 for v in parse_ints(args.sim_offsets_us, seats, "--sim-offsets-us")]
            bounce = [v * 1_000_000 for v in parse_ints(args.sim_bounce_ms, seats, "--sim-bounce-ms")]
            table = ScriptedTable(offsets, bounce, seed=0)
            perform = table.bind(pads, reference)
    else:
        pads = _live_pads(args, seats, reference)
        backend = table_config(args).pads.backend
        perform = _wait_for_slap(ui)
        table = None
    try:
        if backend == "mpr121":
            ui.say("MPR121: measuring baseline and touch deltas")
            touch, release = _thresholds(pads, seats, ui)
        result: PadsResult = calibrate_pads(pads, seats, perform, trials=trials, reference_seat=reference,
                                            progress=None if replay else ui.say)
    finally:
        pads.close()
    if args.record and args.simulate and table is not None:
        write_events(table.log, args.record)
    ui.step(2, 2, "result")
    for line in result.lines():
        ui.say(line)
    if not result.complete:
        ui.say("some seats had no pad answer, or two seats share one input: fix the wiring and run again")
        return 1
    section = PadsProfile(
        backend=backend, wiring=[s.wiring for s in result.seats],  # type: ignore[misc]
        offsets_us=[round(s.offset_ns / 1000) for s in result.seats] if use_reference else [0] * seats,
        tie_margin_us=[s.tie_margin_us for s in result.seats] if use_reference else [0] * seats,
        bounce_ms=[round(s.bounce_ms, 3) for s in result.seats], debounce_ms=result.debounce_ms,
        table_tie_us=result.table_tie_us, reference="pad" if use_reference else "none", trials=trials,
        touch_threshold=touch, release_threshold=release)
    store(args, profile, path, ui, pads=section)
    if not result.wiring_ok:
        ui.say("wiring differs from the config's seat order: the profile maps each seat to the input that answered")
    return 0

"""`referee run --config table.toml` at a "real" table: only the OS's modules and programs are fakes.

Bots play a whole game (on each pad backend) on the rules engine with every
card known; the timeline of what they did (cards landing, hands over the pile, pad contacts
that bounce like real switches) drives the fakes of lgpio, gpiod, smbus2 and
picamera2. The referee, started exactly as the systemd unit starts it, must
stamp every slap at its first contact and make the rulings the true times call
for, from what its camera read and its pads felt.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.core.events import Slap
from referee.journal import Journal
from tests.e2e.real_table import FAKEOS, TableRun, run_table, table_config
from tests.e2e.table_world import PAD_LINES, ScriptedGame, script_game, world_for

pytest.importorskip("cv2")
if not (FAKEOS / "lgpio.py").exists():
    pytest.skip("the OS-boundary fakes are not here", allow_module_level=True)

SECONDS = 20.0
#: (pads, game, seed): whole games of two players (32-37 s of table time) in which no slap comes within 60 ms
#: after a card lands: a 30 fps camera stamps a card at the first frame that shows it, so a slap in between is
#: too close for any camera to place against the card (seed 1 of slapjack has one 1.1 ms after a card).
WHOLE_GAMES = [("gpio", "slapjack", 29), ("gpiod", "irish-snap", 58), ("mpr121", "slapjack", 8)]


def judged(run: TableRun) -> tuple[list[tuple[int, int]], list[tuple[str, int | None]]]:
    """The first game's slaps (seat, t_ns) and rulings (kind, seat) as the journal kept them."""
    with Journal(run.journal, create=False) as journal:
        games = journal.games()
        assert games, "no game was journaled"
        first = games[0].id
        slaps = [(r.event.seat, r.event.t_ns) for r in journal.events(first) if isinstance(r.event, Slap)]
        rulings = [(r.ruling.kind, r.ruling.seat) for r in journal.rulings(first)
                   if r.ruling.kind not in ("ignored", "check_table")]
    return slaps, rulings


def expected(script: ScriptedGame, t0_ns: int) -> tuple[list[tuple[int, int]], list[tuple[str, int | None]]]:
    """The true first contacts (seat, t_ns) and the rulings the true times call for."""
    slaps = sorted((seat, t0_ns + t) for t, seat, kind in script.contacts if kind == "slap")
    rulings = [(r.kind, r.seat) for r in script.rulings]
    return slaps, rulings


def kernel_first_events(run: TableRun, contacts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """For each true contact, the stamp of the first event the (fake) kernel queued for it: a bounce quicker
    than the kernel's IRQ thread folds into a later stamp, an error no software can take back."""
    events: dict[int, list[int]] = {}
    for line in (run.world_dir / "log.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record.get("fake") == "kernel":
            events.setdefault(record["offset"], []).append(record["t_ns"])
    out = []
    for seat, t in contacts:
        stamps = [s for s in events.get(PAD_LINES[seat], []) if s >= t]
        out.append((seat, min(stamps) if stamps else -1))
    return out


def spoken(run: TableRun) -> list[str]:
    """What the referee said, in order (the fake espeak-ng's log)."""
    records = [json.loads(line) for line in (run.world_dir / "log.jsonl").read_text().splitlines()]
    return [str(r.get("text", "")) for r in records if r.get("fake") == "espeak-ng"]


def no_crash(run: TableRun) -> None:
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]


def play_whole_game(tmp_path: Path, pads: str) -> tuple[ScriptedGame, TableRun]:
    _pads, game, seed = next(w for w in WHOLE_GAMES if w[0] == pads)
    script = script_game(game, 2, seed=seed, seconds=None)
    run = run_table(tmp_path, table_config(pads, players=2, game=game), world_for(script, pads=pads, seed=seed),
                    seconds=script.seconds + 2.0)
    no_crash(run)
    return script, run


@pytest.mark.parametrize("pads", ["gpio", "gpiod"])
def test_a_whole_game_on_switch_pads_stamps_first_contacts_and_rules_as_the_true_times_say(tmp_path: Path,
                                                                                          pads: str) -> None:
    script, run = play_whole_game(tmp_path, pads)
    slaps, rulings = judged(run)
    want_slaps, want_rulings = expected(script, run.t0_ns)
    assert sorted(slaps) == sorted(kernel_first_events(run, want_slaps))   # nothing added by software
    assert all(abs(got - want) < 2_000_000 for (_s, got), (_w, want) in zip(sorted(slaps), want_slaps))
    assert rulings == want_rulings
    assert rulings[-1][0] == "game_over"


def test_a_whole_game_on_mpr121_pads_stamps_within_its_tie_margin(tmp_path: Path) -> None:
    script, run = play_whole_game(tmp_path, "mpr121")
    slaps, rulings = judged(run)
    want_slaps, want_rulings = expected(script, run.t0_ns)
    with Journal(run.journal, create=False) as journal:
        tie_us = journal.games()[0].options["tie_us"]      # what the pads said they can resolve, per seat
    # each true contact is stamped within its seat's margin, or (its status read too late on a starved
    # machine) announced as not judged: never stamped wrong
    refused = [line for line in run.stderr.splitlines() if "not judged" in line]     # logged once per touch
    stamped = sorted(slaps, key=lambda s: s[1])
    unmatched = list(stamped)
    for want_seat, want_t in want_slaps:
        match = next((s for s in unmatched if s[0] == want_seat and 0 <= s[1] - want_t <= tie_us[want_seat] * 1000),
                     None)
        if match is not None:
            unmatched.remove(match)
    assert not unmatched, f"slaps stamped outside their margin: {unmatched}"
    if not refused:       # a machine that starved the referee's IRQ thread may also miss a whole short touch
        assert len(stamped) == len(want_slaps)
        assert rulings == want_rulings
        assert rulings[-1][0] == "game_over"


def test_a_camera_that_stalls_errors_and_vanishes_comes_back_and_the_table_plays_on(tmp_path: Path) -> None:
    script = script_game("slapjack", 4, seed=5, seconds=SECONDS)
    faults = [{"kind": "stall", "t_us": 3_000_000, "until_us": 5_500_000},
              {"kind": "error", "t_us": 8_000_000},
              {"kind": "gone", "t_us": 11_000_000, "until_us": 12_500_000}]
    run = run_table(tmp_path, table_config("gpio"), world_for(script, pads="gpio", seed=5, camera_faults=faults),
                    seconds=SECONDS + 1.5)
    no_crash(run)
    said = spoken(run)
    lost = [t for t in said if t.startswith("Camera") and "back" not in t]
    back = [t for t in said if t.startswith("Camera is back")]
    assert len(lost) >= 2 and len(back) == len(lost), said       # every loss announced, and every return
    opens = [json.loads(line) for line in (run.world_dir / "log.jsonl").read_text().splitlines()
             if '"picamera2"' in line and '"open"' in line]
    assert len(opens) >= 3                                       # reopened after each fault
    with Journal(run.journal, create=False) as journal:
        game = journal.games()[0].id
        late = [r for r in journal.rulings(game) if r.ruling.t_ns > run.t0_ns + 13_000_000_000
                and r.ruling.kind not in ("ignored", "check_table")]
    assert late, "nothing was judged after the camera came back"

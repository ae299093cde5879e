"""Games through the table `build_table` makes, on a sped-up clock: bots in a simulated world slap
pads that go through the real pad logic, the referee is blind to the hands and learns each card from the
camera, LEDs on gpiozero mock PWM pins, voice to WAV files, every event and ruling in the journal. Then:
the journal re-judges to the same rulings, the LEDs show the result, the voice files follow the rulings,
and slap decisions keep the rendered camera's frames as evidence.
"""
from __future__ import annotations

import json
import wave
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.pins import DEFAULT_LIGHT_PINS, DEFAULT_STATUS_PINS
from referee.config import parse
from referee.journal import Journal, resume
from referee.core.rules import GAMES
from tabletop.build import build_table
from tabletop.clock import TableClock


def table_config(tmp_path: Path, game: str, players: int, *, camera: str = "sim", seconds: float = 45) -> object:
    return parse({"game": {"id": game, "players": players, "options": {"time_limit_s": seconds}},
                  "pads": {"backend": "bots"}, "camera": {"source": camera, "latency_ms": 400.0},
                  "lights": {"backend": "gpio", "seats": [list(DEFAULT_LIGHT_PINS[s]) for s in range(players)],
                             "status": list(DEFAULT_STATUS_PINS)},
                  "audio": {"backend": "files", "dir": str(tmp_path / "voice")},
                  "journal": {"path": str(tmp_path / "journal.db")}})


def key(rulings: list) -> list[tuple]:
    return [(r.kind, r.seat, r.t_ns, json.dumps(r.fields, sort_keys=True, default=str)) for r in rulings]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_game_of_each_through_the_runtime(game: str, tmp_path: Path) -> None:
    players = 3 if game == "slapstick" else 4
    pins = MockFactory(pin_class=MockPWMPin)
    table = build_table(table_config(tmp_path, game, players), pin_factory=pins, clock=TableClock(20.0), seed=11)
    try:
        table.start()
        assert table.runtime.wait_over(30), table.runtime.game.final()
        state = table.runtime.game
        # the referee dealt blind: the counts, never the faces; the bots laid the true cards
        assert all(c is None for h in table.journal.game(table.game_no).hands for c in h)
        sources = {e.source for e in table.journal.events(table.game_no)}
        assert {"pads", "camera", "clock"} <= sources, sources
        assert any(r.kind in ("wins_pile", "picks_up") for r in state.rulings)
        assert state.total_cards() == len(state.deck(players, state.opts))
        assert table.world.resyncs == 0                    # the world's twin followed the referee call for call

        # the journal holds the whole game and re-judges it to the same rulings
        record = table.journal.game(table.game_no)
        assert record.ended
        again = resume(table.journal, record.id, repair=False)
        assert key(again.rulings) == key(state.rulings)

        # the lights show the result
        if state.winner is not None:
            assert table.lights.pattern(state.winner) == "winner"
        if state.loser is not None and state.loser != state.winner:
            assert table.lights.pattern(state.loser) == "out"

        # every spoken ruling became a voice file, in order, and the files are real WAVs
        table.announcer.flush(30.0)
        lines = [json.loads(x) for x in (tmp_path / "voice" / "utterances.jsonl").read_text().splitlines()]
        spoken = [u["text"] for u in lines if u["kind"] == "ruling"]
        expected = [r.say for r in state.rulings if r.say and r.kind != "ignored"]
        assert len(spoken) == len(expected)
        # a margin that arrives after the ruling was spoken is added to the record, not re-spoken
        assert all(full.startswith(said) for said, full in zip(spoken, expected)), list(zip(spoken, expected))
        for entry in lines[:5]:
            with wave.open(str(tmp_path / "voice" / entry["file"])) as wav:
                assert wav.getnframes() > 0
    finally:
        table.close()


def test_slap_decisions_keep_the_rendered_cameras_frames_as_evidence(tmp_path: Path) -> None:
    config = table_config(tmp_path, "slapjack", 3, camera="rendered", seconds=45)
    table = build_table(config, pin_factory=MockFactory(pin_class=MockPWMPin), clock=TableClock(3.0), seed=5)
    try:
        table.start()
        assert table.runtime.wait_over(40)
        journal: Journal = table.journal
        slaps = [r for r in journal.rulings(table.game_no) if r.ruling.kind == "wins_pile"]
        assert slaps, "no slap decision in 45 s of slapjack"
        kinds = [e.kind for e in journal.evidence(slaps[0].id)]
        assert "card_frame" in kinds and "slap_frame" in kinds
        import cv2
        import numpy as np
        frame = cv2.imdecode(np.frombuffer(journal.evidence(slaps[0].id)[0].jpeg, np.uint8), cv2.IMREAD_COLOR)
        assert frame is not None and frame.shape[:2] == (480, 640)
        seen = [e for e in journal.events(table.game_no) if e.source == "camera"]
        assert len(seen) >= 10                            # the cards, named by the real vision pipeline
    finally:
        table.close()

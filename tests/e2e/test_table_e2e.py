"""Whole games through the real table runtime with simulated hardware: bots
slap GPIO pads on gpiozero mock pins (the real GpioPads backend, edges stamped
as the kernel would), every card is rendered and read by the real vision
pipeline, LEDs on mock PWM pins, voice to WAV files, every event and ruling in
the journal. Then: the journal re-judges to the same rulings, the LEDs show
the result, and the voice files follow the rulings.
"""
from __future__ import annotations

import json
import wave
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.mock_pins import TimedMockPin
from referee.journal import Journal, resume
from referee.rules import GAMES
from tabletop.simulated import VisionSimTable


@pytest.fixture
def mock_pins():
    factory = MockFactory(pin_class=MockPWMPin)
    previous = Device.pin_factory
    Device.pin_factory = factory
    yield factory
    factory.reset()
    Device.pin_factory = previous


@pytest.mark.parametrize("game", sorted(GAMES))
def test_whole_game_through_the_runtime(game: str, tmp_path: Path, mock_pins: MockFactory) -> None:
    players = 3 if game == "slapstick" else 4
    journal = Journal(tmp_path / "journal.db")
    pads = MockFactory(pin_class=TimedMockPin)
    table = VisionSimTable(game, players, seed=11, folder=tmp_path / "voice", pin_factory=mock_pins,
                           pad_factory=pads, journal=journal)
    try:
        result = table.run()
        runtime = table.runtime
        state = runtime.game
        assert result.ended_by == "rules" and state.over, result.to_json()
        # slaps came through the GPIO backend, cards through the camera pipeline
        sources = {e.source for e in journal.events(table.recorder.game_no)}
        assert {"pads", "camera"} <= sources, sources
        assert any(r.kind in ("wins_pile", "picks_up") for r in state.rulings)
        assert state.total_cards() == len(state.deck(players, state.opts))

        # the journal holds the whole game and re-judges it to the same rulings
        record = journal.game(table.recorder.game_no)
        assert record.ended
        again = resume(journal, record.id, repair=False)
        key = [(r.kind, r.seat, r.t_ns, json.dumps(r.fields, sort_keys=True, default=str)) for r in state.rulings]
        assert [(r.kind, r.seat, r.t_ns, json.dumps(r.fields, sort_keys=True, default=str)) for r in again.rulings] == key

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
        journal.close()


def test_slap_decisions_keep_their_frames_as_evidence(tmp_path: Path) -> None:
    from tabletop.simulated import VisionSimTable

    journal = Journal(tmp_path / "journal.db")
    table = VisionSimTable("slapjack", 3, seed=5, folder=tmp_path / "voice", journal=journal)
    try:
        table.sim.config = type(table.sim.config)(time_limit_s=120)
        table.run()
        game_no = table.recorder.game_no
        slaps = [r for r in journal.rulings(game_no) if r.ruling.kind == "wins_pile"]
        assert slaps, "no slap decision in two minutes of slapjack"
        kinds = [e.kind for e in journal.evidence(slaps[0].id)]
        assert "card_frame" in kinds and "slap_frame" in kinds
        import cv2
        import numpy as np
        frame = cv2.imdecode(np.frombuffer(journal.evidence(slaps[0].id)[0].jpeg, np.uint8), cv2.IMREAD_COLOR)
        assert frame is not None and frame.shape[0] > 100
    finally:
        table.close()
        journal.close()

"""Audio calibration: the test phrase is played through the voice adapter, the volume saved."""
from __future__ import annotations

from pathlib import Path

import pytest

from calibration.audio_cal import calibrate_audio
from calibration.profile import load
from calibration.ui import Scripted
from referee.cli import main


class Recording:
    made: list[int] = []

    def __init__(self, volume: int) -> None:
        Recording.made.append(volume)
        self.said: list[str] = []

    def say(self, u) -> None:  # type: ignore[no-untyped-def]
        self.said.append(u.text)

    def close(self) -> None:
        pass


class Person(Scripted):
    @property
    def interactive(self) -> bool:
        return True


def test_louder_then_ok() -> None:
    Recording.made = []
    result = calibrate_audio(Recording, Person(["+", "+", "ok"]), volume=60)
    assert Recording.made == [60, 70, 80] and result.volume == 80 and result.confirmed


def test_cli_files_backend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["calibrate", "audio", "--backend", "files", "--dir", str(tmp_path / "wav"), "--volume", "55",
                 "--yes", "--profile-dir", str(tmp_path)])
    assert code == 0, capsys.readouterr().out
    assert (tmp_path / "wav" / "utterances.jsonl").exists()
    audio = load(tmp_path / "table.toml").audio
    assert audio is not None and audio.volume == 55 and not audio.confirmed

"""The voice as the referee's service runs it: `EspeakAnnouncer()` with default arguments, against the
fake `aplay` and `espeak-ng` on PATH (tests/fakeos/bin), whose sound cards come from a world folder,
in an environment with no user sound server, as under systemd."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from hardware.voice import EspeakAnnouncer, SubprocessRunner
from referee.table.ports import Utterance
from tests.deploy.fake_sound import HDMI, HEADPHONES, USB, pipewire_login, records, sound_world

LIMIT = 10.0          # a generous bound for waits on the worker thread, never a timing check


def ruling(text: str) -> Utterance:
    return Utterance(text, "ruling")


def count(text: str) -> Utterance:
    return Utterance(text, "count")


HEADPHONES_PCM = "plughw:CARD=Headphones,DEV=0"


def test_default_device_plays_to_the_card_a_service_hears(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    world = sound_world(tmp_path / "world", monkeypatch, [HEADPHONES, HDMI])   # no user session, as in the unit
    with EspeakAnnouncer() as ann:
        assert ann.device == HEADPHONES_PCM and "no user sound server" in ann.device_reason
        ann.say(ruling("Jack! Player 3 takes the pile"))
        ann.say(Utterance("win", "chime"))
        assert ann.flush(LIMIT)
        assert ann.errors == [] and ann.delivered == 2
    assert [r["text"] for r in records(world, "espeak-ng")] == ["Jack! Player 3 takes the pile"]
    played = records(world)
    assert [r["device"] for r in played] == [HEADPHONES_PCM] * 2
    assert played[0]["seconds"] > 0.2 and played[1]["seconds"] == pytest.approx(0.36, abs=0.01)


def test_plain_default_is_silent_for_a_service_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bug on the real table: aplay -D default from a system service reaches no PipeWire."""
    world = sound_world(tmp_path / "world", monkeypatch, [HEADPHONES])
    with EspeakAnnouncer(runner=SubprocessRunner()) as ann:      # a given runner: the device is used as given
        ann.say(ruling("nobody hears this"))
        assert ann.flush(LIMIT)
    assert "aplay exited with 1" in ann.errors[0][1] and "audio open error: Host is down" in ann.errors[0][1]
    assert records(world) == [{"fake": "aplay", "device": "default", "error": "Host is down"}]


def test_default_device_in_a_desktop_login_is_the_users_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    world = sound_world(tmp_path / "world", monkeypatch, [HEADPHONES], user_server=True)
    with pipewire_login(monkeypatch) as socket_path, EspeakAnnouncer() as ann:
        assert ann.device == "default" and str(socket_path) in ann.device_reason
        ann.say(Utterance("ding", "chime"))
        assert ann.flush(LIMIT) and ann.errors == []
    assert [r["device"] for r in records(world)] == ["default"]


def test_default_device_prefers_an_added_card_then_alsa_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sound_world(tmp_path / "world", monkeypatch, [HEADPHONES, HDMI, USB])
    with EspeakAnnouncer() as ann:
        assert ann.device == "plughw:CARD=Device,DEV=0"       # the USB speaker someone plugged in for the table
    monkeypatch.setenv("ALSA_CARD", "vc4hdmi0")               # alsa-lib's own way to name the card
    with EspeakAnnouncer() as ann:
        assert ann.device == "sysdefault:CARD=vc4hdmi0" and "ALSA_CARD" in ann.device_reason
        ann.say(Utterance("ding", "chime"))
        assert ann.flush(LIMIT) and ann.errors == []            # HDMI plays through alsa-lib's iec958 conversion


def test_missing_configured_card_is_an_error_naming_aplays_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sound_world(tmp_path / "world", monkeypatch, [HEADPHONES])
    with EspeakAnnouncer(device="plughw:CARD=Device,DEV=0") as ann:
        assert ann.device == "plughw:CARD=Device,DEV=0"
        ann.say(ruling("Snap!"))
        assert ann.flush(LIMIT)
    assert "audio open error: No such device" in ann.errors[0][1]


def test_a_ruling_cuts_a_real_playing_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    world = sound_world(tmp_path / "world", monkeypatch, [HEADPHONES])
    with EspeakAnnouncer() as ann:
        ann.say(count("One " * 200))                          # 8 s of fake speech
        deadline = time.monotonic() + LIMIT
        while not records(world) and time.monotonic() < deadline:
            time.sleep(0.02)
        ann.say(ruling("Slap! Player 2"))
        assert ann.flush(LIMIT)
    assert [u.kind for u in ann.dropped] == ["count"] and ann.errors == []
    assert [r["seconds"] > 5 for r in records(world)] == [True, False]

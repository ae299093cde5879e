"""The fake `aplay` and `espeak-ng` (tests/fakeos/bin) keep the real programs' command lines,
messages and exit codes; where the real programs are installed, both are run side by side."""
from __future__ import annotations

import re
import shutil
import subprocess
import wave
from pathlib import Path

import pytest

from hardware.sound_files import write_silence
from tests.deploy.fake_sound import FAKE_BIN, HDMI, HEADPHONES, records, sound_world

OPEN_ERROR = re.compile(r"aplay: main:\d+: audio open error: (No such file or directory|No such device)")


def run(argv: list[str], input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, input=input)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return sound_world(tmp_path / "world", monkeypatch, [HEADPHONES, HDMI])


def test_listing_cards(world: Path) -> None:
    out = run([str(FAKE_BIN / "aplay"), "-l"])
    assert out.returncode == 0 and out.stdout.splitlines()[:2] == [
        "**** List of PLAYBACK Hardware Devices ****",
        "card 0: Headphones [bcm2835 Headphones], device 0: bcm2835 Headphones [bcm2835 Headphones]"]
    pcms = run([str(FAKE_BIN / "aplay"), "-L"]).stdout.splitlines()
    assert "plughw:CARD=Headphones,DEV=0" in pcms and "sysdefault:CARD=vc4hdmi0" in pcms and "default" in pcms


def test_no_cards_is_a_message_not_a_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sound_world(tmp_path / "w", monkeypatch, [])
    out = run([str(FAKE_BIN / "aplay"), "-l"])
    assert (out.returncode, out.stdout, out.stderr.strip()) == (0, "", "aplay: device_list:274: no soundcards found...")


def test_playing_and_failing(world: Path, tmp_path: Path) -> None:
    wav = write_silence(tmp_path / "s.wav", 0.05)
    aplay = str(FAKE_BIN / "aplay")
    assert run([aplay, "-q", "-D", "plughw:CARD=Headphones,DEV=0", str(wav)]).returncode == 0
    assert run([aplay, "-q", "-D", "plughw:0,0"], input="").returncode == 0           # stdin, by card number
    missing = run([aplay, "-q", "-D", "plughw:CARD=Device,DEV=0", str(wav)])
    assert missing.returncode == 1 and OPEN_ERROR.fullmatch(missing.stderr.splitlines()[-1])
    assert missing.stderr.splitlines() == ["ALSA lib confmisc.c:165:(snd_config_get_card) Cannot get card index for Device",
                                          "aplay: main:831: audio open error: No such device"]
    by_number = run([aplay, "-q", "-D", "plughw:7,0", str(wav)])
    assert by_number.stderr.splitlines()[-1] == "aplay: main:831: audio open error: No such file or directory"
    service = run([aplay, "-q", str(wav)])                     # `default` without a user session
    assert service.returncode == 1 and service.stderr.strip().endswith("audio open error: Host is down")
    hdmi = run([aplay, "-D", "plughw:CARD=vc4hdmi0,DEV=0", str(wav)])
    assert hdmi.returncode == 1 and "aplay: set_params:1352: Sample format non available" in hdmi.stderr
    assert run([aplay, "-q", "-D", "plughw:0", str(tmp_path / "none.wav")]).stderr.strip() == \
        f"{tmp_path / 'none.wav'}: No such file or directory"
    assert [(r["device"], r.get("seconds"), r.get("error")) for r in records(world)] == [
        ("plughw:CARD=Headphones,DEV=0", 0.05, None), ("plughw:0,0", 0.0, None),
        ("plughw:CARD=Device,DEV=0", None, "No such device"), ("plughw:7,0", None, "No such file or directory"),
        ("default", None, "Host is down"),
        ("plughw:CARD=vc4hdmi0,DEV=0", None, "Sample format non available")]


def test_unknown_world_key_is_an_error(world: Path) -> None:
    (world / "world.json").write_text('{"sound": {"cards": [{"index": 0, "id": "H", "nam": "x"}]}}')
    out = run([str(FAKE_BIN / "aplay"), "-l"])
    assert out.returncode == 2 and "sound.cards[0]: unknown key(s) ['nam']" in out.stderr


def test_espeak_writes_a_wav_and_refuses_an_unknown_voice(world: Path, tmp_path: Path) -> None:
    espeak = str(FAKE_BIN / "espeak-ng")
    out = run([espeak, "-v", "en", "-a", "160", "-w", str(tmp_path / "s.wav"), "Jack! Player 3"])
    assert out.returncode == 0
    with wave.open(str(tmp_path / "s.wav")) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 22050) and w.getnframes() > 0
    assert subprocess.run([espeak, "--stdout", "hi"], capture_output=True, timeout=30).stdout[:4] == b"RIFF"
    bad = run([espeak, "-v", "xx-nope", "-w", str(tmp_path / "t.wav"), "hi"])
    assert (bad.returncode, bad.stderr.strip()) == (1, "Error: The specified espeak-ng voice does not exist.")
    assert [r["text"] for r in records(world, "espeak-ng")] == ["Jack! Player 3", "hi"]


@pytest.mark.skipif(shutil.which("aplay", path="/usr/bin:/bin") is None, reason="alsa-utils not installed")
@pytest.mark.parametrize("pcm", ["no_such_pcm", "plughw:CARD=NoSuchCard,DEV=0", "plughw:7,0"])
def test_real_aplay_fails_the_same_way(world: Path, tmp_path: Path, pcm: str) -> None:
    """On a machine without card 7 or NoSuchCard (CI has none at all), the real aplay and the fake agree."""
    wav = write_silence(tmp_path / "s.wav", 0.01)
    real = run([shutil.which("aplay", path="/usr/bin:/bin") or "aplay", "-q", "-D", pcm, str(wav)])
    fake = run([str(FAKE_BIN / "aplay"), "-q", "-D", pcm, str(wav)])
    assert real.returncode == fake.returncode == 1
    last = real.stderr.splitlines()[-1], fake.stderr.splitlines()[-1]
    assert OPEN_ERROR.fullmatch(last[0]) and re.sub(r":\d+:", ":", last[0]) == re.sub(r":\d+:", ":", last[1]), last


@pytest.mark.skipif(shutil.which("espeak-ng", path="/usr/bin:/bin") is None, reason="espeak-ng not installed")
def test_real_espeak_ng_writes_the_same_kind_of_wav(tmp_path: Path) -> None:
    real = run([shutil.which("espeak-ng", path="/usr/bin:/bin") or "espeak-ng", "-v", "en", "-a", "100",
                "-w", str(tmp_path / "real.wav"), "Snap"])
    assert real.returncode == 0
    with wave.open(str(tmp_path / "real.wav")) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 22050)

"""`referee doctor` on simulated hardware: pins, camera and I2C are replaced through `Probes`; sound goes
through the fake `aplay` and `espeak-ng` on PATH (tests/fakeos/bin), which read the world's cards."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import namedtuple
from pathlib import Path
from typing import Any, Sequence

import pytest
from gpiozero.pins.mock import MockFactory

from tabletop import doctor
from tabletop.doctor import FAIL, OK, WARN, CameraInfo, Probes
from tests.conftest import ROOT
from tests.deploy.fake_sound import HDMI, HEADPHONES, USB, pipewire_login, records, sound_world

EXAMPLE = (ROOT / "deploy" / "table.example.toml").read_text()
Usage = namedtuple("Usage", "total used free")
HEADPHONES_PCM = "plughw:CARD=Headphones,DEV=0"


class LGPIOFactory:
    """Stands in for gpiozero.pins.lgpio.LGPIOFactory (classified by module and name, as the pad layer does)."""


LGPIOFactory.__module__ = "gpiozero.pins.lgpio"


class RPiGPIOFactory:
    """An untimed factory: stamps in the Python callback."""


RPiGPIOFactory.__module__ = "gpiozero.pins.rpigpio"


@pytest.fixture
def pi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A good simulated Pi: lgpio, a Camera Module 3, I2C with an MPR121 at 0x5A, a Pi 4's sound cards
    (headphone jack and HDMI) seen by the fake aplay, espeak-ng, and no user sound server (a service)."""
    world = sound_world(tmp_path / "world", monkeypatch, [HEADPHONES, HDMI])
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in ("i2c-1", "gpiochip0", "video0"):
        (dev / name).touch()
    journal = tmp_path / "var"
    journal.mkdir()
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "table.toml").write_text("")
    config = tmp_path / "table.toml"
    config.write_text(EXAMPLE.replace("/var/lib/tabletop/journal.db", str(journal / "journal.db")))
    probes = Probes(pin_factory=LGPIOFactory, cameras=lambda: [CameraInfo("imx708", 120.0)],
                    i2c_probe=lambda bus, addr: bus == 1 and addr == 0x5A, dev=dev, proc=tmp_path / "proc", disk_usage=lambda p: Usage(10**10, 0, 5 * 10**9),
                    profile_dirs=[profiles], cwd=tmp_path)
    return {"probes": probes, "config": config, "tmp": tmp_path, "world": world}


def verdicts(config: Path, probes: Probes) -> dict[str, doctor.Check]:
    return {c.name: c for c in doctor.run_checks(config, probes)}


def use_mpr121(config: Path) -> None:
    text = config.read_text().replace('backend = "gpio"', 'backend = "mpr121"', 1)
    config.write_text(text)


def test_good_simulated_pi_exits_0(pi: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    code = doctor.run(argparse.Namespace(config=str(pi["config"]), json=False), pi["probes"])
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == [OK] * (len(lines) - 1), out
    for name in ("config", "pins", "camera", "clock", "i2c", "audio", "espeak", "journal", "profile"):
        assert any(line.split()[1] == name for line in lines), name
    assert "0 failed" in lines[-1]


def test_mpr121_present_is_ok(pi: dict[str, Any]) -> None:
    use_mpr121(pi["config"])
    assert verdicts(pi["config"], pi["probes"])["i2c"].verdict == OK


def test_mock_pin_factory_fails_timestamps(pi: dict[str, Any]) -> None:
    pi["probes"].pin_factory = MockFactory
    check = verdicts(pi["config"], pi["probes"])["pins"]
    assert check.verdict == FAIL and "mock" in check.detail
    assert "lgpio" in check.fix


def test_untimed_factory_fails_with_lgpio_fix(pi: dict[str, Any]) -> None:
    pi["probes"].pin_factory = RPiGPIOFactory
    check = verdicts(pi["config"], pi["probes"])["pins"]
    assert check.verdict == FAIL and "no kernel edge timestamps" in check.detail
    assert "python3-lgpio" in check.fix
    assert doctor.exit_code(doctor.run_checks(pi["config"], pi["probes"])) == 1


def test_no_pin_factory_at_all(pi: dict[str, Any]) -> None:
    def broken() -> Any:
        raise RuntimeError("Unable to load any default pin factory!")
    pi["probes"].pin_factory = broken
    assert verdicts(pi["config"], pi["probes"])["pins"].verdict == FAIL


def test_untimed_factory_only_warns_for_sim_pads(pi: dict[str, Any]) -> None:
    pi["config"].write_text(pi["config"].read_text().replace('backend = "gpio"', 'backend = "sim"', 1))
    pi["probes"].pin_factory = RPiGPIOFactory
    assert verdicts(pi["config"], pi["probes"])["pins"].verdict == WARN


def test_missing_camera_fails_with_fix(pi: dict[str, Any]) -> None:
    pi["probes"].cameras = lambda: []
    check = verdicts(pi["config"], pi["probes"])["camera"]
    assert check.verdict == FAIL and "no camera" in check.detail
    assert "ribbon" in check.fix


def test_picamera2_not_importable(pi: dict[str, Any]) -> None:
    def lister() -> list[CameraInfo]:
        raise ImportError("No module named 'picamera2'")
    pi["probes"].cameras = lister
    check = verdicts(pi["config"], pi["probes"])["camera"]
    assert check.verdict == FAIL and "--system-site-packages" in check.fix


def test_camera_too_slow_for_config(pi: dict[str, Any]) -> None:
    pi["probes"].cameras = lambda: [CameraInfo("ov5647", 15.0)]
    check = verdicts(pi["config"], pi["probes"])["camera"]
    assert check.verdict == FAIL and "15 fps" in check.detail and "fps" in check.fix


def test_missing_mpr121_fails_for_mpr121_config(pi: dict[str, Any]) -> None:
    use_mpr121(pi["config"])
    pi["probes"].i2c_probe = lambda bus, addr: False
    checks = doctor.run_checks(pi["config"], pi["probes"])
    check = {c.name: c for c in checks}["i2c"]
    assert check.verdict == FAIL and "no MPR121 at 0x5A" in check.detail and "SDA" in check.fix
    assert doctor.exit_code(checks) == 1


def test_mpr121_at_other_address_suggests_it(pi: dict[str, Any]) -> None:
    use_mpr121(pi["config"])
    pi["probes"].i2c_probe = lambda bus, addr: addr == 0x5B
    check = verdicts(pi["config"], pi["probes"])["i2c"]
    assert check.verdict == FAIL and "i2c_address = 0x5B" in check.fix


def test_i2c_disabled(pi: dict[str, Any]) -> None:
    use_mpr121(pi["config"])
    (pi["tmp"] / "dev" / "i2c-1").unlink()
    check = verdicts(pi["config"], pi["probes"])["i2c"]
    assert check.verdict == FAIL and "do_i2c 0" in check.fix


def test_missing_i2c_device_is_fine_for_gpio_pads(pi: dict[str, Any]) -> None:
    pi["probes"].i2c_probe = lambda bus, addr: False
    assert verdicts(pi["config"], pi["probes"])["i2c"].verdict == OK


def test_bad_config_fails_naming_the_key(pi: dict[str, Any]) -> None:
    pi["config"].write_text(pi["config"].read_text().replace("players = 4", "players = 4\nplayer = 3"))
    checks = doctor.run_checks(pi["config"], pi["probes"])
    assert checks[0].verdict == FAIL and "[game] player: unknown key" in checks[0].detail
    assert doctor.exit_code(checks) == 1


def test_missing_config(pi: dict[str, Any]) -> None:
    check = doctor.run_checks(pi["tmp"] / "nope.toml", pi["probes"])[0]
    assert check.verdict == FAIL and "install.sh" in check.fix


def set_sound(pi: dict[str, Any], cards: list[dict[str, Any]], user_server: bool = False) -> None:
    (pi["world"] / "world.json").write_text(json.dumps({"sound": {"cards": cards, "user_server": user_server}}))


def set_device(pi: dict[str, Any], device: str) -> None:
    pi["config"].write_text(pi["config"].read_text().replace('device = "default"', f'device = "{device}"', 1))


def test_audio_plays_silence_through_the_card_a_service_hears(pi: dict[str, Any]) -> None:
    check = verdicts(pi["config"], pi["probes"])["audio"]
    assert check.verdict == OK and check.detail.startswith(f"{HEADPHONES_PCM}: played 0.1 s of silence"), check
    played = records(pi["world"])
    assert [(r["device"], r["seconds"]) for r in played] == [(HEADPHONES_PCM, 0.1)]   # not "default"
    assert Path(played[0]["file"]).suffix == ".wav" and not Path(played[0]["file"]).exists()   # cleaned up


def test_audio_prefers_a_card_added_for_the_table(pi: dict[str, Any]) -> None:
    set_sound(pi, [HEADPHONES, HDMI, USB])
    assert verdicts(pi["config"], pi["probes"])["audio"].detail.startswith("plughw:CARD=Device,DEV=0: played")
    set_sound(pi, [HDMI])                    # a Pi 5 on a monitor: HDMI takes IEC958 only, through sysdefault
    assert verdicts(pi["config"], pi["probes"])["audio"].detail.startswith("sysdefault:CARD=vc4hdmi0: played")


def test_plughw_on_hdmi_fails_with_aplays_reason_and_the_fix(pi: dict[str, Any]) -> None:
    set_device(pi, "plughw:CARD=vc4hdmi0,DEV=0")
    check = verdicts(pi["config"], pi["probes"])["audio"]
    assert check.verdict == FAIL and "aplay: set_params:1352: Sample format non available" in check.detail, check
    assert "sysdefault:CARD=vc4hdmi0" in check.fix


def test_missing_configured_card_is_one_fail_line_with_aplays_reason(pi: dict[str, Any],
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    set_device(pi, "plughw:CARD=Device,DEV=0")          # the USB speaker is not plugged in
    code = doctor.run(argparse.Namespace(config=str(pi["config"]), json=False), pi["probes"])
    out = capsys.readouterr().out
    audio = [line for line in out.splitlines() if line.split()[1] == "audio"]
    assert code == 1 and len(audio) == 1 and "Traceback" not in out
    assert audio[0].startswith("FAIL  audio       plughw:CARD=Device,DEV=0: "
                               "aplay: main:831: audio open error: No such device"), audio[0]
    assert f"-- fix: plug in the speaker" in audio[0] and HEADPHONES_PCM in audio[0]
    assert records(pi["world"])[-1] == {"fake": "aplay", "device": "plughw:CARD=Device,DEV=0",
                                        "error": "No such device"}


def test_default_configured_as_pipewire_fails_for_the_service(pi: dict[str, Any]) -> None:
    set_device(pi, "pipewire")                           # a name only a desktop login can open
    check = verdicts(pi["config"], pi["probes"])["audio"]
    assert check.verdict == FAIL and check.detail.endswith("audio open error: Host is down (cards Headphones, vc4hdmi0)")
    assert 'device = "default"' in check.fix


def test_busy_card_fails_with_the_reason(pi: dict[str, Any]) -> None:
    set_sound(pi, [{**HEADPHONES, "busy": True}])
    check = verdicts(pi["config"], pi["probes"])["audio"]
    assert check.verdict == FAIL and "Device or resource busy" in check.detail and "PipeWire" in check.fix


def test_a_desktop_login_is_judged_as_the_service(pi: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    set_sound(pi, [HEADPHONES], user_server=True)
    with pipewire_login(monkeypatch):
        pi["probes"].env = dict(os.environ)
        check = verdicts(pi["config"], pi["probes"])["audio"]
    assert check.verdict == OK and check.detail.startswith(HEADPHONES_PCM) and "the service does not" in check.detail
    assert [r["device"] for r in records(pi["world"])] == [HEADPHONES_PCM]


def test_no_sound_card(pi: dict[str, Any]) -> None:
    set_sound(pi, [])
    check = verdicts(pi["config"], pi["probes"])["audio"]
    assert check.verdict == FAIL and check.detail == "no sound card found" and "aplay -l" in check.fix
    assert records(pi["world"]) == []


def test_sound_card_from_proc_without_aplay(pi: dict[str, Any]) -> None:
    asound = pi["tmp"] / "proc" / "asound"
    asound.mkdir(parents=True)
    (asound / "cards").write_text(" 0 [Headphones     ]: bcm2835_headphonbcm2835 Headphones - bcm2835 Headphones\n"
                                  "                      bcm2835 Headphones\n")
    pi["probes"].which = lambda name: None
    checks = verdicts(pi["config"], pi["probes"])
    assert checks["audio"].verdict == FAIL and checks["audio"].detail == "aplay not found (cards Headphones)"
    assert "alsa-utils" in checks["audio"].fix
    assert checks["espeak"].verdict == FAIL and "apt install espeak-ng" in checks["espeak"].fix


def test_silent_backend_only_warns_and_plays_nothing(pi: dict[str, Any]) -> None:
    pi["config"].write_text(pi["config"].read_text().replace('backend = "espeak"', 'backend = "silent"', 1))
    check = verdicts(pi["config"], pi["probes"])["audio"]
    assert check.verdict == WARN and "rulings are not spoken" in check.detail
    assert records(pi["world"]) == []


def test_referee_doctor_command_never_shows_a_traceback(pi: dict[str, Any]) -> None:
    """The real command in its own process, as on the Pi: the audio line comes from the fakes on PATH."""
    set_device(pi, "plughw:CARD=Device,DEV=0")
    done = subprocess.run([sys.executable, "-c", "import sys; from referee.cli import main; sys.exit(main())",
                           "doctor", "--config", str(pi["config"])],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    audio = [line for line in done.stdout.splitlines() if line.split()[1:2] == ["audio"]]
    assert len(audio) == 1 and audio[0].startswith("FAIL  audio       plughw:CARD=Device,DEV=0: aplay: main:831")


def test_suspend_shows_as_clock_warning(pi: dict[str, Any]) -> None:
    pi["probes"].clock_ns = lambda clk: time.clock_gettime_ns(clk) + (5 * 10**9 if clk == time.CLOCK_BOOTTIME else 0)
    check = verdicts(pi["config"], pi["probes"])["clock"]
    assert check.verdict == WARN and "suspended" in check.detail


def test_journal_disk_full_and_missing(pi: dict[str, Any]) -> None:
    pi["probes"].disk_usage = lambda p: Usage(10**10, 10**10, 10**6)
    assert verdicts(pi["config"], pi["probes"])["journal"].verdict == FAIL
    pi["config"].write_text(pi["config"].read_text().replace(str(pi["tmp"] / "var"), str(pi["tmp"] / "gone")))
    check = verdicts(pi["config"], pi["probes"])["journal"]
    assert check.verdict == FAIL and "missing" in check.detail


def test_profile_missing_or_stale_only_warns(pi: dict[str, Any]) -> None:
    pi["probes"].now = lambda: time.time() + 90 * 86400
    assert verdicts(pi["config"], pi["probes"])["profile"].verdict == WARN
    pi["probes"].profile_dirs = [pi["tmp"] / "none"]
    checks = doctor.run_checks(pi["config"], pi["probes"])
    assert {c.name: c for c in checks}["profile"].verdict == WARN
    assert doctor.exit_code(checks) == 0


def test_json_output(pi: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    pi["probes"].cameras = lambda: []
    code = doctor.run(argparse.Namespace(config=str(pi["config"]), json=True), pi["probes"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["ok"] is False
    assert {"name", "verdict", "detail", "fix"} <= set(report["checks"][0])


def test_add_parser_registers_doctor() -> None:
    parser = argparse.ArgumentParser()
    doctor.add_parser(parser.add_subparsers())
    args = parser.parse_args(["doctor", "--config", "x.toml", "--json"])
    assert args.run is doctor.run and args.config == "x.toml" and args.json
    assert parser.parse_args(["doctor"]).config == "/etc/tabletop/table.toml"


def test_entry_point_declared() -> None:
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["referee.commands"]["doctor"] == "tabletop.doctor:add_parser"

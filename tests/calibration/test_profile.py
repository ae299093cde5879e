"""Profiles: round trip, strict validation, and applying one to a table config."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from calibration.apply import apply_profile
from calibration.profile import (AudioProfile, CameraProfile, DeckProfile, PadsProfile, Profile, ProfileError,
                                 dumps, load, load_or_new, parse, path_for, save)
from referee.config import ConfigError, parse as parse_config


def full_profile() -> Profile:
    return Profile(
        table="kitchen", created="2024-01-01T00:00:00+00:00", updated="2024-01-02T00:00:00+00:00",
        camera=CameraProfile(source="picamera2", frame_size=[640, 480], pile=[100, 80, 300, 260],
                             card=[160, 140, 180, 140], fps=50.0, latency_ms=62.5, latency_p50_ms=41.0,
                             latency_measured=True,
                             controls={"AeEnable": False, "ExposureTime": 8000, "AnalogueGain": 2.5,
                                       "ColourGains": [1.9, 1.6]}),
        deck=DeckProfile(name="vienna", cards=["9S", "10S"], model="kitchen.deck.npz", sha256="ab" * 32,
                         usable=True, learn_shots=6, held_out_shots=12, held_out_accuracy=1.0,
                         confidence={"9S": 0.98, "10S": 1.0}),
        pads=PadsProfile(backend="gpio", wiring=[0, 1, 3, 2], offsets_us=[1200, 350, 4000, 800],
                         tie_margin_us=[20, 25, 30, 15], bounce_ms=[2.0, 0.0, 5.0, 1.0], debounce_ms=8.5,
                         table_tie_us=43, reference="pad", trials=10),
        audio=AudioProfile(backend="espeak", device="default", voice="en", volume=65, confirmed=True))


def test_round_trip(tmp_path: Path) -> None:
    p = full_profile()
    path = save(p, tmp_path / "kitchen.toml")
    assert load(path) == p


def test_partial_profile_round_trip(tmp_path: Path) -> None:
    p, path = load_or_new("bare", tmp_path)
    assert not path.exists() and p.camera is None
    save(p, path)
    assert load(path) == p


@pytest.mark.parametrize("edit, key", [
    (lambda d: d.update(colour="red"), "colour"),
    (lambda d: d["camera"].update(zoom=2), "[camera] zoom"),
    (lambda d: d["pads"].update(offset_us=[1]), "[pads] offset_us"),
    (lambda d: d["camera"]["controls"].update(Sharpness=1.0), "Sharpness"),
    (lambda d: d["deck"]["confidence"].update({"9S": 1.5}), "[deck.confidence] 9S"),
    (lambda d: d.update(version=2), "version"),
    (lambda d: d["pads"].update(offsets_us=[1, 2]), "[pads] wiring"),
    (lambda d: d["camera"].update(pile=[1, 2, 3]), "[camera] pile"),
    (lambda d: d["audio"].update(volume="loud"), "[audio] volume"),
    (lambda d: d["deck"].update(model="../elsewhere.npz"), "[deck] model"),
])
def test_refuses_bad_profiles(edit, key) -> None:  # type: ignore[no-untyped-def]
    data = tomllib.loads(dumps(full_profile()))
    edit(data)
    with pytest.raises(ProfileError) as err:
        parse(data)
    assert key in str(err.value)


def test_load_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('version = 1\ntable = "t"\n[pads]\nsurprise = 1\n')
    with pytest.raises(ProfileError, match=r"t\.toml: \[pads\] surprise: unknown key"):
        load(path)


def test_table_names_are_file_names(tmp_path: Path) -> None:
    assert path_for("kitchen", tmp_path) == tmp_path / "kitchen.toml"
    with pytest.raises(ProfileError):
        path_for("../etc/passwd", tmp_path)


def config(**pads: object):  # type: ignore[no-untyped-def]
    return parse_config({"game": {"id": "slapjack", "players": 4},
                         "pads": {"backend": "gpio", "pins": [17, 27, 22, 23], **pads},
                         "camera": {"source": "picamera2"}})


def test_apply_profile_sets_what_was_measured() -> None:
    out = apply_profile(config(), full_profile())
    assert out.camera.pile == [100, 80, 300, 260]
    assert out.camera.latency_ms == 62.5 and out.camera.fps == 50.0
    assert out.pads.offsets_us == [1200, 350, 4000, 800]
    assert out.pads.tie_margin_us == [20, 25, 30, 15]
    assert out.pads.debounce_ms == 8.5
    assert out.pads.pins == [17, 27, 23, 22]        # seats 3 and 4 were cabled crosswise
    assert out.audio.volume == 65
    assert out.game == config().game


def test_apply_profile_keeps_latency_it_could_not_measure() -> None:
    p = full_profile()
    from dataclasses import replace
    p = replace(p, camera=replace(p.camera, latency_measured=False, latency_ms=5.0), pads=None, audio=None)
    out = apply_profile(config(), p)
    assert out.camera.latency_ms == config().camera.latency_ms
    assert out.pads == config().pads


def test_apply_profile_refuses_other_seat_count() -> None:
    cfg = parse_config({"game": {"id": "slapjack", "players": 3}})
    with pytest.raises(ConfigError, match="4 seats"):
        apply_profile(cfg, full_profile())

"""hardware.audio_device: reading the cards, finding a user's sound server, and choosing the device."""
from __future__ import annotations

import socket
from pathlib import Path

from hardware.audio_device import (SERVER_VARIABLES, Card, choose, parse_pcm_list, parse_proc_cards, pick_card,
                                   user_server)

# `aplay -L` on a Raspberry Pi 4 with Raspberry Pi OS Bookworm (desktop image), shortened.
PI4_PCMS = """null
    Discard all samples (playback) or generate zero samples (capture)
pipewire
    PipeWire Sound Server
default
    Default ALSA Output (currently PipeWire Media Server)
hw:CARD=Headphones,DEV=0
    bcm2835 Headphones, bcm2835 Headphones
    Direct hardware device without any conversions
plughw:CARD=Headphones,DEV=0
    bcm2835 Headphones, bcm2835 Headphones
    Hardware device with all software conversions
sysdefault:CARD=Headphones
    bcm2835 Headphones, bcm2835 Headphones
    Default Audio Device
hw:CARD=vc4hdmi0,DEV=0
    vc4-hdmi-0, MAI PCM i2s-hifi-0
    Direct hardware device without any conversions
plughw:CARD=vc4hdmi0,DEV=0
    vc4-hdmi-0, MAI PCM i2s-hifi-0
    Hardware device with all software conversions
plughw:CARD=Device,DEV=0
    USB Audio Device, USB Audio
    Hardware device with all software conversions
"""
PI4_PROC = """ 0 [Headphones     ]: bcm2835_headphonbcm2835 Headphones - bcm2835 Headphones
                      bcm2835 Headphones
 1 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0
                      vc4-hdmi-0
"""


def test_cards_from_aplay_L_and_from_proc() -> None:
    assert parse_pcm_list(PI4_PCMS) == [Card(0, "Headphones", "bcm2835 Headphones"), Card(1, "vc4hdmi0", "vc4-hdmi-0"),
                                        Card(2, "Device", "USB Audio Device")]
    assert parse_proc_cards(PI4_PROC) == [Card(0, "Headphones", "bcm2835 Headphones"), Card(1, "vc4hdmi0", "vc4-hdmi-0")]
    assert parse_pcm_list("null\n    Discard all samples\n") == []


def test_kinds_and_the_preferred_card() -> None:
    jack, hdmi, usb = parse_pcm_list(PI4_PCMS)
    assert (jack.kind, hdmi.kind, usb.kind) == ("headphones", "hdmi", "added")
    assert pick_card([jack, hdmi, usb]) == usb
    assert pick_card([hdmi, jack]) == jack
    assert pick_card([hdmi]) == hdmi and pick_card([]) is None
    assert pick_card([jack, hdmi, usb], alsa_card="vc4hdmi0") == hdmi
    assert pick_card([jack, hdmi], alsa_card="1") == hdmi
    assert pick_card([jack, hdmi], alsa_card="Nope") == jack        # a card that is not there is not chosen
    assert Card(3, "sndrpihifiberry", "snd_rpi_hifiberry_dac").kind == "added"   # an I2S amplifier HAT
    assert (jack.pcm, hdmi.pcm, usb.pcm) == ("plughw:CARD=Headphones,DEV=0", "sysdefault:CARD=vc4hdmi0",
                                             "plughw:CARD=Device,DEV=0")     # HDMI takes IEC958 only


def test_choose() -> None:
    cards = parse_pcm_list(PI4_PCMS)[:2]
    assert choose("plughw:CARD=Device,DEV=0", cards, None).device == "plughw:CARD=Device,DEV=0"
    assert choose("default", cards, "PipeWire at /run/user/1000/pipewire-0").device == "default"
    service = choose("default", cards, None)
    assert service.device == "plughw:CARD=Headphones,DEV=0" and "no user sound server" in service.reason
    assert choose("default", [], None).device == "default"


def test_user_server_needs_a_listening_socket(tmp_path: Path) -> None:
    runtime = Path("/tmp") / f"tt-{tmp_path.name[-24:]}"
    runtime.mkdir()
    try:
        env = {"XDG_RUNTIME_DIR": str(runtime), "HOME": "/nonexistent"}
        assert user_server(env) is None
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(str(runtime / "pipewire-0"))                      # bound but never listening: refused
        assert user_server(env) is None
        stale.close()
        (runtime / "pipewire-0").unlink()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as pulse:
            (runtime / "pulse").mkdir()
            pulse.bind(str(runtime / "pulse" / "native"))
            pulse.listen(1)
            assert user_server(env) == f"PulseAudio at {runtime}/pulse/native"
            service = {k: v for k, v in env.items() if k not in SERVER_VARIABLES}
            assert user_server(service) is None                        # what the service sees
        assert user_server({"PULSE_SERVER": "tcp:192.168.1.5"}) == "PulseAudio at tcp:192.168.1.5"
    finally:
        for path in sorted(runtime.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
        runtime.rmdir()

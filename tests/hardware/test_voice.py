"""The announcers: queue order, no overlap, counts cut by rulings, files, real espeak-ng.

A fake runner stands in for espeak-ng and aplay: it renders a tiny WAV and
hands out players the test finishes by hand, so nothing here waits on time.
The announcer with default arguments against the fake programs on PATH, as the
service runs it, is tests/deploy/test_voice_service.py.
"""
from __future__ import annotations

import json
import random
import shutil
import subprocess
import threading
import wave
from pathlib import Path
from queue import Queue
from typing import Iterator, Sequence

import pytest

from hardware.voice import (INSTALL_HINT, AnnouncerClosed, AudioUnavailable, EspeakAnnouncer, FileAnnouncer,
                            SilentAnnouncer, SubprocessRunner, VoiceConfigError, VoiceError, write_tone)
from referee.table.ports import Announcer, Utterance

LIMIT = 10.0          # a generous bound for waits on the worker thread, never a timing check


class FakePlayer:
    def __init__(self, runner: "FakeRunner", argv: Sequence[str], text: str) -> None:
        self.runner, self.argv, self.text = runner, list(argv), text
        self.done = threading.Event()
        self.terminated = False
        self.exit_code = 0

    def wait(self) -> int:
        assert self.done.wait(LIMIT), f"player of {self.text!r} never finished"
        self.runner.ended(self)
        return -15 if self.terminated else self.exit_code

    def terminate(self) -> None:
        self.terminated = True
        self.done.set()

    def finish(self) -> None:
        self.done.set()


class FakeRunner:
    """Records renders and plays; `hold=True` keeps each player going until the test finishes it."""

    def __init__(self, hold: bool = False, fail_render: str = "", exit_code: int = 0) -> None:
        self.hold, self.fail_render, self.exit_code = hold, fail_render, exit_code
        self.lock = threading.Lock()
        self.log: list[tuple[str, str]] = []
        self.renders: list[list[str]] = []
        self.texts: dict[str, str] = {}
        self.players: Queue[FakePlayer] = Queue()
        self.playing = 0
        self.most_at_once = 0

    def run(self, argv: Sequence[str]) -> None:
        if argv[-1] == self.fail_render:
            raise VoiceError("espeak-ng failed (fake)")
        path = argv[list(argv).index("-w") + 1]
        write_tone(Path(path), ((440.0, 0.01),))
        with self.lock:
            self.renders.append(list(argv))
            self.texts[path] = argv[-1]

    def start(self, argv: Sequence[str]) -> FakePlayer:
        path = argv[-1]
        with self.lock:
            text = self.texts.get(path, Path(path).name)
            player = FakePlayer(self, argv, text)
            player.exit_code = self.exit_code
            self.playing += 1
            self.most_at_once = max(self.most_at_once, self.playing)
            self.log.append(("start", text))
        if not self.hold:
            player.finish()
        self.players.put(player)
        return player

    def ended(self, player: FakePlayer) -> None:
        with self.lock:
            self.playing -= 1
            self.log.append(("cut" if player.terminated else "end", player.text))

    def next_player(self) -> FakePlayer:
        return self.players.get(timeout=LIMIT)

    def played(self) -> list[str]:
        return [text for what, text in self.log if what == "end"]


@pytest.fixture
def runner() -> FakeRunner:
    return FakeRunner()


@pytest.fixture
def held() -> FakeRunner:
    return FakeRunner(hold=True)


@pytest.fixture
def espeak(runner: FakeRunner) -> Iterator[EspeakAnnouncer]:
    with EspeakAnnouncer(runner=runner) as ann:
        yield ann


def ruling(text: str) -> Utterance:
    return Utterance(text, "ruling")


def count(text: str) -> Utterance:
    return Utterance(text, "count")


def check_wav(path: Path) -> int:
    with wave.open(str(path), "rb") as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 22050)
        assert w.getnframes() > 0
        return w.getnframes()


# ---- EspeakAnnouncer with a fake runner -----------------------------------------
def test_queue_order_and_command_lines(espeak: EspeakAnnouncer, runner: FakeRunner) -> None:
    port: Announcer = espeak
    for text in ("Jack! Player 3 takes the pile", "False slap, Player 2", "-1 card"):
        port.say(ruling(text))
    assert espeak.flush(LIMIT)
    assert runner.played() == ["Jack! Player 3 takes the pile", "False slap, Player 2", " -1 card"]
    speak = runner.renders[0]
    assert speak[:6] == ["espeak-ng", "-v", "en", "-a", "160", "-w"] and speak[-1] == "Jack! Player 3 takes the pile"
    play = runner.next_player().argv
    assert play[:4] == ["aplay", "-q", "-D", "default"] and play[4] == speak[6]
    assert espeak.delivered == 3 and espeak.errors == []


def test_say_never_blocks_and_nothing_overlaps(held: FakeRunner) -> None:
    with EspeakAnnouncer(runner=held) as ann:
        ann.say(ruling("first"))
        first = held.next_player()
        for i in range(50):                   # the player is stuck: say() still returns
            ann.say(ruling(f"r{i}"))
        assert held.log == [("start", "first")]
        first.finish()
        for _ in range(50):
            held.next_player().finish()
        assert ann.flush(LIMIT)
    assert held.most_at_once == 1
    assert held.log[0::2] == [("start", t) for t in ["first"] + [f"r{i}" for i in range(50)]]
    assert [what for what, _ in held.log] == ["start", "end"] * 51


def test_a_ruling_cuts_a_playing_count_and_drops_queued_ones(held: FakeRunner) -> None:
    with EspeakAnnouncer(runner=held) as ann:
        ann.say(count("One"))
        one = held.next_player()
        ann.say(count("Two"))
        ann.say(count("Three"))               # a newer count drops the queued "Two"
        ann.say(Utterance("ding", "chime"))   # a chime cuts nothing
        assert not one.terminated and [u.text for u in ann.dropped] == ["Two"]
        ann.say(ruling("Jack! Player 1 takes the pile"))
        assert one.terminated
        held.next_player().finish()           # the chime
        held.next_player().finish()           # the ruling
        assert ann.flush(LIMIT)
        assert [u.text for u in ann.dropped] == ["Two", "Three", "One"]
    assert held.log == [("start", "One"), ("cut", "One"), ("start", "chime-ding.wav"), ("end", "chime-ding.wav"),
                        ("start", "Jack! Player 1 takes the pile"), ("end", "Jack! Player 1 takes the pile")]


def test_an_alert_cuts_a_count_but_a_ruling_never_cuts_a_ruling(held: FakeRunner) -> None:
    with EspeakAnnouncer(runner=held) as ann:
        ann.say(ruling("Slap! Player 2"))
        first = held.next_player()
        ann.say(ruling("Player 2 is back in"))
        ann.say(Utterance("Camera lost", "alert"))
        assert not first.terminated
        first.finish()
        held.next_player().finish()
        ann.say(count("Four"))
        ann.say(Utterance("Check the table", "alert"))
        held.next_player().finish()           # "Camera lost" (started before "Four" was said)
        held.next_player().finish()           # "Check the table"
        assert ann.flush(LIMIT)
    assert held.played() == ["Slap! Player 2", "Player 2 is back in", "Camera lost", "Check the table"]
    assert [u.text for u in ann.dropped] == ["Four"]


@pytest.mark.parametrize("seed", range(12))
def test_rulings_are_never_dropped(seed: int) -> None:
    rng = random.Random(seed)
    said = [Utterance(f"{kind}-{i}", kind) for i, kind in
            enumerate(rng.choices(["ruling", "count", "count", "alert", "chime"], k=40))]
    runner = FakeRunner()
    with EspeakAnnouncer(runner=runner) as ann:
        for u in said:
            ann.say(u)
        assert ann.flush(LIMIT)
    texts = [runner.texts.get(p.argv[-1], p.argv[-1]) for p in list(runner.players.queue)]
    must = [u.text for u in said if u.kind in ("ruling", "alert")]
    assert [t for t in texts if t.split("-")[0] in ("ruling", "alert")] == must
    spoken_counts = [t for t in texts if t.startswith("count")]
    assert len(spoken_counts) + len(ann.dropped) == sum(u.kind == "count" for u in said)
    assert runner.most_at_once == 1


def test_chimes_are_tones_made_once(espeak: EspeakAnnouncer, runner: FakeRunner) -> None:
    for name in ("win", "win", "no-such-chime"):
        espeak.say(Utterance(name, "chime"))
    assert espeak.flush(LIMIT)
    paths = [runner.next_player().argv[-1] for _ in range(3)]
    assert paths[0] == paths[1] and Path(paths[2]).name == "chime-ding.wav"
    assert runner.renders == []                # no espeak-ng for a chime
    assert check_wav(Path(paths[0])) > check_wav(Path(paths[2]))


def test_a_failed_render_or_player_is_recorded_and_the_worker_goes_on() -> None:
    runner = FakeRunner(fail_render="boom")
    with EspeakAnnouncer(runner=runner) as ann:
        ann.say(ruling("boom"))
        ann.say(ruling("after"))
        assert ann.flush(LIMIT)
        assert runner.played() == ["after"]
        assert ann.errors[0][0].text == "boom" and "fake" in ann.errors[0][1]
    bad_device = FakeRunner(exit_code=1)
    with EspeakAnnouncer(device="hw:9", runner=bad_device) as ann:
        ann.say(ruling("nobody hears this"))
        assert ann.flush(LIMIT)
        assert "aplay exited with 1" in ann.errors[0][1] and "hw:9" in ann.errors[0][1]


def test_missing_programs_say_how_to_install_them() -> None:
    with pytest.raises(AudioUnavailable, match="no-such-espeak-xyz and no-such-aplay-xyz not found") as err:
        EspeakAnnouncer(speak_cmd="no-such-espeak-xyz", play_cmd="no-such-aplay-xyz")
    assert INSTALL_HINT in str(err.value) and "no-such-aplay-xyz" in str(err.value)
    assert isinstance(err.value, FileNotFoundError)


@pytest.mark.parametrize("volume", [-1, 101, 50.0, True])
def test_impossible_volume_is_refused(runner: FakeRunner, volume: object) -> None:
    with pytest.raises(VoiceConfigError, match="volume"):
        EspeakAnnouncer(volume=volume, runner=runner)  # type: ignore[arg-type]


def test_unknown_kind_and_say_after_close(espeak: EspeakAnnouncer) -> None:
    with pytest.raises(VoiceConfigError, match="unknown utterance kind 'shout'"):
        espeak.say(Utterance("hey", "shout"))
    espeak.close()
    with pytest.raises(AnnouncerClosed) as err:
        espeak.say(ruling("too late"))
    assert isinstance(err.value, RuntimeError)


def test_close_drains_the_queue(runner: FakeRunner) -> None:
    ann = EspeakAnnouncer(runner=runner)
    for i in range(5):
        ann.say(ruling(f"r{i}"))
    ann.close()
    ann.close()                                # idempotent
    assert runner.played() == [f"r{i}" for i in range(5)] and ann.unspoken == []


def test_close_gives_up_after_its_timeout(held: FakeRunner) -> None:
    ann = EspeakAnnouncer(runner=held)
    ann.say(ruling("stuck"))
    stuck = held.next_player()
    ann.say(ruling("never said"))
    ann.close(timeout=0.05)
    assert stuck.terminated
    assert [u.text for u in ann.unspoken] == ["never said", "stuck"]


def test_repr(held: FakeRunner) -> None:
    ann = EspeakAnnouncer(device="plughw:1", runner=held)
    assert repr(ann) == "<EspeakAnnouncer device='plughw:1' voice='en' idle, 0 queued, 0 delivered>"
    ann.say(ruling("Jack!"))
    player = held.next_player()
    assert "ruling: 'Jack!'" in repr(ann)
    player.finish()
    ann.close()
    assert repr(ann) == "<EspeakAnnouncer closed>"
    assert repr(SilentAnnouncer()) == "<SilentAnnouncer>"


def test_silent_announcer_takes_anything() -> None:
    with SilentAnnouncer() as ann:
        port: Announcer = ann
        port.say(ruling("nothing"))


# ---- FileAnnouncer -----------------------------------------------------------------
def read_jsonl(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "utterances.jsonl").read_text().splitlines()]


def test_file_announcer_writes_numbered_wavs_and_a_jsonl(tmp_path: Path) -> None:
    with FileAnnouncer(tmp_path / "audio", speak_cmd="no-such-espeak-xyz") as ann:
        assert not ann.speaks
        ann.say(Utterance("Jack! Player 3", "ruling", t_ns=5))
        ann.say(Utterance("win", "chime", t_ns=6))
        ann.say(Utterance("Camera lost", "alert", t_ns=7))
        assert ann.flush(LIMIT)
    lines = read_jsonl(tmp_path / "audio")
    assert lines == [
        {"file": "0001-ruling.wav", "kind": "ruling", "text": "Jack! Player 3", "t_ns": 5, "rendered": "tone"},
        {"file": "0002-chime.wav", "kind": "chime", "text": "win", "t_ns": 6, "rendered": "chime"},
        {"file": "0003-alert.wav", "kind": "alert", "text": "Camera lost", "t_ns": 7, "rendered": "tone"},
    ]
    for line in lines:
        check_wav(tmp_path / "audio" / line["file"])
    with FileAnnouncer(tmp_path / "audio", speak_cmd="no-such-espeak-xyz") as again:   # numbering goes on
        again.say(ruling("Game over"))
    assert read_jsonl(tmp_path / "audio")[-1]["file"] == "0004-ruling.wav"


def test_file_announcer_renders_speech_through_the_runner(tmp_path: Path, runner: FakeRunner) -> None:
    with FileAnnouncer(tmp_path, runner=runner, volume=50) as ann:
        ann.say(ruling("False slap, player 2 pays player 4"))
    assert read_jsonl(tmp_path)[0]["rendered"] == "espeak"
    assert runner.renders[0] == ["espeak-ng", "-v", "en", "-a", "100", "-w", str(tmp_path / "0001-ruling.wav"),
                                 "False slap, player 2 pays player 4"]
    check_wav(tmp_path / "0001-ruling.wav")


class BlockingRender(FakeRunner):
    """Render blocks on the first call until released: the worker is busy, the queue fills."""

    def __init__(self) -> None:
        super().__init__()
        self.busy, self.release = threading.Event(), threading.Event()

    def run(self, argv: Sequence[str]) -> None:
        if not self.busy.is_set():
            self.busy.set()
            assert self.release.wait(LIMIT)
        super().run(argv)


def test_file_announcer_drops_stale_counts_but_writes_every_ruling(tmp_path: Path) -> None:
    render = BlockingRender()
    with FileAnnouncer(tmp_path, runner=render) as ann:
        ann.say(count("One"))
        assert render.busy.wait(LIMIT)
        ann.say(count("Two"))
        ann.say(ruling("Jack! Player 1"))
        ann.say(count("Three"))
        render.release.set()
        assert ann.flush(LIMIT)
    assert [(x["file"], x["text"]) for x in read_jsonl(tmp_path)] == [
        ("0001-count.wav", "One"), ("0002-ruling.wav", "Jack! Player 1"), ("0003-count.wav", "Three")]
    assert [u.text for u in ann.dropped] == ["Two"]


def test_file_announcer_can_keep_every_count(tmp_path: Path) -> None:
    render = BlockingRender()
    with FileAnnouncer(tmp_path, runner=render, drop_counts=False) as ann:
        ann.say(count("One"))
        assert render.busy.wait(LIMIT)
        ann.say(count("Two"))
        ann.say(ruling("Snap!"))
        render.release.set()
    assert [x["text"] for x in read_jsonl(tmp_path)] == ["One", "Two", "Snap!"]


# ---- the real espeak-ng -------------------------------------------------------------
needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason=f"espeak-ng is not installed ({INSTALL_HINT})")


@needs_espeak
def test_real_espeak_writes_speech_wavs(tmp_path: Path) -> None:
    with FileAnnouncer(tmp_path) as ann:
        assert ann.speaks
        ann.say(ruling("Jack! Player 3 by 12 milliseconds"))
        ann.say(count("Three!"))
    lines = read_jsonl(tmp_path)
    assert [x["rendered"] for x in lines] == ["espeak", "espeak"]
    assert check_wav(tmp_path / "0001-ruling.wav") > check_wav(tmp_path / "0002-count.wav") > 22050 // 10


class RealRenderFakePlay(SubprocessRunner):
    """Real espeak-ng, a fake player that checks the file it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[int] = []

    def start(self, argv: Sequence[str]) -> FakePlayer:
        self.frames.append(check_wav(Path(argv[-1])))
        player = FakePlayer(FakeRunner(), argv, argv[-1])
        player.finish()
        return player


@needs_espeak
def test_real_espeak_renders_for_the_player() -> None:
    runner = RealRenderFakePlay()
    with EspeakAnnouncer(voice="en", runner=runner) as ann:
        ann.say(ruling("False slap, player 2 pays player 4"))
        ann.say(Utterance("alert", "chime"))
        assert ann.flush(LIMIT)
        assert ann.errors == [] and len(runner.frames) == 2


@needs_espeak
@pytest.mark.skipif(shutil.which("aplay") is None, reason=f"aplay is not installed ({INSTALL_HINT})")
def test_real_espeak_and_aplay_to_the_null_device(tmp_path: Path) -> None:
    probe = write_tone(tmp_path / "probe.wav", ((440.0, 0.01),))
    if subprocess.run(["aplay", "-q", "-D", "null", str(probe)], capture_output=True).returncode != 0:
        pytest.skip("ALSA has no 'null' device here")
    with EspeakAnnouncer(device="null") as ann:
        ann.say(ruling("Snap!"))
        ann.say(Utterance("ding", "chime"))
        assert ann.flush(LIMIT)
        assert ann.errors == [] and ann.delivered == 2


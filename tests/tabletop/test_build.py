"""Building the table's parts from its config (tabletop/build.py): real, keyboard and the bots' simulated table."""
from __future__ import annotations

from pathlib import Path

import pytest

from referee.config import TableConfig, parse
from referee.core.events import MS, Slap
from referee.table.ports import SILENT_KEEP, MemoryAnnouncer
from tabletop.build import build_announcer, build_camera, build_pads, build_table, check
from tabletop.clock import TableClock
from tabletop.demo import demo_config
from tabletop.game_setup import GamePlan
from tabletop.sim_world import SimWorld


def test_a_silent_table_speaks_into_a_bounded_announcer() -> None:
    # a table without a speaker runs for days: what it would have said must not grow without end
    config = TableConfig()
    assert config.audio.backend == "silent"  # the default: a table set up without a speaker
    announcer = build_announcer(config)
    assert isinstance(announcer, MemoryAnnouncer) and announcer.keep == SILENT_KEEP


def test_keyboard_pads_build_with_one_key_per_seat() -> None:
    config = parse({"game": {"players": 3}, "pads": {"backend": "keyboard", "keys": "qwe"}})
    pads = build_pads(config)
    try:
        assert pads.feed("xwQ") == 2
        events = [p.event for p in pads.drain()]
        assert [type(e).__name__ for e in events] == ["Slap", "Press"] and [e.seat for e in events] == [1, 0]
    finally:
        pads.close()


def test_the_bots_pads_feel_the_worlds_contacts_through_the_pad_logic() -> None:
    clock = TableClock()
    world = SimWorld()
    config = demo_config(vision=False)
    pads = build_pads(config, world=world, clock=clock)
    try:
        t = clock() + 30 * MS
        world.contact(2, t)
        event = pads.get(timeout=2).event
        assert event == Slap(2, t)                       # the first edge's stamp, bounce or not
        assert not pads.drain()                          # bounce and release are no second slap
    finally:
        pads.close()


def test_a_bots_table_is_built_like_any_other(tmp_path: Path) -> None:
    config = demo_config(vision=False, journal=tmp_path / "demo.db")
    table = build_table(config, clock=TableClock(5.0))
    try:
        assert table.world is not None and table.bots is not None
        assert table.world.referee is table.runtime.game                 # the world follows the referee's game
        assert all(c is None for hand in table.runtime.game.hands for c in hand)   # the referee is blind
        assert sorted(s.name for s in table.runtime.sources) == ["camera", "pads"]
        first = table.game_no
        pads = table.pads
        table.next_game(GamePlan(config, rotate=True).game_config("slapstick"), 7)
        assert table.game_no == first + 1 and table.pads is pads and table.runtime.game.game_id == "slapstick"
        assert table.world.referee is table.runtime.game and table.runtime.game.n == 3
        assert [g.game_id for g in table.journal.games()] == ["slapjack", "slapstick"]
    finally:
        table.close()


def test_the_rendered_camera_shows_the_world_to_the_real_pipeline() -> None:
    config = demo_config(vision=True)
    world = SimWorld()
    open_camera, pipeline = build_camera(config, world=world, clock=TableClock())
    camera = open_camera()
    try:
        frame, t_ns = next(iter(camera))
        assert frame.shape == (480, 640, 3) and t_ns > 0
        assert type(pipeline).__name__ == "CardPipeline"
    finally:
        camera.close()
    assert all(ok for ok, _ in check(config)), check(config)


def test_the_demo_plays_the_six_games_in_turn_with_the_options_each_takes() -> None:
    config = parse({"game": {"id": "irish-snap", "players": 4, "options": {"finish": "slap-out", "time_limit_s": 60}}})
    plan = GamePlan(config, rotate=True)
    games = [plan.next()[0] for _ in range(7)]
    assert [g.id for g in games][:6] == ["slapjack", "slapjack-classic", "irish-snap", "irish-snap-plus",
                                          "slapjack-all-faces", "slapstick"] and games[6].id == "slapjack"
    assert games[2].options == {"finish": "slap-out", "time_limit_s": 60}
    assert games[0].options == {"time_limit_s": 60} and games[5].players == 3
    plan.choose("slapstick")
    assert plan.next()[0].id == "slapstick"
    with pytest.raises(ValueError):
        plan.choose("snap")


def test_the_demo_leaves_out_games_its_seats_cannot_play() -> None:
    plan = GamePlan(parse({"game": {"players": 9}}), rotate=True)
    assert plan.order == ["slapjack", "irish-snap", "irish-snap-plus", "slapjack-all-faces", "slapstick"]
    assert all(plan.game_config(g).players in (3, 9) for g in plan.order)
    with pytest.raises(ValueError):
        GamePlan(parse({"game": {"players": 9}}), only="slapjack-classic")

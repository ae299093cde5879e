"""The kiosk on a running demo (`referee demo` as `run_table` plays it: bots, game after game, no vision for
speed) in headless Chromium: the game-over screen appears with the winner, holds for the table's pause
between games in real seconds even on a sped-up table, and the next game starts with a clean ruling area."""
from __future__ import annotations

import socket
import threading
import time
from typing import Any, Iterator

import pytest

from referee.config import GameConfig, TableConfig
from referee.web.screens import browser_missing, chromium

pytestmark = pytest.mark.skipif(browser_missing() is not None, reason=f"no headless browser: {browser_missing()}")
SPEED = 4.0
GAME_S = 8.0                     # table seconds per game (a time limit: whole games take minutes)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_game_over_screen_holds_before_the_next_game(browser: Any, tmp_path: Any) -> None:
    from tabletop.demo import demo_config
    from tabletop.table_loop import RunOptions, run_table
    port = free_port()
    config = demo_config(TableConfig(game=GameConfig(id="slapjack", options={"time_limit_s": GAME_S})),
                         vision=False, speed=SPEED, journal=tmp_path / "demo.db", port=port, audio="silent")
    opts = RunOptions(command="demo", rotate=True, speed=SPEED, games=2, between_s=3.0)
    runner = threading.Thread(target=run_table, args=(config, opts), daemon=True)
    runner.start()
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(30_000)
    try:
        for _ in range(100):
            try:
                page.goto(f"http://127.0.0.1:{port}/")
                break
            except Exception:
                time.sleep(0.1)
        page.wait_for_function("document.getElementById('conn').textContent === 'live'")
        assert page.inner_text("#title") == "Slapjack"
        page.wait_for_selector("#gameover:not([hidden])")
        shown = time.monotonic()
        winner = page.inner_text("#gowinner")
        assert winner.endswith("wins!") or winner.endswith("loses") or winner == "No winner"
        assert len(page.query_selector_all("#standings li")) == 4
        page.wait_for_selector("#gameover", state="hidden")
        held = time.monotonic() - shown
        assert held >= 2.5, held                       # 3 real seconds, though the table runs 4x
        assert page.inner_text("#title") == "Slapjack (classic)"
        left_over = page.evaluate("() => window.referee.rulings.filter((r) => r.kind === 'game_over').length")
        assert left_over == 0                          # the last game's rulings went with it
        assert page.inner_text("#ruling") != page.inner_text("#gowinner")
    finally:
        page.close()
        opts.stop.set()
        runner.join(15)

"""The dashboard in headless Chromium (Debian's) driven by Playwright: a staged game plays, the page follows."""
from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, Iterator

import pytest

from referee.journal import Journal
from referee.web import serve
from referee.web.screens import browser_missing, chromium, save_screenshots
from referee.web.stage import StageTable

from .helpers import PIN

pytestmark = pytest.mark.skipif(browser_missing() is not None, reason=f"no headless browser: {browser_missing()}")
TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def calls(stage: StageTable, name: str) -> list[dict[str, Any]]:
    return [params for n, params in stage.calls if n == name]


def test_live_page_follows_a_game_and_guards_operator_actions(browser: Any) -> None:
    stage = StageTable("irish-snap", 4, seed=5, pin=PIN, names=["Ada", "Ben", "Cleo", "Dev"])
    server = serve(stage.feed, port=0, state_watch_s=0.05).start()
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(server.url + "/")
        page.wait_for_function("document.getElementById('conn').textContent === 'live'")
        assert page.inner_text("#seats").count("cards") == 4
        assert page.inner_text("#title") == "Irish Snap"
        stage.start(speed=12.0)
        # the game advances: pushed states move the pile and the count on
        page.wait_for_function("window.referee.state && window.referee.state.pile >= 2")
        page.wait_for_function("document.getElementById('howto').textContent.startsWith('Count: ')")
        # a slap decision arrives, with each seat's first contact and the margin
        page.wait_for_selector("#timeline:not([hidden]) .trow:nth-child(4)")
        ruling = page.inner_text("#ruling")
        assert ruling and "Waiting" not in ruling
        rows = page.query_selector_all("#timeline .trow")
        timed = [r.inner_text() for r in rows if "ms" in r.inner_text() or "µs" in r.inner_text()]
        assert len(timed) >= 2, [r.inner_text() for r in rows]
        assert "margin" in page.inner_text("#timeline .head")

        # operator actions: refused without the PIN, done with it
        page.click("#opbtn")
        page.click("#oppanel [data-action=pause]")
        page.wait_for_function("document.getElementById('opmsg').textContent.includes('PIN')")
        page.fill("#pin", "1111")
        page.click("#oppanel [data-action=new_game]")
        page.wait_for_function("document.getElementById('opmsg').textContent === 'Wrong or missing PIN'")
        assert calls(stage, "pause") == [] and calls(stage, "new_game") == []
        page.fill("#pin", PIN)
        page.click("#oppanel [data-action=pause]")
        page.wait_for_function("document.getElementById('opmsg').textContent === 'pause: done'")
        page.wait_for_selector("#pausebanner:not([hidden])")     # the pushed state says so
        page.select_option("#opgame", "slapstick")
        page.click("#oppanel [data-action=change_game]")
        page.wait_for_function("document.getElementById('opmsg').textContent === 'change game: done'")
        page.click("#oppanel [data-action=resume]")
        page.wait_for_function("document.getElementById('opmsg').textContent === 'resume: done'")
        page.wait_for_selector("#pausebanner", state="hidden")
        assert calls(stage, "pause") == [{}] and calls(stage, "change_game") == [{"game": "slapstick"}]
        page.click("#opclose")

        # a visitor joins with a key and slaps with the space bar
        page.keyboard.press("j")
        page.wait_for_selector("#play:not([hidden])")
        page.wait_for_selector("#seats .you")
        page.keyboard.press(" ")
        page.wait_for_function("document.getElementById('scores').textContent.includes('Ada')")
        for _ in range(50):
            if calls(stage, "visitor_slap"):
                break
            page.wait_for_timeout(50)
        assert calls(stage, "join") == [{}] and calls(stage, "visitor_slap") == [{"seat": 0}]
    finally:
        page.close()
        stage.stop()
        server.stop()


def test_review_page_lists_disputes_and_opens_an_evidence_sheet(browser: Any, tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    stage = StageTable("slapjack", 3, seed=2, journal=journal)
    stage.play()
    server = serve(stage.feed, port=0, journal_path=str(tmp_path / "journal.db")).start()
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(server.url + "/review")
        page.wait_for_selector("#disputes tr[data-ruling]")
        assert "Game 1: Slapjack" in page.inner_text("#games")          # the game as people name it
        page.click("#disputes tr[data-ruling] a.sheetlink")
        page.wait_for_function("document.getElementById('sheet').complete && "
                               "document.getElementById('sheet').naturalWidth > 0")
        assert page.is_visible("#sheetbox")
    finally:
        page.close()
        server.stop()
        journal.close()


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_save_screenshots_writes_the_main_and_review_views(browser: Any, tmp_path: Path) -> None:
    saved = save_screenshots(tmp_path / "screens", browser=browser)
    names = {p.name: png_size(p) for p in saved}
    assert names == {"main.png": (800, 480), "main-1280.png": (1280, 800), "review.png": (1280, 800),
                     "review-sheet.png": (1280, 800)}

"""Issue 39 in headless Chromium at the Pi screen's 800x480: the card label is what vision read on the frame
shown, the ruling area belongs to the last ruling and clears at a new game, the game-over screen, the paused
banner, the operator panel without a PIN, and a type scale readable from across the room."""
from __future__ import annotations

import re
from typing import Any, Iterator

import pytest

from referee.web import WebServer, serve
from referee.web.screens import browser_missing, chromium
from referee.web.stage import StageTable

from .helpers import PIN, http

pytestmark = pytest.mark.skipif(browser_missing() is not None, reason=f"no headless browser: {browser_missing()}")
TIMEOUT_MS = 15_000
NAMES = ["Ada", "Ben", "Cleo", "Dev", "Eve", "Finn"]
NEEDED = ["#howto", "#ruling", "#cardname", "#seats .seat .name", "#seats .seat .cards", "#timeline .trow .who",
          "#timeline .trow .t"]
SIZES = """(sels) => {
  const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map((v) => { v = Number(v) / 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const back = (e) => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor, m = c.match(/[\\d.]+/g);
    if (m && (m.length < 4 || Number(m[3]) > 0.5)) return c; } return "rgb(16, 21, 28)"; };
  const contrast = (e) => { const a = lum(getComputedStyle(e).color), b = lum(back(e));
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); };
  return sels.flatMap((sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent !== null || e.closest('#pausebanner'))
  .map((e) => { const r = e.getBoundingClientRect(); return {sel, px: parseFloat(getComputedStyle(e).fontSize),
    top: r.top, bottom: r.bottom, left: r.left, right: r.right, contrast: contrast(e),
    cut: e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0}; })); }"""
SAMPLE = """() => { const n = document.getElementById('cardname'), f = document.getElementById('frame');
  const m = /seq=(\\d+)/.exec(f.getAttribute('src') || ''); return {src: m ? Number(m[1]) : null, shown: window.referee.shownSeq,
    seq: n.dataset.seq ? Number(n.dataset.seq) : null, card: n.dataset.card || null, text: n.hidden ? null : n.textContent}; }"""
AREA = """() => { const r = document.getElementById('ruling'), t = document.getElementById('timeline');
  return {ruling: r.dataset.t || null, timeline: t.hidden ? null : (t.dataset.t || 'none')}; }"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        page.close()
    assert not errors, errors                                   # the page's script never failed


def open_page(page: Any, stage: StageTable) -> WebServer:
    server = serve(stage.feed, port=0, state_watch_s=0.05).start()
    page.goto(server.url + "/")
    page.wait_for_function("document.getElementById('conn').textContent === 'live'")
    return server


def slap_decided(stage: StageTable) -> bool:
    rulings = stage.session.rulings
    return bool(rulings) and "slaps" in rulings[-1].evidence and len(rulings[-1].evidence["slaps"]) >= 3


def assert_legible(page: Any, selectors: list[str], at_least: float = 24.0) -> None:
    found = page.evaluate(SIZES, selectors)
    assert {f["sel"] for f in found} == set(selectors), found
    for f in found:
        assert f["px"] >= at_least, f
        assert f["contrast"] >= 4.5, f                          # WCAG AA for body text
        assert f["top"] >= 0 and f["bottom"] <= 480 + 0.5 and f["left"] >= 0 and f["right"] <= 800 + 0.5, f
        assert not f["cut"], f


def test_the_card_label_is_what_vision_read_on_the_frame_shown(page: Any) -> None:
    stage = StageTable("slapjack", 3, seed=2, names=NAMES[:3])
    stage.play(until=lambda: len(stage.session.game.pile) >= 2)
    top = str(stage.session.game.pile[-1].card)
    server = open_page(page, stage)
    try:
        published: dict[int, str | None] = {}
        overlay = stage.show_frame("QH")
        published[overlay["seq"]] = "QH"
        page.wait_for_function(f"document.getElementById('cardname').dataset.seq === '{overlay['seq']}'")
        assert page.inner_text("#cardname").startswith("Q♥") and top != "QH"
        # frames arrive faster than the page loads them: each shown label is the one read on the frame shown
        samples = []
        for i, card in enumerate(["2C", "3D", "4S", "5H", "6C", "7D", "8S", "9H", "10C", "JD", "KS", "AH"]):
            overlay = stage.show_frame(card, seed=i)
            published[overlay["seq"]] = card
            samples.append(page.evaluate(SAMPLE))
        page.wait_for_function(f"document.getElementById('cardname').dataset.seq === '{overlay['seq']}'")
        samples.append(page.evaluate(SAMPLE))
        for s in samples:
            if s["shown"] is None:
                continue
            assert s["seq"] == s["shown"], s                    # the label is the loaded frame's own reading
            assert s["card"] == published[s["seq"]], s
        assert samples[-1]["text"].startswith("A♥")
        # a landing being read says so; a frame with nothing read shows no card, whatever the game's top
        seq = stage.feed.set_frame(stage.feed.frame(), {"reading": True})
        page.wait_for_function(f"document.getElementById('cardname').dataset.seq === '{seq}'")
        assert page.inner_text("#cardname") == "reading…"
        seq = stage.feed.set_frame(stage.feed.frame(), {})
        page.wait_for_function(f"document.getElementById('cardname').dataset.seq === '{seq}'")
        assert page.is_hidden("#cardname") and stage.feed.snapshot()["top"] is not None
        assert "top" not in page.inner_text("#left")            # no game's-state "top X" dressed as a reading
    finally:
        server.stop()


def test_the_ruling_area_belongs_to_the_last_ruling_and_clears_at_a_new_game(page: Any) -> None:
    stage = StageTable("irish-snap", 4, seed=5, names=NAMES[:4])
    stage.play(until=lambda: slap_decided(stage))
    server = open_page(page, stage)
    try:
        page.wait_for_selector("#timeline:not([hidden]) .trow")
        area = page.evaluate(AREA)
        assert area["ruling"] == area["timeline"] == str(stage.session.rulings[-1].t_ns // 1000)
        mismatched = []
        stage.start(speed=12.0)
        for _ in range(40):                                     # 4 s of play, sampled every 100 ms
            area = page.evaluate(AREA)
            if area["timeline"] is not None and area["timeline"] != area["ruling"]:
                mismatched.append(area)
            page.wait_for_timeout(100)
        stage.stop()
        assert not mismatched
        stage.next_game()
        page.wait_for_function("document.getElementById('ruling').textContent === 'A new game begins…'")
        assert page.is_hidden("#timeline") and page.inner_text("#recent") == ""
    finally:
        stage.stop()
        server.stop()


def test_game_over_screen_names_the_winner_with_standings_until_the_next_game(page: Any) -> None:
    stage = StageTable("slapjack", 3, seed=2, names=NAMES[:3])
    stage.play()
    game = stage.session.game
    assert game.over and game.winner is not None
    server = open_page(page, stage)
    try:
        page.wait_for_selector("#gameover:not([hidden])")
        assert page.inner_text("#gowinner") == f"{NAMES[game.winner]} wins!"
        rows = page.query_selector_all("#standings li")
        assert len(rows) == 3 and rows[0].inner_text().startswith(NAMES[game.winner])
        assert "52 cards" in rows[0].inner_text()
        assert_legible(page, ["#gowinner", "#standings li"])
        stage.next_game()
        page.wait_for_selector("#gameover", state="hidden")
    finally:
        server.stop()


def test_paused_shows_big_and_an_operator_panel_without_a_pin_says_actions_are_off(browser: Any) -> None:
    stage = StageTable("irish-snap", 4, seed=5, pin=PIN)
    page = browser.new_page(viewport={"width": 800, "height": 480})
    server = open_page(page, stage)
    try:
        assert page.is_hidden("#pausebanner")
        assert http("POST", server.url + "/api/operator/pause", {}, {"X-Operator-Pin": PIN})[0] == 200
        page.wait_for_selector("#pausebanner:not([hidden])")
        assert page.inner_text("#pausebanner").startswith("PAUSED")
        assert_legible(page, ["#pausebanner b", "#pausewhy"])
        page.click("#opbtn")
        assert page.is_visible("#pin") and page.is_hidden("#opoff")
    finally:
        page.close()
        server.stop()
    open_table = StageTable("irish-snap", 4, seed=5, pin="")
    page = browser.new_page(viewport={"width": 800, "height": 480})
    server = open_page(page, open_table)
    try:
        page.click("#opbtn")
        assert page.is_visible("#opoff") and page.is_hidden("#pin")
        assert "no operator PIN" in page.inner_text("#opoff")
    finally:
        page.close()
        server.stop()


@pytest.mark.parametrize("players,named", [(4, True), (6, False)])
def test_what_a_player_needs_is_24px_or_more_at_800x480(page: Any, players: int, named: bool) -> None:
    stage = StageTable("irish-snap", players, seed=5, names=NAMES[:players] if named else None)
    stage.play(until=lambda: slap_decided(stage) and bool(stage.session.game.pile))
    stage.show_frame()
    server = open_page(page, stage)
    try:
        page.wait_for_selector("#timeline:not([hidden]) .trow")
        page.wait_for_selector("#cardname:not([hidden])")
        assert_legible(page, NEEDED)
        assert not re.search(r"Player 0\b", page.inner_text("body"))     # seats counted from 1
    finally:
        server.stop()


def test_the_operator_form_names_seats_from_one(page: Any) -> None:
    stage = StageTable("irish-snap", 4, seed=5, pin=PIN)
    server = open_page(page, stage)
    try:
        page.click("#opbtn")
        page.fill("#pin", PIN)
        page.fill("#opseat", "9")
        page.click("#oppanel [data-action=set_hand]")
        page.wait_for_function("document.getElementById('opmsg').textContent.includes('seat')")
        assert "no seat 9 at this table: seats 1 to 4" in page.inner_text("#opmsg")
    finally:
        server.stop()


def test_a_visitor_sees_their_own_slap_judged_and_no_press_button_where_presses_mean_nothing(page: Any) -> None:
    from .helpers import HandTable
    table = HandTable()
    server = serve(table.feed, port=0, state_watch_s=0.05).start()
    try:
        page.goto(server.url + "/")
        page.wait_for_function("document.getElementById('conn').textContent === 'live'")
        page.keyboard.press("j")                                # seated at seat 1 (index 0)
        page.wait_for_selector("#play:not([hidden])")
        assert page.is_hidden("#pressbtn")                      # Irish Snap has no presses
        table.snap_round()                                      # index 0 slapped second of three: safe
        page.wait_for_function("document.getElementById('reactions').textContent.includes('safe')")
        assert page.inner_text("#reactions") == "safe in 240.5 ms"
        assert_legible(page, ["#reactions"])
    finally:
        server.stop()

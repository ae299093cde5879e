"""The dashboard over real HTTP: pushed rulings with timelines, frames, operator PINs, visitor play, review."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.journal import Journal
from referee.web import serve
from referee.web.app import STATIC

from referee.events import MS

from .helpers import BASE, PIN, HandTable, SSEReader, http

OVERLAY = {"card": "2D", "confidence": 0.98, "center": [320, 240], "quad": [[250, 150], [390, 150], [390, 340], [250, 340]]}


def test_sse_pushes_a_ruling_with_each_seats_first_contact_and_the_margin(table: HandTable, server) -> None:
    sse = SSEReader(server.url)
    try:
        hello = sse.wait_for(lambda k, d: k == "state")
        assert hello["state"]["game"] == "irish-snap" and "recent" in hello
        table.snap_round()
        message = sse.wait_for(lambda k, d: k == "ruling" and d["ruling"]["kind"] == "picks_up")
    finally:
        sse.close()
    ruling = message["ruling"]
    assert ruling["seat"] == 1 and ruling["reason"] == "last"
    assert ruling["timeline"] == [{"seat": 2, "us": 180_000}, {"seat": 0, "us": 240_500}, {"seat": 1, "us": 251_000}]
    assert ruling["margin_us"] == 10_500
    assert message["state"]["players"][1]["cards"] == 2 + 2          # seat 1 picked up the pile of 2
    assert "text/event-stream" in sse.head.decode().lower()


def test_a_card_without_a_ruling_still_pushes_the_new_count(table: HandTable, server) -> None:
    sse = SSEReader(server.url)
    try:
        sse.wait_for(lambda k, d: k == "state")
        table.card("5C", BASE)
        table.step(None, BASE + 200 * MS)                # past the hold-back: the card is judged
        state = sse.wait_for(lambda k, d: k == "state" and d["state"]["pile"] == 1)["state"]
    finally:
        sse.close()
    assert state["top"] == "5C" and state["call"] == "Ace"
    assert [p["turn"] for p in state["players"]] == [False, True, False]     # the next seat is on


def test_the_camera_frame_and_its_overlay(table: HandTable, server) -> None:
    status, _, _ = http("GET", server.url + "/frame.jpg")
    assert status == 204
    sse = SSEReader(server.url)
    try:
        sse.wait_for(lambda k, d: k == "state")
        table.feed.set_frame(b"\xff\xd8fake-jpeg\xff\xd9", OVERLAY)
        frame = sse.wait_for(lambda k, d: k == "frame")
    finally:
        sse.close()
    assert frame["overlay"] == OVERLAY
    status, body, headers = http("GET", server.url + "/frame.jpg")
    assert (status, body, headers["content-type"]) == (200, b"\xff\xd8fake-jpeg\xff\xd9", "image/jpeg")
    assert "no-store" in headers["cache-control"]
    late = SSEReader(server.url)                     # a viewer arriving later gets the frame at once
    try:
        assert late.wait_for(lambda k, d: k == "frame")["overlay"]["card"] == "2D"
    finally:
        late.close()


@pytest.mark.parametrize("headers,body", [({}, {}), ({"X-Operator-Pin": "0000"}, {}), ({}, {"pin": "2467"})])
def test_operator_actions_refuse_without_the_right_pin(table: HandTable, server, headers, body) -> None:
    for action in ("pause", "new_game", "set_hand", "no_such_action"):
        status, reply, _ = http("POST", f"{server.url}/api/operator/{action}", body, headers)
        assert status == 403, action
        assert reply == {"error": "operator PIN required"}
    assert table.calls == [] and not table.runtime.paused


def test_operator_actions_work_with_the_pin(table: HandTable, server) -> None:
    sse = SSEReader(server.url)
    try:
        status, reply, _ = http("POST", server.url + "/api/operator/pause", {}, {"X-Operator-Pin": PIN})
        assert (status, reply["ok"]) == (200, True)
        assert sse.wait_for(lambda k, d: k == "state" and d["state"]["paused"] == ["operator"])
    finally:
        sse.close()
    assert http("POST", server.url + "/api/operator/resume", {"pin": PIN})[0] == 200
    assert http("POST", server.url + "/api/operator/change_game", {"pin": PIN, "game": "slapstick"})[0] == 200
    assert http("POST", server.url + "/api/operator/set_hand", {"seat": 1, "cards": 7, "junk": 1},
                {"X-Operator-Pin": PIN})[0] == 200
    status, reply, _ = http("POST", server.url + "/api/operator/correct_card", {"card": "ZZ"}, {"X-Operator-Pin": PIN})
    assert status == 400 and "error" in reply
    assert http("POST", server.url + "/api/operator/explode", {}, {"X-Operator-Pin": PIN})[0] == 404
    assert http("POST", server.url + "/api/operator", {"pin": PIN})[1]["ok"] is True
    assert http("POST", server.url + "/api/operator", {"pin": "1"})[0] == 403
    assert table.calls == [("pause", {}), ("resume", {}), ("change_game", {"game": "slapstick"}),
                           ("set_hand", {"seat": 1, "cards": 7}), ("correct_card", {"card": "ZZ"})]
    assert not table.runtime.paused


def test_visitors_join_slap_and_press_without_a_pin(table: HandTable, server) -> None:
    assert http("POST", server.url + "/api/join", {"seat": 2}) == (200, {"seat": 2}, http("POST", server.url + "/api/join", {"seat": 2})[2])
    status, reply, _ = http("POST", server.url + "/api/join")
    assert (status, reply) == (200, {"seat": 0})
    assert http("POST", server.url + "/api/slap", {"seat": 2})[0] == 200
    assert http("POST", server.url + "/api/press", {"seat": 2})[0] == 200
    assert http("GET", server.url + "/api/highscores")[1] == {"highscores": [{"name": "Ada", "ms": 187}]}
    assert http("POST", server.url + "/api/slap", b"[1, 2]")[0] == 400
    assert [c for c in table.calls if c[0] != "highscores"] == [
        ("join", {"seat": 2}), ("join", {"seat": 2}), ("join", {}), ("visitor_slap", {"seat": 2}),
        ("visitor_press", {"seat": 2})]


def test_visitor_play_says_so_when_the_table_has_none(table: HandTable, server) -> None:
    table.feed.actions.clear()
    assert http("POST", server.url + "/api/join", {})[0] == 503
    assert http("GET", server.url + "/api/highscores")[1] == {"highscores": []}


def test_review_lists_games_disputes_and_draws_evidence_sheets(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    table = HandTable(journal)
    table.snap_round()
    srv = serve(table.feed, port=0, journal_path=str(tmp_path / "journal.db")).start()
    try:
        status, games, _ = http("GET", srv.url + "/api/review/games")
        assert status == 200 and games["journal"] is True
        assert [(g["game"], g["game_id"], g["players"]) for g in games["games"]] == [(1, "irish-snap", 3)]
        status, rulings, _ = http("GET", srv.url + "/api/review/games/1")
        slap = [r for r in rulings["rulings"] if r["slap_decision"]]
        assert status == 200 and [(r["kind"], r["seat"], r["margin_us"]) for r in slap] == [("picks_up", 1, 10_500)]
        status, png, headers = http("GET", f"{srv.url}/api/review/sheet/1/{slap[0]['id']}.png")
        assert status == 200 and headers["content-type"] == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n"
        assert http("GET", srv.url + "/api/review/sheet/1/999.png")[0] == 404
        assert http("GET", srv.url + "/api/review/games/7")[0] == 404
        status, page, _ = http("GET", srv.url + "/review")
        assert status == 200 and b"/static/review.js" in page
    finally:
        srv.stop()
        journal.close()


def test_review_without_a_journal_says_so(server) -> None:
    assert http("GET", server.url + "/api/review/games")[1] == {"journal": False, "games": []}
    assert http("GET", server.url + "/api/review/sheet/1/1.png")[0] == 404


def test_page_and_assets_are_served_locally_with_no_cdn(server) -> None:
    status, page, _ = http("GET", server.url + "/")
    assert status == 200 and b"/static/app.js" in page and b"/static/style.css" in page
    for asset in ("app.js", "style.css", "review.js", "review.css"):
        assert http("GET", f"{server.url}/static/{asset}")[0] == 200
    for path in STATIC.iterdir():
        urls = set(re.findall(r"https?://[^\s\"'`)]+", path.read_text()))
        assert urls <= {"http://www.w3.org/2000/svg"}, (path.name, urls)


def test_bound_to_localhost_unless_asked(table: HandTable) -> None:
    srv = serve(table.feed)
    assert (srv.host, srv.port, srv.url) == ("127.0.0.1", 8080, "http://127.0.0.1:8080")
    started = serve(table.feed, port=0).start()
    try:
        assert started.port != 0 and started.url == f"http://127.0.0.1:{started.port}"
    finally:
        started.stop()
    started.stop()                                   # stopping twice is harmless

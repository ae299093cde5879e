"""The dashboard over real HTTP: pushed rulings with timelines, frames, operator PINs, visitor play, review."""
from __future__ import annotations

import re
import socket
import time
from pathlib import Path

import pytest

from referee.journal import Journal
from referee.web import serve
from referee.web.app import STATIC

from referee.core.events import MS

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
    assert frame["overlay"] == {**OVERLAY, "seq": 1}      # numbered: /frame.jpg?seq=1 serves this very frame
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
    pin = {"X-Operator-Pin": PIN}
    try:
        status, reply, _ = http("POST", server.url + "/api/operator/pause", {}, pin)
        assert (status, reply["ok"]) == (200, True)
        assert sse.wait_for(lambda k, d: k == "state" and d["state"]["paused"] == ["operator"])
    finally:
        sse.close()
    assert http("POST", server.url + "/api/operator/resume", {"pin": PIN})[0] == 403     # the header only
    assert http("POST", server.url + "/api/operator/resume", None, pin)[0] == 200
    assert http("POST", server.url + "/api/operator/change_game", {"game": "slapstick"}, pin)[0] == 200
    assert http("POST", server.url + "/api/operator/set_hand", {"seat": 1, "cards": 7}, pin)[0] == 200
    for body in ({"seat": 1, "cards": 7, "junk": 1}, {"card": "ZZ"}):
        action = "set_hand" if "seat" in body else "correct_card"
        status, reply, _ = http("POST", f"{server.url}/api/operator/{action}", body, pin)
        assert status == 400 and reply["error"].startswith("bad request"), reply
    assert http("POST", server.url + "/api/operator/explode", {}, pin)[0] == 404
    assert http("POST", server.url + "/api/operator", None, pin)[1]["ok"] is True
    assert http("POST", server.url + "/api/operator", None, {"X-Operator-Pin": "1"})[0] == 403
    assert table.calls == [("pause", {}), ("resume", {}), ("change_game", {"game": "slapstick"}),
                           ("set_hand", {"seat": 1, "cards": 7})]
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


# ---- hostile clients over a real socket (the protocol layer: limits, timeouts, headers) --------------------
def raw(server, data: bytes, *, then: bytes = b"", wait_s: float = 5.0) -> bytes:
    """Send `data` (and later `then`) on one connection; everything the server says until it closes or goes quiet."""
    host, port = server.url.rsplit("/", 1)[-1].split(":")
    with socket.create_connection((host, int(port)), timeout=wait_s) as sock:
        sock.sendall(data)
        if then:
            sock.sendall(then)
        reply = b""
        try:
            while chunk := sock.recv(65536):
                reply += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    return reply


def status_of(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/1.1 ") else 0


def test_a_huge_body_is_refused_before_it_is_read(table: HandTable, server) -> None:
    start = time.monotonic()
    reply = raw(server, b"POST /api/join HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        b"Content-Length: 500000000\r\n\r\n" + b'{"seat": 1, "x": "' + b"y" * 60_000)
    assert status_of(reply) == 413 and b"too large" in reply and time.monotonic() - start < 3
    chunked = b"".join(b"400\r\n" + b"x" * 1024 + b"\r\n" for _ in range(8)) + b"0\r\n\r\n"
    reply = raw(server, b"POST /api/slap HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked)
    assert status_of(reply) == 413
    assert table.calls == []


def test_the_pin_is_checked_before_the_body_arrives(table: HandTable, server) -> None:
    start = time.monotonic()
    reply = raw(server, b"POST /api/operator/pause HTTP/1.1\r\nHost: x\r\nX-Operator-Pin: 1111\r\n"
                        b"Content-Length: 100\r\n\r\n", wait_s=3)
    assert status_of(reply) == 403 and time.monotonic() - start < 2.5
    reply = raw(server, "POST /api/operator/pause HTTP/1.1\r\nHost: x\r\nX-Operator-Pin: ²⁴⁶⁸\r\n"
                        "Content-Length: 0\r\n\r\n".encode("utf-8"))
    assert status_of(reply) == 403 and b"Traceback" not in reply
    assert table.calls == [] and not table.runtime.paused


def test_slow_clients_are_cut_off(table: HandTable, server, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.web import guard, protocol
    monkeypatch.setattr(protocol.TimedH11Protocol, "header_timeout_s", 0.5)
    monkeypatch.setattr(guard, "BODY_TIMEOUT_S", 0.5)
    start = time.monotonic()
    assert raw(server, b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ") == b""         # the head never finished
    assert time.monotonic() - start < 3
    reply = raw(server, b"POST /api/join HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n{\"seat\"")
    assert status_of(reply) == 408 and table.calls == []
    reply = raw(server, b"GET /api/review/games/" + b"9" * 300_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status_of(reply) == 400                                              # a head over 16 KB


def test_wrong_pins_lock_the_operator_panel_and_say_so(table: HandTable, server) -> None:
    now = [1000.0]
    server.app.state.pins.clock = lambda: now[0]
    sse = SSEReader(server.url)
    try:
        sse.wait_for(lambda k, d: k == "state")
        for _ in range(5):
            assert http("POST", server.url + "/api/operator/pause", None, {"X-Operator-Pin": "0000"})[0] == 403
        status, reply, headers = http("POST", server.url + "/api/operator/pause", None, {"X-Operator-Pin": PIN})
        assert status == 429 and "locked for 30 s" in reply["error"] and headers["retry-after"] == "30"
        shown = sse.wait_for(lambda k, d: k == "state" and "operator_lockout" in d["state"])
        assert "locked for 30 s after 5 wrong PINs" in shown["state"]["operator_lockout"]
    finally:
        sse.close()
    now[0] += 31
    assert http("POST", server.url + "/api/operator/pause", None, {"X-Operator-Pin": PIN})[0] == 200
    assert table.calls == [("pause", {})]


def test_the_network_is_locked_out_but_this_screen_is_not() -> None:
    from referee.web.guard import HTTPProblem, PinGuard
    now = [0.0]
    said: list[str] = []
    guard = PinGuard(lambda: PIN, clock=lambda: now[0], on_lockout=lambda m, s: said.append(m))
    for i in range(20):                                   # a guess from each of 20 machines
        with pytest.raises(HTTPProblem):
            guard.check(f"192.0.2.{i}", f"{i:04d}")
    with pytest.raises(HTTPProblem) as locked:
        guard.check("198.51.100.1", PIN)
    assert locked.value.status == 429 and "to the network" in said[-1]
    guard.check("127.0.0.1", PIN)                         # the kiosk's own screen still works
    now[0] += 301
    guard.check("198.51.100.1", PIN)


def test_operator_values_are_bounded_by_the_game(table: HandTable, server) -> None:
    pin = {"X-Operator-Pin": PIN}
    url = server.url + "/api/operator/set_hand"
    for body in ({"seat": 1, "cards": 1_000_000_000}, {"seat": 1, "cards": 10}, {"seat": 3, "cards": 1},
                 {"seat": True, "cards": 1}, {"seat": 1, "cards": 2.0}, {"seat": 1, "cards": -1}):
        status, reply, _ = http("POST", url, body, pin)
        assert status == 400 and reply["error"].startswith("bad request"), (body, reply)
    for raw_body in (b'{"seat": Infinity, "cards": 1}', b'{"seat": 1, "cards": 1e999}',
                     b'{"seat": 1, "cards": ' + b"9" * 5000 + b"}", b'{"seat": ' + b"[" * 2000 + b"]" * 2000 + b"}"):
        assert http("POST", url, raw_body, pin)[0] in (400, 413)               # 413: over the 4 KB limit anyway
    assert http("POST", url, {"seat": 1, "cards": 9}, pin)[0] == 200          # all nine cards in play
    assert table.calls == [("set_hand", {"seat": 1, "cards": 9})]


def test_binding_beyond_localhost_needs_a_pin() -> None:
    from referee.web import InsecureBind
    bare = HandTable()
    bare.feed.operator_pin = ""
    for host in ("0.0.0.0", "::", "192.0.2.1"):
        with pytest.raises(InsecureBind, match="operator PIN"):
            serve(bare.feed, host=host, port=0).start()
    serve(bare.feed, host="127.0.0.1", port=0, state_watch_s=None).start().stop()
    guarded = serve(HandTable().feed, host="0.0.0.0", port=0, state_watch_s=None).start()
    guarded.stop()


def test_the_review_from_the_network_needs_the_pin(tmp_path: Path) -> None:
    import asyncio

    from referee.web.app import create_app
    from tests.web.test_fuzz_http import Req, call
    journal = Journal(tmp_path / "journal.db")
    table = HandTable(journal)
    table.snap_round()
    app = create_app(table.feed, journal_path=str(tmp_path / "journal.db"))

    def get(path: str, client: str, pin: str | None) -> int:
        return asyncio.run(call(app, Req("GET", path, b"", pin, client)))[0]
    for path in ("/api/review/games", "/api/review/games/1", "/api/review/sheet/1/1.png"):
        assert get(path, "192.0.2.7", None) == 403
        assert get(path, "192.0.2.7", "0000") == 403
    assert get("/api/review/games", "192.0.2.7", PIN) == 200
    assert get("/api/review/games/1", "127.0.0.1", None) == 200
    for huge in ("99999999999999999999", "9" * 5000, "0", "-1"):
        assert get(f"/api/review/games/{huge}", "127.0.0.1", None) == 404
    journal.close()

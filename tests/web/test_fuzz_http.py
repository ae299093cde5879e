"""The dashboard against malformed and hostile requests: every one is a 4xx with one line, and changes nothing.

`hostile_requests()` (a Hypothesis strategy, also the input of bench/bench_fuzz.py's campaign) mixes real
routes and junk ones, right, wrong, non-ASCII and over-long PINs, loopback and network clients, and bodies
that are valid, wrongly typed, out of the game's bounds, non-finite, deeply nested, not JSON or too large.
Requests go straight into the ASGI app (fast); test_http.py covers what only a real socket shows.
"""
from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.web.app import create_app
from tests.web.helpers import PIN, HandTable

ROUTES = ["/api/join", "/api/slap", "/api/press", "/api/operator", "/api/operator/pause", "/api/operator/resume",
          "/api/operator/set_hand", "/api/operator/change_game", "/api/operator/correct_card",
          "/api/operator/new_game", "/api/operator/../pause", "/api/state", "/api/highscores", "/frame.jpg",
          "/api/review/games", "/api/review/games/1", "/api/review/games/99999999999999999999999",
          "/api/review/games/" + "9" * 5000, "/api/review/sheet/1/-1.png", "/static/../app.py", "/nope"]
FIELDS = ["seat", "cards", "game", "card", "pin", "name", "junk"]
values = st.one_of(st.none(), st.booleans(), st.integers(-5, 60), st.integers(), st.floats(allow_nan=False),
                   st.sampled_from([10**9, 2**63, "2", "JS", "ZZ", "slapstick", "x" * 5000, "é", [], {}, [1, [2]]]),
                   st.text(max_size=10))
pins = st.one_of(st.just(PIN), st.none(), st.sampled_from(["0000", "2467", "", "24689", "２４６８", "2468\x00",
                                                           "ö" * 3, "9" * 100]))
GETS = ("/api/state", "/api/highscores", "/frame.jpg", "/api/review", "/static", "/nope")


@dataclass
class Req:
    method: str
    path: str
    body: bytes
    pin: str | None
    client: str
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)


VALID: dict[str, st.SearchStrategy[Any]] = {          # values each field takes at the 3-seat, 9-card table
    "seat": st.integers(0, 2), "cards": st.integers(0, 9), "card": st.sampled_from(["JS", "10H", "th", "JOKER"]),
    "game": st.sampled_from(["slapjack", "irish-snap", "slapstick"])}
ROUTE_FIELDS = {"join": ["seat"], "slap": ["seat"], "press": ["seat"], "set_hand": ["seat", "cards"],
                "change_game": ["game"], "correct_card": ["card"]}


def _fields(draw: st.DrawFn, path: str) -> dict[str, Any]:
    """The route's own fields, valid, then (mostly) one of them broken, dropped, or a stranger added."""
    names = ROUTE_FIELDS.get(path.rsplit("/", 1)[-1], [])
    body = {name: draw(VALID[name]) for name in names}
    how = draw(st.sampled_from(["valid", "value", "value", "drop", "extra"]))
    if how == "value" and names:
        body[draw(st.sampled_from(names))] = draw(values)
    elif how == "drop" and names:
        body.pop(draw(st.sampled_from(names)))
    elif how == "extra":
        body[draw(st.sampled_from(FIELDS))] = draw(values)
    return body


def _raw_body(draw: st.DrawFn, path: str) -> bytes:
    kind = draw(st.sampled_from(["fields"] * 10 + ["text", "json", "big", "deep", "const", "empty"]))
    if kind == "fields":
        return json.dumps(_fields(draw, path)).encode()
    if kind == "text":
        return draw(st.binary(max_size=64))
    if kind == "json":
        return json.dumps(draw(st.one_of(values, st.lists(values, max_size=3)))).encode()
    if kind == "big":
        return b'{"seat": 1, "pad": "' + b"x" * draw(st.integers(4000, 300_000)) + b'"}'
    if kind == "deep":
        depth = draw(st.integers(10, 3000))
        return b'{"seat": ' + b"[" * depth + b"]" * depth + b"}"
    if kind == "const":
        return b'{"seat": ' + draw(st.sampled_from([b"Infinity", b"NaN", b"-Infinity", b"1e999", b"9" * 5000])) + b"}"
    return b""


@st.composite
def hostile_requests(draw: st.DrawFn) -> Req:
    path = draw(st.sampled_from(ROUTES))
    natural = "GET" if path.startswith(GETS) else "POST"
    method = draw(st.sampled_from([natural] * 8 + ["GET", "PUT", "DELETE"]))
    body = _raw_body(draw, path)
    headers = [(b"content-type", draw(st.sampled_from([b"application/json", b"text/plain", b"\xff\xfe"])))]
    length = draw(st.sampled_from(["true"] * 12 + ["none", "huge", "junk"]))
    if length != "none":
        headers.append((b"content-length", {"true": str(len(body)).encode(), "huge": b"500000000",
                                            "junk": b"12abc"}[length]))
    return Req(method, path, body, draw(pins),
               draw(st.sampled_from(["127.0.0.1", "127.0.0.1", "192.0.2.7", "198.51.100.3"])), headers)


async def call(app: Any, req: Req) -> tuple[int, dict[bytes, bytes], bytes]:
    """One request through the ASGI app: (status, headers, body). An exception escaping the app is a 500."""
    headers = list(req.headers)
    if req.pin is not None:
        headers.append((b"x-operator-pin", req.pin.encode("utf-8")))
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": req.method,
             "scheme": "http", "path": req.path, "raw_path": req.path.encode(), "query_string": b"",
             "headers": headers, "client": (req.client, 40000), "server": ("127.0.0.1", 8080), "root_path": ""}
    chunks = [req.body[i:i + 65536] for i in range(0, len(req.body), 65536)] or [b""]
    sent = {"n": 0}

    async def receive() -> dict[str, Any]:
        if sent["n"] < len(chunks):
            sent["n"] += 1
            return {"type": "http.request", "body": chunks[sent["n"] - 1], "more_body": sent["n"] < len(chunks)}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    out: dict[str, Any] = {"status": 500, "headers": {}, "body": b""}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            out["status"], out["headers"] = message["status"], dict(message.get("headers", []))
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    try:
        await asyncio.wait_for(app(scope, receive, send), timeout=20)
    except Exception:                # the app let an error out: a 500 with a traceback in the log
        out["status"] = 500
    return out["status"], out["headers"], out["body"]


def contract(status: int, headers: dict[bytes, bytes], body: bytes) -> str | None:
    """What breaks the contract in one response (None: it holds)."""
    if status >= 500 and status != 503:
        return f"{status}: {body[:200]!r}"
    if status >= 400:
        if headers.get(b"content-type", b"").startswith(b"application/json"):
            message = json.loads(body).get("error", "")
        else:
            message = body.decode("utf-8", "replace")       # Starlette's own 404 / 405: "Not Found"
        if not message or "\n" in message.strip() or len(message) > 300 or "Traceback" in message:
            return f"{status} without one short line: {body[:200]!r}"
    return None


def table_state(table: HandTable) -> tuple[Any, ...]:
    return (json.dumps(table.feed.snapshot(), sort_keys=True, default=str), tuple(map(str, table.calls)),
            tuple(sorted(table.runtime.paused)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(reqs=st.lists(hostile_requests(), min_size=1, max_size=8))
def test_hostile_requests_are_4xx_with_one_line_and_change_nothing(reqs: list[Req]) -> None:
    table = HandTable()
    app = create_app(table.feed)

    async def run() -> None:
        for req in reqs:
            before = table_state(table)
            status, headers, body = await call(app, req)
            assert contract(status, headers, body) is None, (req, contract(status, headers, body))
            if status >= 400:
                assert table_state(table)[1:] == before[1:], req     # no handler ran, nothing paused
    asyncio.run(run())

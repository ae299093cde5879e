"""Helpers for the dashboard tests: a hand-driven table, an SSE reader on a raw socket, plain HTTP calls."""
from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable
from urllib.parse import urlsplit

from referee.core.cards import Card
from referee.core.events import MS, CardSeen, Slap
from referee.table.live import TableFeed
from referee.table.runtime import TableRuntime
from referee.core.session import Session

PIN = "2468"
BASE = 10_000 * MS


class HandTable:
    """Irish Snap, 3 seats, known hands; the test steps the runtime on its own virtual clock.
    Seat 1 lays 5C ("Ace"), seat 2 lays 2D ("Two"): a snap that all three must slap."""

    def __init__(self, journal: Any = None) -> None:
        hands = [[Card.parse(c) for c in h] for h in (["9H", "JS", "3D"], ["5C", "9D", "4S"], ["2D", "QS", "8C"])]
        recorder = None
        if journal is not None:
            from referee.journal import Recorder
            recorder = Recorder.start(journal, "irish-snap", 3, hands=hands, holdback_ns=100 * MS, strict=False)
            self.session = recorder.session
        else:
            self.session = Session.create("irish-snap", 3, hands=hands, holdback_ns=100 * MS, strict=False)
        self.now = BASE
        self.runtime = TableRuntime(self.session, clock=lambda: self.now, recorder=recorder)
        self.feed = TableFeed(self.runtime, operator_pin=PIN)
        self.calls: list[tuple[str, dict[str, Any]]] = []
        for name in ("pause", "resume", "new_game", "change_game", "correct_card", "set_hand",
                     "join", "visitor_slap", "visitor_press", "highscores"):
            self.feed.actions[name] = self._fake(name)

    def _fake(self, name: str) -> Callable[..., Any]:
        def handler(**params: Any) -> Any:
            self.calls.append((name, params))
            if name == "pause":
                self.runtime.paused.add("operator")
            elif name == "resume":
                self.runtime.paused.clear()
            elif name == "join":
                return params.get("seat", 0)
            elif name == "correct_card":
                return str(Card.parse(params["card"]))      # CardError (a ValueError) -> 400
            elif name == "highscores":
                return [{"name": "Ada", "ms": 187}]
            return None
        return handler

    def step(self, event: Any, at_ns: int) -> None:
        self.now = max(self.now, at_ns)
        self.runtime.step(event, "test", at_ns, now_ns=at_ns)

    def card(self, name: str, at_ns: int) -> None:
        self.step(CardSeen(Card.parse(name), at_ns), at_ns)

    def snap_round(self) -> None:
        """5C, 2D (a snap on "Two"), slaps by seats 2, 0, 1 at +180 ms, +240.5 ms, +251 ms; then time passes."""
        self.card("5C", BASE)
        snap = BASE + 500 * MS
        self.card("2D", snap)
        for seat, us in ((2, 180_000), (0, 240_500), (1, 251_000)):
            self.step(Slap(seat, snap + us * 1000), snap + us * 1000)
        self.step(None, snap + 3000 * MS)


class SSEReader:
    """Reads /api/events over a raw HTTP/1.0 socket (no chunking) in a thread; `events` are (type, data)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=5)
        self.sock.sendall(f"GET /api/events HTTP/1.0\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n\r\n".encode())
        self.sock.settimeout(0.2)
        self.head = b""
        self.events: list[tuple[str, dict[str, Any]]] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        buf = b""
        while not self._stop.is_set():
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            if not self.head:
                if b"\r\n\r\n" not in buf:
                    continue
                self.head, buf = buf.split(b"\r\n\r\n", 1)
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                kind, data = "message", None
                for line in block.decode().splitlines():
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        data = json.loads(line[6:])
                if data is not None:
                    with self._lock:
                        self.events.append((kind, data))

    def wait_for(self, predicate: Callable[[str, dict[str, Any]], bool], timeout_s: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                for kind, data in self.events:
                    if predicate(kind, data):
                        return data
            time.sleep(0.02)
        raise AssertionError(f"no such event in {[k for k, _ in self.events]}")

    def close(self) -> None:
        self._stop.set()
        self.sock.close()
        self._thread.join(2)


def http(method: str, url: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
    """(status, parsed JSON or raw bytes, headers) for one request; HTTP errors are returned, not raised."""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            status, raw, hdrs = res.status, res.read(), dict(res.headers)
    except urllib.error.HTTPError as exc:
        status, raw, hdrs = exc.code, exc.read(), dict(exc.headers)
    if hdrs.get("content-type", "").startswith("application/json"):
        return status, json.loads(raw), hdrs
    return status, raw, hdrs

"""The dashboard's HTTP server: uvicorn running the Starlette app on a background thread.

Why Starlette + uvicorn: both are small, pure-Python, actively maintained and
ASGI-native, so server-sent events are a plain async generator and the whole
stack installs from wheels on a Pi 4 (aarch64) without a compiler; no template
engine, ORM or JS bundler comes with them. uvicorn runs here with its pure-Python
h11 protocol and the stdlib asyncio loop (no uvloop/httptools needed).

Bound beyond this machine (any address but loopback), the dashboard refuses to
start without an operator PIN: the PIN guards the operator's actions and the
journal's review. Connections are capped, request heads and bodies timed.
"""
from __future__ import annotations

import logging
import socket
import threading
import time
from typing import Any

import uvicorn

from ..table.live import TableFeed
from .app import create_app
from .guard import is_loopback
from .protocol import TimedH11Protocol
from .watch import StateWatcher

log = logging.getLogger(__name__)

MIN_NETWORK_PIN = 4          # characters of PIN required before serving beyond localhost
MAX_CONNECTIONS = 64         # beyond this uvicorn answers 503 (each viewer's stream holds one)
KEEP_ALIVE_S = 5


class InsecureBind(PermissionError):
    """Binding beyond localhost without an operator PIN: `str()` is the one line to show."""


def check_bind(host: str, pin: str) -> None:
    """InsecureBind unless `host` is loopback or the operator PIN is set (at least MIN_NETWORK_PIN long)."""
    if is_loopback(host) or len(pin or "") >= MIN_NETWORK_PIN:
        return
    where = "every network interface" if host in ("", "0.0.0.0", "::") else host
    raise InsecureBind(f"the dashboard would be open to {where}: set an operator PIN of at least "
                       f"{MIN_NETWORK_PIN} characters ([kiosk] operator_pin) or bind to 127.0.0.1")


class WebServer:
    """One dashboard server. `start()` binds and serves in a daemon thread; `stop()` ends it."""

    def __init__(self, feed: TableFeed, *, host: str = "127.0.0.1", port: int = 8080,
                 journal_path: str | None = None, state_watch_s: float | None = 0.2) -> None:
        self.feed = feed
        self.host = host
        self.port = port
        self.journal_path = journal_path
        self.app = create_app(feed, journal_path=journal_path)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self._watcher = StateWatcher(feed, state_watch_s) if state_watch_s else None

    @property
    def url(self) -> str:
        host = self.host
        if host in ("0.0.0.0", ""):
            host = "127.0.0.1"
        elif host == "::":
            host = "::1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    def start(self, timeout_s: float = 10.0) -> "WebServer":
        """Bind (port 0: any free port, then `.port` says which) and serve in the background.
        InsecureBind (a PermissionError) when bound beyond localhost without an operator PIN."""
        check_bind(self.host, self.feed.operator_pin)
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        sock.set_inheritable(True)
        self.port = sock.getsockname()[1]
        self._socket = sock
        config = uvicorn.Config(self.app, log_level="warning", access_log=False, lifespan="off",
                                timeout_graceful_shutdown=1, loop="asyncio", http=TimedH11Protocol, ws="none",
                                limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=KEEP_ALIVE_S,
                                h11_max_incomplete_event_size=16 * 1024)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]},
                                        name="dashboard", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the dashboard did not start on {self.host}:{self.port}")
            time.sleep(0.01)
        if self._watcher is not None:
            self._watcher.start()
        log.info("dashboard on %s", self.url)
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        """Close the event streams, then the server (idempotent)."""
        self.app.state.closing.set()
        if self._watcher is not None:
            self._watcher.stop()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout_s)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def __enter__(self) -> "WebServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def serve(feed: TableFeed, *, host: str = "127.0.0.1", port: int = 8080,
          journal_path: str | None = None, state_watch_s: float | None = 0.2) -> WebServer:
    """The dashboard for `feed` (not started: call `.start()`). Bound to localhost unless `host` says
    otherwise; `journal_path` enables the review page's games, disputes and evidence sheets;
    `state_watch_s` (None: off) pushes state changes that come without a ruling (cards laid)."""
    return WebServer(feed, host=host, port=port, journal_path=journal_path, state_watch_s=state_watch_s)

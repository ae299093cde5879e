"""What stands between the network and the table: bounded request bodies, strict JSON, and the operator PIN.

Every request body is read through `read_json`: its declared length is checked
before a byte is read, the stream is cut at `MAX_BODY` and at a deadline (a
slow client gets 408), and only a flat JSON object of finite values passes.
`PinGuard` checks the PIN (from the `X-Operator-Pin` header, before any body is
read) and rate-limits wrong guesses: a client that misses `TRIES` times is
locked out for a while, doubling each time; many misses from the network lock
every non-local client out. Loopback clients (the kiosk's own screen) are
never caught by a lockout someone else caused.
"""
from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import math
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from starlette.requests import ClientDisconnect, Request

MAX_BODY = 4096              # bytes: every API body is a handful of fields
BODY_TIMEOUT_S = 10.0        # the whole body must arrive within this
MAX_PIN = 32
TRIES = 5                    # wrong PINs before a client is locked out
LOCK_S = 30.0                # first lockout; doubles each time, up to MAX_LOCK_S
MAX_LOCK_S = 900.0
NETWORK_TRIES = 20           # wrong PINs from all non-local clients within NETWORK_WINDOW_S ...
NETWORK_WINDOW_S = 600.0
NETWORK_LOCK_S = 300.0       # ... lock every non-local client out this long
MAX_CLIENTS = 1024           # clients remembered (oldest forgotten first)


class HTTPProblem(Exception):
    """A request refused with `status` and a one-line `message` (sent as {"error": message})."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


def is_loopback(host: str | None) -> bool:
    """True for 127.0.0.0/8, ::1 and "localhost"; False for anything else (a wildcard or a name included)."""
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def client_host(request: Request) -> str | None:
    return request.client.host if request.client is not None else None


# ---- bodies ----------------------------------------------------------------------------------------------
def _refuse_constant(name: str) -> Any:
    raise HTTPProblem(400, f"bad request: {name} is not a number JSON allows")


async def read_body(request: Request, limit: int = MAX_BODY, timeout_s: float | None = None) -> bytes:
    """The raw body, at most `limit` bytes, arriving within `timeout_s` (default BODY_TIMEOUT_S);
    413 / 408 / 400 otherwise."""
    timeout_s = BODY_TIMEOUT_S if timeout_s is None else timeout_s
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit() or len(declared) > 18:
            raise HTTPProblem(400, "bad request: Content-Length is not a number")
        if int(declared) > limit:
            raise HTTPProblem(413, f"request body too large (at most {limit} bytes)", {"Connection": "close"})
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + timeout_s
    stream = request.stream().__aiter__()
    while True:
        left = deadline - time.monotonic()
        try:
            chunk = await asyncio.wait_for(stream.__anext__(), timeout=max(left, 0.001))
        except StopAsyncIteration:
            break
        except ClientDisconnect:
            raise HTTPProblem(400, "bad request: the client went away mid-body") from None
        except asyncio.TimeoutError:
            raise HTTPProblem(408, f"the request body did not arrive within {timeout_s:g} s",
                              {"Connection": "close"}) from None
        size += len(chunk)
        if size > limit:
            raise HTTPProblem(413, f"request body too large (at most {limit} bytes)", {"Connection": "close"})
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    """The body as a flat JSON object of strings, whole numbers, finite numbers, booleans and nulls
    ({} when empty); HTTPProblem 400 for anything else."""
    raw = await read_body(request, limit)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise HTTPProblem(400, "bad request: the body is not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise HTTPProblem(400, f"bad request: not JSON ({exc.msg} at {exc.pos})") from None
    except RecursionError:
        raise HTTPProblem(400, "bad request: JSON nested too deeply") from None
    except ValueError:               # an integer literal over 4,300 digits
        raise HTTPProblem(400, "bad request: a number is too long") from None
    if not isinstance(body, dict):
        raise HTTPProblem(400, "bad request: the body must be a JSON object")
    for key, value in body.items():
        if isinstance(value, (dict, list)):
            raise HTTPProblem(400, f"bad request: {show(key)} must be a plain value, not a list or object")
        if isinstance(value, float) and not math.isfinite(value):
            raise HTTPProblem(400, f"bad request: {show(key)} must be a finite number")
    return body


def show(value: Any, limit: int = 32) -> str:
    """A value for an error message, cut short."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= limit else text[:limit] + "…"


# ---- the PIN ---------------------------------------------------------------------------------------------
@dataclass
class _Client:
    misses: int = 0
    lockouts: int = 0
    locked_until: float = 0.0


class PinGuard:
    """Checks operator PINs and rate-limits wrong ones. `on_lockout(message, seconds)` is told when a
    lockout starts (the dashboard shows it on the operator panel)."""

    def __init__(self, pin: Callable[[], str], *, clock: Callable[[], float] = time.monotonic,
                 on_lockout: Callable[[str, float], None] | None = None) -> None:
        self._pin = pin
        self.clock = clock
        self.on_lockout = on_lockout
        self._clients: OrderedDict[str, _Client] = OrderedDict()
        self._network_misses: list[float] = []
        self._network_locked_until = 0.0

    def locked_for(self, host: str | None) -> float:
        """Seconds this client must still wait (0: it may try)."""
        now = self.clock()
        until = self._client(host).locked_until
        if not is_loopback(host):
            until = max(until, self._network_locked_until)
        return max(0.0, until - now)

    def check(self, host: str | None, given: str | None) -> None:
        """Pass silently with the right PIN; HTTPProblem 429 while locked out, 403 for a wrong or missing PIN."""
        wait = self.locked_for(host)
        if wait > 0:
            raise HTTPProblem(429, f"too many wrong PINs: operator actions locked for {math.ceil(wait)} s",
                              {"Retry-After": str(math.ceil(wait))})
        pin = self._pin()
        ok = (bool(pin) and given is not None and len(given) <= MAX_PIN and given.isascii() and given.isprintable()
              and hmac.compare_digest(given.encode(), pin.encode()))
        if ok:
            self._client(host).misses = 0
            return
        if given:                    # no PIN at all is not a guess
            self._miss(host)
        raise HTTPProblem(403, "operator PIN required")

    def _client(self, host: str | None) -> _Client:
        key = host or "?"
        client = self._clients.get(key)
        if client is None:
            client = self._clients[key] = _Client()
            while len(self._clients) > MAX_CLIENTS:
                self._clients.popitem(last=False)
        return client

    def _miss(self, host: str | None) -> None:
        now = self.clock()
        client = self._client(host)
        client.misses += 1
        if client.misses >= TRIES:
            seconds = min(MAX_LOCK_S, LOCK_S * 2 ** client.lockouts)
            client.lockouts += 1
            client.misses = 0
            client.locked_until = now + seconds
            self._announce(f"Operator panel locked for {seconds:.0f} s after {TRIES} wrong PINs"
                           f"{'' if is_loopback(host) else f' from {host}'}", seconds)
        if not is_loopback(host):
            self._network_misses = [t for t in self._network_misses if now - t < NETWORK_WINDOW_S] + [now]
            if len(self._network_misses) >= NETWORK_TRIES:
                self._network_misses.clear()
                self._network_locked_until = now + NETWORK_LOCK_S
                self._announce(f"Operator panel locked for {NETWORK_LOCK_S:.0f} s to the network after "
                               f"{NETWORK_TRIES} wrong PINs (this screen still works)", NETWORK_LOCK_S)

    def _announce(self, message: str, seconds: float) -> None:
        if self.on_lockout is not None:
            self.on_lockout(message, seconds)

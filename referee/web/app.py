"""The dashboard's routes: the page, pushed updates, the camera frame, visitor play and operator actions.

Viewers need nothing to watch. Visitor play ("Beat the bots") calls the demo
table's handlers in `feed.actions` directly (no PIN: anyone at the stand may
play). Operator actions need the PIN in the `X-Operator-Pin` header, checked
(and rate-limited, see guard.PinGuard) before the body is read. Every body is
bounded and every parameter checked against the live table (params.py) before
a handler sees it: a malformed request is a 4xx with one line, and changes
nothing.
"""
from __future__ import annotations

import asyncio
import json
import logging
import threading
from pathlib import Path
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from ..table.live import OperatorDenied, TableFeed
from . import review_api
from .guard import MAX_BODY, HTTPProblem, PinGuard, client_host, read_json
from .params import OPERATOR, VISITOR, check_params
from .stream import event_stream

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
NO_STORE = {"Cache-Control": "no-store"}
MAX_STREAMS = 16       # viewers at once; each holds a worker thread while it waits for updates
HANDLER_ERRORS = (ValueError, KeyError, TypeError, LookupError, ArithmeticError)


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers={**NO_STORE, **(headers or {})})


def problem(exc: HTTPProblem) -> JSONResponse:
    """A refused request; the connection closes after it (its body may be unread, and h11 cannot skip it)."""
    return error(exc.status, exc.message, {"Connection": "close", **exc.headers})


def bounds_snapshot(feed: TableFeed) -> dict[str, Any]:
    """The table state to bound parameters by. The snapshot is read without the runtime's lock and may catch
    the game mid-update: tried again, and as a last resort {} (params.py's generous defaults; the table's own
    handlers still check)."""
    for _ in range(3):
        try:
            return feed.snapshot()
        except (IndexError, KeyError, RuntimeError, ValueError, TypeError):
            continue
    return {}


async def call_handler(handler: Callable[..., Any], params: dict[str, Any]) -> Any:
    """Run a table handler off the event loop (handlers may take the runtime's lock or the journal)."""
    return await run_in_threadpool(lambda: handler(**params))


class BodyLimit:
    """Refuses (413) any request whose declared body exceeds `limit`, before routing or reading it."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for name, value in scope.get("headers", []):
                if name == b"content-length" and (not value.isdigit() or len(value) > 18 or int(value) > self.limit):
                    status = 413 if value.isdigit() else 400
                    message = f"request body too large (at most {self.limit} bytes)" if status == 413 else \
                        "bad request: Content-Length is not a number"
                    await error(status, message, {"Connection": "close"})(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def create_app(feed: TableFeed, *, journal_path: str | None = None,
               clock: Callable[[], float] | None = None) -> Starlette:
    """The ASGI app for one table. `app.state.closing` ends every event stream (server stop);
    `app.state.pins` is the PinGuard (its lockouts show on the operator panel)."""
    closing = threading.Event()
    streams = {"open": 0}
    loop_holder: dict[str, asyncio.AbstractEventLoop] = {}

    def lockout(message: str, seconds: float) -> None:
        """Show a lockout on every operator panel, and clear it when it ends."""
        log.warning("dashboard: %s", message)
        feed.extra["operator_lockout"] = message
        publish_state()
        loop = loop_holder.get("loop")
        if loop is not None:
            loop.call_later(seconds, unlock, message)

    def unlock(message: str) -> None:
        if feed.extra.get("operator_lockout") == message:      # not a later lockout's message
            feed.extra.pop("operator_lockout", None)
            publish_state()

    def publish_state() -> None:
        state = bounds_snapshot(feed)             # mid-update: the state watcher sends it a moment later
        if state:
            feed.publish({"type": "state", "state": state})

    pins = PinGuard(lambda: feed.operator_pin, on_lockout=lockout, **({"clock": clock} if clock else {}))

    def check_pin(request: Request) -> None:
        loop_holder.setdefault("loop", asyncio.get_running_loop())
        pins.check(client_host(request), request.headers.get("x-operator-pin"))

    async def page(_: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers=NO_STORE)

    async def favicon(_: Request) -> Response:
        """No icon: said plainly (204), so a browser's automatic request is no 404 in anyone's log."""
        return Response(status_code=204, headers={"Cache-Control": "max-age=86400"})

    async def review_page(_: Request) -> Response:
        return FileResponse(STATIC / "review.html", headers=NO_STORE)

    async def state(_: Request) -> Response:
        return JSONResponse({"state": feed.snapshot(), "recent": list(feed.recent),
                             "overlay": feed.frame_overlay}, headers=NO_STORE)

    async def events(_: Request) -> Response:
        if streams["open"] >= MAX_STREAMS:
            return error(503, "too many viewers")
        streams["open"] += 1

        async def counted() -> Any:
            try:
                async for chunk in event_stream(feed, closing):
                    yield chunk
            finally:
                streams["open"] -= 1
        return StreamingResponse(counted(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def frame(request: Request) -> Response:
        """The newest camera frame, or `?seq=N`: frame N (the one whose reading the page was told), 404 once
        it is no longer kept."""
        wanted = request.query_params.get("seq", "")
        seq = int(wanted) if wanted.isdigit() and len(wanted) < 12 else None
        jpeg = feed.frame(seq)
        if seq is not None and not jpeg:
            return error(404, f"frame {seq} is no longer kept")
        if not jpeg:
            return Response(status_code=204, headers=NO_STORE)
        return Response(jpeg, media_type="image/jpeg", headers=NO_STORE)

    async def run_handler(handler: Callable[..., Any], params: dict[str, Any]) -> Any:
        try:
            return await call_handler(handler, params)
        except OperatorDenied:
            raise HTTPProblem(403, "operator PIN required") from None
        except HANDLER_ERRORS as exc:
            raise HTTPProblem(400, " ".join(str(exc).split())[:200] or type(exc).__name__) from None

    async def visitor(request: Request) -> Response:
        key, spec = VISITOR[request.url.path.rsplit("/", 1)[-1]]
        handler = feed.actions.get(key)
        if handler is None:
            return error(503, "visitor play is not available at this table")
        try:
            params = check_params(spec, await read_json(request), bounds_snapshot(feed))
            result = await run_handler(handler, params)
        except HTTPProblem as exc:
            return problem(exc)
        if key == "join" and not isinstance(result, dict):
            return JSONResponse({"seat": _jsonable(result)}, headers=NO_STORE)
        return JSONResponse(_jsonable(result) if isinstance(result, dict) else {"ok": True, "result": _jsonable(result)},
                            headers=NO_STORE)

    async def highscores(_: Request) -> Response:
        handler = feed.actions.get("highscores")
        if handler is None:
            return JSONResponse({"highscores": []}, headers=NO_STORE)
        result = await call_handler(handler, {})
        if isinstance(result, dict):
            return JSONResponse(_jsonable(result), headers=NO_STORE)
        return JSONResponse({"highscores": _jsonable(list(result or []))}, headers=NO_STORE)

    async def operator(request: Request) -> Response:
        action = request.path_params["action"]
        try:
            check_pin(request)               # refuse before reading the body or saying anything about the action
            if action not in OPERATOR or action not in feed.actions:
                return error(404, f"unknown operator action {action[:40]!r}")
            params = check_params(OPERATOR[action], await read_json(request), bounds_snapshot(feed))
            result = await run_handler(lambda **p: feed.operate(action, feed.operator_pin, **p), params)
        except HTTPProblem as exc:
            return problem(exc)
        return JSONResponse({"ok": True, "action": action, "result": _jsonable(result)}, headers=NO_STORE)

    async def operator_check(request: Request) -> Response:
        """Lets the page unlock its operator panel without doing anything."""
        try:
            check_pin(request)
        except HTTPProblem as exc:
            return problem(exc)
        return JSONResponse({"ok": True, "actions": sorted(a for a in OPERATOR if a in feed.actions)},
                            headers=NO_STORE)

    routes = [
        Route("/", page),
        Route("/review", review_page),
        Route("/favicon.ico", favicon),
        Route("/api/state", state),
        Route("/api/events", events),
        Route("/frame.jpg", frame),
        Route("/api/highscores", highscores),
        Route("/api/operator", operator_check, methods=["POST"]),
        Route("/api/operator/{action}", operator, methods=["POST"]),
        *[Route(f"/api/{name}", visitor, methods=["POST"]) for name in VISITOR],
        *review_api.routes(journal_path, check_pin),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(BodyLimit)
    app.state.closing = closing
    app.state.feed = feed
    app.state.pins = pins
    return app

"""The dashboard's routes: the page, pushed updates, the camera frame, visitor play and operator actions.

Viewers need nothing to watch. Visitor play ("Beat the bots") calls the demo
table's handlers in `feed.actions` directly (no PIN: anyone at the stand may
play). Operator actions go through `feed.operate`, which checks the PIN; the
PIN comes in the `X-Operator-Pin` header or a JSON `pin` field.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..live import OperatorDenied, TableFeed
from . import review_api
from .stream import event_stream

STATIC = Path(__file__).parent / "static"
OPERATOR_ACTIONS: dict[str, frozenset[str]] = {     # action -> the parameters it takes
    "pause": frozenset(), "resume": frozenset(), "new_game": frozenset(),
    "change_game": frozenset({"game"}), "correct_card": frozenset({"card"}),
    "set_hand": frozenset({"seat", "cards"}),
}
VISITOR_ACTIONS: dict[str, tuple[str, frozenset[str]]] = {   # route -> (feed.actions key, parameters)
    "join": ("join", frozenset({"seat"})),
    "slap": ("visitor_slap", frozenset({"seat"})),
    "press": ("visitor_press", frozenset({"seat"})),
}
NO_STORE = {"Cache-Control": "no-store"}
MAX_STREAMS = 16       # viewers at once; each holds a worker thread while it waits for updates


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=NO_STORE)


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object ({} when empty); ValueError when it is not an object."""
    raw = await request.body()
    if not raw.strip():
        return {}
    body = json.loads(raw)
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    return body


async def call_handler(handler: Callable[..., Any], params: dict[str, Any]) -> Any:
    """Run a table handler off the event loop (handlers may take the runtime's lock or the journal)."""
    return await run_in_threadpool(lambda: handler(**params))


def create_app(feed: TableFeed, *, journal_path: str | None = None) -> Starlette:
    """The ASGI app for one table. `app.state.closing` ends every event stream (server stop)."""
    closing = threading.Event()
    streams = {"open": 0}

    async def page(_: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers=NO_STORE)

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

    async def frame(_: Request) -> Response:
        jpeg = feed.frame_jpeg
        if not jpeg:
            return Response(status_code=204, headers=NO_STORE)
        return Response(jpeg, media_type="image/jpeg", headers=NO_STORE)

    async def visitor(request: Request) -> Response:
        key, allowed = VISITOR_ACTIONS[request.url.path.rsplit("/", 1)[-1]]
        handler = feed.actions.get(key)
        if handler is None:
            return error(503, "visitor play is not available at this table")
        try:
            body = await json_body(request)
        except ValueError as exc:
            return error(400, f"bad request: {exc}")
        params = {k: v for k, v in body.items() if k in allowed and v is not None}
        try:
            result = await call_handler(handler, params)
        except (ValueError, KeyError, TypeError, LookupError) as exc:
            return error(400, str(exc))
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
            body = await json_body(request)
        except ValueError as exc:
            return error(400, f"bad request: {exc}")
        pin = request.headers.get("x-operator-pin") or str(body.get("pin") or "")
        try:
            feed.check_pin(pin)               # refuse before saying anything about the action
        except OperatorDenied:
            return error(403, "operator PIN required")
        if action not in OPERATOR_ACTIONS or action not in feed.actions:
            return error(404, f"unknown operator action {action!r}")
        params = {k: v for k, v in body.items() if k in OPERATOR_ACTIONS[action]}
        try:
            result = await run_in_threadpool(lambda: feed.operate(action, pin, **params))
        except OperatorDenied:
            return error(403, "operator PIN required")
        except (ValueError, KeyError, TypeError, LookupError) as exc:
            return error(400, str(exc))
        return JSONResponse({"ok": True, "action": action, "result": _jsonable(result)}, headers=NO_STORE)

    async def operator_check(request: Request) -> Response:
        """Lets the page unlock its operator panel without doing anything."""
        try:
            body = await json_body(request)
        except ValueError as exc:
            return error(400, f"bad request: {exc}")
        try:
            feed.check_pin(request.headers.get("x-operator-pin") or str(body.get("pin") or ""))
        except OperatorDenied:
            return error(403, "operator PIN required")
        return JSONResponse({"ok": True, "actions": sorted(a for a in OPERATOR_ACTIONS if a in feed.actions)},
                            headers=NO_STORE)

    routes = [
        Route("/", page),
        Route("/review", review_page),
        Route("/api/state", state),
        Route("/api/events", events),
        Route("/frame.jpg", frame),
        Route("/api/highscores", highscores),
        Route("/api/operator", operator_check, methods=["POST"]),
        Route("/api/operator/{action}", operator, methods=["POST"]),
        *[Route(f"/api/{name}", visitor, methods=["POST"]) for name in VISITOR_ACTIONS],
        *review_api.routes(journal_path),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.closing = closing
    app.state.feed = feed
    return app

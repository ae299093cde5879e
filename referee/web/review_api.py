"""The review page's data: the journal's games, their disputes, and evidence sheets as PNG.

Sheets are drawn by `referee.journal.evidence_sheet` (the same renderer as `referee review`),
on demand, in a worker thread; each request opens the journal read-only
(SQLite WAL lets it read while the table writes), checking only its header.
The review is for this machine's screen: a client from the network needs the
operator PIN (the `X-Operator-Pin` header), like the operator's actions.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..journal import Journal, JournalError, UnknownRecord
from ..commands.journal import ruling_row
from ..core.rulings import seat_name
from .guard import HTTPProblem, client_host, is_loopback

NO_STORE = {"Cache-Control": "no-store"}
MAX_ID = 2**63 - 1           # SQLite's largest integer: a larger number names no row


def _number(text: str) -> int | None:
    """A game or ruling number from the path, or None when it cannot name a row."""
    if not text.isdigit() or len(text) > 19:
        return None
    value = int(text)
    return value if 0 < value <= MAX_ID else None


def _title(game_id: str) -> str:
    """A game's name as people read it ("Irish Snap"), its id if it is not known here."""
    from ..core.rules import GAMES
    return GAMES[game_id].title if game_id in GAMES else game_id


def _open(path: str) -> Journal:
    return Journal(path, create=False, check="header")


def list_games(path: str) -> list[dict[str, Any]]:
    """Newest first: one row per journaled game (as `referee disputes --json`)."""
    rows = []
    with _open(path) as journal:
        for g in journal.games():
            events, _ = journal.counts(g.id)
            rulings = sum(1 for rec in journal.rulings(g.id) if rec.ruling.kind != "ignored")   # as the detail counts
            result = g.result or {}
            winner = result.get("winner")
            rows.append({"game": g.id, "started_at": g.started_at, "game_id": g.game_id, "title": _title(g.game_id),
                         "players": g.players, "events": events, "rulings": rulings, "ended": g.ended, "winner": winner,
                         "winner_name": seat_name(winner, g.names) if winner is not None else None})
    return rows[::-1]


def list_rulings(path: str, game_no: int) -> dict[str, Any]:
    """One game's rulings ('ignored' left out), slap decisions marked, times from the first event."""
    with _open(path) as journal:
        game = journal.game(game_no)
        events = journal.events(game_no)
        origin = min((e.event.t_ns for e in events), default=0)
        rows = [ruling_row(rec, origin, game.names) for rec in journal.rulings(game_no)
                if rec.ruling.kind != "ignored"]
    return {"game": {"game": game.id, "game_id": game.game_id, "title": _title(game.game_id), "players": game.players,
                     "started_at": game.started_at, "ended": game.ended},
            "rulings": rows}


def sheet_png(path: str, game_no: int, ruling_id: int) -> bytes:
    """The evidence sheet of one ruling, drawn by `referee.journal.evidence_sheet` (needs OpenCV)."""
    from ..journal import evidence_sheet as review   # cv2 is imported only when a sheet is drawn

    with _open(path) as journal:
        facts = review.gather(journal, game_no, ruling_id)
    with tempfile.TemporaryDirectory(prefix="sheet-") as tmp:
        return review.write_sheet(facts, Path(tmp) / "sheet.png").read_bytes()


def routes(journal_path: str | None, check_pin: Callable[[Request], None]) -> list[Route]:
    """/api/review/games, /api/review/games/{game}, /api/review/sheet/{game}/{ruling}.png.
    `check_pin(request)` raises HTTPProblem for a wrong PIN; it is asked only of non-local clients."""

    def refuse(request: Request) -> Response | None:
        if not is_loopback(client_host(request)):
            try:
                check_pin(request)
            except HTTPProblem as exc:
                return JSONResponse({"error": exc.message}, status_code=exc.status, headers={**NO_STORE, **exc.headers})
        if not journal_path:
            return JSONResponse({"error": "no journal at this table", "journal": False}, status_code=404,
                                headers=NO_STORE)
        return None

    def fail(status: int, message: str) -> Response:
        return JSONResponse({"error": message}, status_code=status, headers=NO_STORE)

    async def games(request: Request) -> Response:
        if not journal_path and is_loopback(client_host(request)):
            return JSONResponse({"journal": False, "games": []}, headers=NO_STORE)
        if (resp := refuse(request)) is not None:
            return resp
        try:
            rows = await run_in_threadpool(list_games, str(journal_path))
        except JournalError as exc:
            return JSONResponse({"journal": False, "games": [], "error": str(exc)}, headers=NO_STORE)
        return JSONResponse({"journal": True, "games": rows}, headers=NO_STORE)

    async def game(request: Request) -> Response:
        if (resp := refuse(request)) is not None:
            return resp
        number = _number(request.path_params["game"])
        if number is None:
            return fail(404, f"no game {request.path_params['game'][:24]!r} in the journal")
        try:
            data = await run_in_threadpool(list_rulings, str(journal_path), number)
        except UnknownRecord as exc:
            return fail(404, str(exc))
        except JournalError as exc:              # damaged or unreadable: not the client's doing
            return fail(503, str(exc))
        return JSONResponse(data, headers=NO_STORE)

    async def sheet(request: Request) -> Response:
        if (resp := refuse(request)) is not None:
            return resp
        game_no, ruling_no = _number(request.path_params["game"]), _number(request.path_params["ruling"])
        if game_no is None or ruling_no is None:
            return fail(404, "no such game or ruling in the journal")
        try:
            png = await run_in_threadpool(sheet_png, str(journal_path), game_no, ruling_no)
        except UnknownRecord as exc:
            return fail(404, str(exc))
        except ImportError as exc:
            return fail(501, f"cannot draw sheets here: {exc}")
        except (JournalError, OSError) as exc:
            return fail(503, str(exc))
        return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=60"})

    return [Route("/api/review/games", games),
            Route("/api/review/games/{game}", game),
            Route("/api/review/sheet/{game}/{ruling}.png", sheet)]

"""The review page's data: the journal's games, their disputes, and evidence sheets as PNG.

Sheets are drawn by `referee.review` (the same renderer as `referee review`),
on demand, in a worker thread; each request opens the journal read-side
(SQLite WAL lets it read while the table writes).
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..journal import Journal, JournalError, UnknownRecord
from ..journal_cmds import ruling_row
from ..rulings import seat_name

NO_STORE = {"Cache-Control": "no-store"}


def list_games(path: str) -> list[dict[str, Any]]:
    """Newest first: one row per journaled game (as `referee disputes --json`)."""
    rows = []
    with Journal(path, create=False) as journal:
        for g in journal.games():
            events, rulings = journal.counts(g.id)
            result = g.result or {}
            winner = result.get("winner")
            rows.append({"game": g.id, "started_at": g.started_at, "game_id": g.game_id, "players": g.players,
                         "events": events, "rulings": rulings, "ended": g.ended, "winner": winner,
                         "winner_name": seat_name(winner, g.names) if winner is not None else None})
    return rows[::-1]


def list_rulings(path: str, game_no: int) -> dict[str, Any]:
    """One game's rulings ('ignored' left out), slap decisions marked, times from the first event."""
    with Journal(path, create=False) as journal:
        game = journal.game(game_no)
        events = journal.events(game_no)
        origin = min((e.event.t_ns for e in events), default=0)
        rows = [ruling_row(rec, origin, game.names) for rec in journal.rulings(game_no)
                if rec.ruling.kind != "ignored"]
    return {"game": {"game": game.id, "game_id": game.game_id, "players": game.players,
                     "started_at": game.started_at, "ended": game.ended},
            "rulings": rows}


def sheet_png(path: str, game_no: int, ruling_id: int) -> bytes:
    """The evidence sheet of one ruling, drawn by `referee.review` (needs OpenCV)."""
    from .. import review   # cv2 is imported only when a sheet is drawn

    with Journal(path, create=False) as journal:
        facts = review.gather(journal, game_no, ruling_id)
    with tempfile.TemporaryDirectory(prefix="sheet-") as tmp:
        return review.write_sheet(facts, Path(tmp) / "sheet.png").read_bytes()


def routes(journal_path: str | None) -> list[Route]:
    """/api/review/games, /api/review/games/{game}, /api/review/sheet/{game}/{ruling}.png."""

    def missing() -> Response | None:
        if not journal_path:
            return JSONResponse({"error": "no journal at this table", "journal": False}, status_code=404,
                                headers=NO_STORE)
        return None

    async def games(_: Request) -> Response:
        if not journal_path:
            return JSONResponse({"journal": False, "games": []}, headers=NO_STORE)
        try:
            rows = await run_in_threadpool(list_games, journal_path)
        except JournalError as exc:
            return JSONResponse({"journal": False, "games": [], "error": str(exc)}, headers=NO_STORE)
        return JSONResponse({"journal": True, "games": rows}, headers=NO_STORE)

    async def game(request: Request) -> Response:
        if (resp := missing()) is not None:
            return resp
        try:
            data = await run_in_threadpool(list_rulings, journal_path, request.path_params["game"])
        except UnknownRecord as exc:
            return JSONResponse({"error": str(exc)}, status_code=404, headers=NO_STORE)
        except JournalError as exc:
            return JSONResponse({"error": str(exc)}, status_code=500, headers=NO_STORE)
        return JSONResponse(data, headers=NO_STORE)

    async def sheet(request: Request) -> Response:
        if (resp := missing()) is not None:
            return resp
        try:
            png = await run_in_threadpool(sheet_png, journal_path, request.path_params["game"],
                                          request.path_params["ruling"])
        except UnknownRecord as exc:
            return JSONResponse({"error": str(exc)}, status_code=404, headers=NO_STORE)
        except ImportError as exc:
            return JSONResponse({"error": f"cannot draw sheets here: {exc}"}, status_code=501, headers=NO_STORE)
        except (JournalError, OSError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=500, headers=NO_STORE)
        return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=60"})

    return [Route("/api/review/games", games),
            Route("/api/review/games/{game:int}", game),
            Route("/api/review/sheet/{game:int}/{ruling:int}.png", sheet)]

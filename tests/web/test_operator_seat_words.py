"""The operator's "Set hand" refused by the table itself (not by the form's bounds) names seats from 1,
and the dashboard passes that refusal on word for word."""
from __future__ import annotations

import pytest

from referee.core.rules.state import TableError
from referee.web import serve

from .helpers import PIN, HandTable, http


def test_the_runtime_refuses_a_seat_counting_from_one() -> None:
    table = HandTable()                                          # 3 seats
    with pytest.raises(TableError, match=r"^no seat 4 at this table: seats 1 to 3$"):
        table.runtime.correct_hand(3, 1)
    with pytest.raises(TableError, match=r"^seat 2 cannot hold -1 cards"):
        table.runtime.correct_hand(1, -1)
    table.runtime.correct_hand(0, 2)                             # seat 1 (index 0) is there
    assert len(table.runtime.game.hands[0]) == 2


def test_the_dashboard_reports_the_tables_own_refusal_from_one(monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.web.app as app
    table = HandTable()
    table.feed.actions["set_hand"] = lambda seat, cards: table.runtime.correct_hand(seat, cards)
    monkeypatch.setattr(app, "bounds_snapshot", lambda feed: {"seats": 12, "cards": 52})   # a stale snapshot
    server = serve(table.feed, port=0, state_watch_s=0.05).start()
    try:
        status, body, _ = http("POST", server.url + "/api/operator/set_hand", {"seat": 8, "cards": 1},
                               {"X-Operator-Pin": PIN})
    finally:
        server.stop()
    assert status == 400 and body["error"] == "no seat 9 at this table: seats 1 to 3", body

"""Fixtures: a hand-driven Irish Snap table behind a TableFeed, and the dashboard serving it on a free port."""
from __future__ import annotations

from typing import Iterator

import pytest

from referee.web import WebServer, serve

from .helpers import HandTable


@pytest.fixture
def table() -> HandTable:
    return HandTable()


@pytest.fixture
def server(table: HandTable) -> Iterator[WebServer]:
    srv = serve(table.feed, port=0, state_watch_s=0.05).start()
    try:
        yield srv
    finally:
        srv.stop()

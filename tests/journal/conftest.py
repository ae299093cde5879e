"""Fixtures: a journal in a temp dir, and one with a whole recorded game."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from referee.journal import Journal, Recorder
from tests.journal.feed import GAME, HOLDBACK_NS, PLAYERS, stream

AMENDED_SEED = 9   # this seed's stream has a win whose margin a late runner-up fills in
CARDS = 50         # long enough for that, short enough that ~270 fsync'd commits stay quick


def play(journal: Journal, seed: int = AMENDED_SEED, finish: bool = True) -> Recorder:
    rec = Recorder.start(journal, GAME, PLAYERS, seed=seed, holdback_ns=HOLDBACK_NS, strict=False,
                         config="[game]\nid = \"slapjack\"\n")
    for step in stream(cards=CARDS, seed=seed):
        if step.event is None:
            rec.advance(step.arrival_ns)
        else:
            rec.submit(step.event, step.source, step.arrival_ns)
    if finish:
        rec.finish()
    return rec


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal(tmp_path / "journal.db") as j:
        yield j


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """(journal path, game number) of one whole recorded game, shared by a module's tests."""
    path = tmp_path_factory.mktemp("journal") / "journal.db"
    with Journal(path) as j:
        rec = play(j)
    return path, rec.game_no

"""The table runtime with a journal that stops taking writes: it says "check the table", judges nothing it
cannot record, and carries on when the operator resumes after making room.
"""
from __future__ import annotations

from pathlib import Path


from referee.core.events import MS, Slap
from referee.commands.journal import replay_from_journal
from tests.journal.test_faults import FlakyJournal
from tests.web.helpers import BASE, HandTable

def test_a_journal_that_cannot_be_written_pauses_the_table_and_nothing_is_announced_unrecorded(tmp_path: Path) -> None:
    journal = FlakyJournal(tmp_path / "j.db")
    table = HandTable(journal)
    shown: list[str] = []
    table.runtime.observers.append(lambda r: shown.append(r.kind))
    table.card("5C", BASE)
    journal.failing = "INSERT INTO"                       # the disk fills before the snap
    snap = BASE + 500 * MS
    table.card("2D", snap)
    for seat, us in ((2, 180_000), (0, 240_500), (1, 251_000)):
        table.step(Slap(seat, snap + us * 1000), snap + us * 1000)
    table.step(None, snap + 3000 * MS)
    said = [u.text for u in table.runtime.announcer.said]  # type: ignore[attr-defined]
    assert table.runtime.paused == {"journal"} and shown == ["check_table"]
    assert said == ["Check the table: the journal cannot be written (disk full)"]      # once, not per event
    assert table.session.rulings == [] and len(table.runtime.recorder.backlog) == 4
    journal.failing = None                                # room again: the operator resumes
    table.runtime.resume()
    table.step(None, snap + 4000 * MS)
    assert not table.runtime.paused and shown == ["check_table", "picks_up"]
    assert len(journal.rulings(1)) == len(table.session.rulings) == 1
    assert replay_from_journal(str(journal.path), 1)["differ"] == []
    journal.close()

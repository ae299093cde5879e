"""Building the table's parts from its config (tabletop/build.py)."""
from __future__ import annotations

from referee.config import TableConfig
from referee.ports import SILENT_KEEP, MemoryAnnouncer
from tabletop.build import build_announcer


def test_a_silent_table_speaks_into_a_bounded_announcer() -> None:
    # a table without a speaker runs for days: what it would have said must not grow without end
    config = TableConfig()
    assert config.audio.backend == "silent"  # the default: a table set up without a speaker
    announcer = build_announcer(config)
    assert isinstance(announcer, MemoryAnnouncer) and announcer.keep == SILENT_KEEP

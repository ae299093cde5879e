"""`referee journal export`: copy every row that can still be read from a damaged journal into a new one.

A damaged page loses the rows on it, not the file: rows are read in id order a
chunk at a time, and where a chunk cannot be read, one id at a time. Each row
must parse as the journal's records do (valid UTF-8, JSON, known event kinds)
and keep its id, so ruling numbers in notes and disputes stay right; rows that
point at a lost game or ruling are dropped with it. The source is opened
read-only and never changed.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import quote

from . import pages as journal_pages
from .health import SQLITE_MAGIC, integrity_report
from .records import (EVENT_COLUMNS, GAME_COLUMNS, RULING_COLUMNS, JournalError, event_row, game_row,
                      ruling_row)
from .store import Journal

CHUNK = 256
GIVE_UP_AFTER = 64           # unreadable chunks in a row past the last known id: the end of the table

TABLES: dict[str, str] = {
    "games": GAME_COLUMNS,
    "events": "game, " + EVENT_COLUMNS,
    "rulings": RULING_COLUMNS,
    "evidence": "id, ruling, kind, t_ns, jpeg",
}


@dataclass
class TableReport:
    saved: int = 0
    from_pages: int = 0      # of those saved, found only by reading the file's pages
    damaged: int = 0         # read, but not a valid row (bad text, bad JSON, unknown kind)
    orphaned: int = 0        # its game or ruling was lost
    unreadable_ids: int = 0  # ids that could not be read at all (may or may not have held a row)


@dataclass
class ExportReport:
    source: Path
    out: Path
    problems: list[str]
    tables: dict[str, TableReport] = field(default_factory=dict)

    def lines(self) -> list[str]:
        head = "sound" if not self.problems else f"damaged ({self.problems[0][:120]})"
        out = [f"{self.source}: {head}; saved to {self.out}:"]
        for name, t in self.tables.items():
            lost = t.damaged + t.orphaned
            extra = f" ({t.from_pages:,} read from the file's pages)" if t.from_pages else ""
            out.append(f"  {name:<9} {t.saved:>8,} saved{extra}, {lost:,} lost")
        return out


def open_source(path: Path) -> sqlite3.Connection:
    """The damaged file, read-only (its WAL included when SQLite can read it, else the main file alone)."""
    if not path.is_file():
        raise JournalError(f"no journal at {path}")
    with open(path, "rb") as f:
        if f.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise JournalError(f"{path} is not an SQLite file: nothing can be read from it")
    base = f"file:{quote(str(path.resolve()))}"
    for query in ("?mode=ro", "?mode=ro&immutable=1"):
        try:
            db = sqlite3.connect(base + query, uri=True, isolation_level=None)
            db.text_factory = bytes                # decode per row: one bad text cell costs one row
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.Error:
            continue
    raise JournalError(f"{path}: SQLite cannot read even its table list; nothing can be saved")


def read_rows(db: sqlite3.Connection, table: str, columns: str, report: TableReport) -> Iterator[tuple[Any, ...]]:
    """Every readable row of `table` in id order, stepping over damaged pages."""
    try:
        top = db.execute(f"SELECT max(id) FROM {table}").fetchone()[0]
    except sqlite3.Error:
        top = None
    after, failures = 0, 0
    while True:
        try:
            rows = db.execute(f"SELECT {columns} FROM {table} WHERE id > ? ORDER BY id LIMIT {CHUNK}",
                              (after,)).fetchall()
        except sqlite3.Error:
            rows = None
        if rows:
            yield from rows
            after, failures = rows[-1][_id_index(columns)], 0
            continue
        if rows is not None and (top is None or after >= top):
            return
        found = list(_one_by_one(db, table, columns, after, report))
        yield from found
        after += CHUNK
        failures = 0 if found else failures + 1
        if (top is not None and after >= top) or (top is None and failures >= GIVE_UP_AFTER):
            return


def _id_index(columns: str) -> int:
    return [c.strip() for c in columns.split(",")].index("id")


def _one_by_one(db: sqlite3.Connection, table: str, columns: str, after: int,
                report: TableReport) -> Iterator[tuple[Any, ...]]:
    for row_id in range(after + 1, after + CHUNK + 1):
        try:
            row = db.execute(f"SELECT {columns} FROM {table} WHERE id = ?", (row_id,)).fetchone()
        except sqlite3.Error:
            report.unreadable_ids += 1
            continue
        if row is not None:
            yield row


def _text(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """bytes cells back to str (strict UTF-8: a flipped byte makes the row damaged), blobs kept as bytes."""
    return tuple(c.decode("utf-8") if isinstance(c, bytes) else c for c in row)


def export(source: str | Path, out: str | Path) -> ExportReport:
    """Save what can be read from `source` into a new journal at `out` (which must not exist): rows SQLite can
    reach, then rows only the file's pages still hold, then everything whose game or ruling was lost goes."""
    src, dst = Path(source), Path(out)
    if dst.exists():
        raise JournalError(f"{dst} already exists; give a new file for the saved journal")
    db = open_source(src)
    try:
        report = ExportReport(src, dst, integrity_report(db))
        Journal(dst, check="header").close()           # a fresh, empty journal with the schema
        target = sqlite3.connect(dst, isolation_level=None)
        try:
            target.execute("BEGIN")
            saved: dict[str, set[int]] = {}
            for table, columns in TABLES.items():
                report.tables[table] = TableReport()
                saved[table] = set()
                for raw in read_rows(db, table, columns, report.tables[table]):
                    _insert(target, table, columns, raw, report.tables[table], saved[table])
            for table, raw in _page_rows(src):
                if raw[_id_index(TABLES[table])] not in saved[table]:
                    if _insert(target, table, TABLES[table], raw, None, saved[table]):
                        report.tables[table].from_pages += 1
                        report.tables[table].saved += 1
            _drop_orphans(target, report)
            target.execute("COMMIT")
        finally:
            target.close()
    finally:
        db.close()
    return report


def _page_rows(path: Path) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """Rows on the file's pages, told apart by shape (the id column of a rowid table is stored as NULL)."""
    for rowid, v in journal_pages.scan(path):
        if not v or v[0] is not None:
            continue
        if len(v) == 15:
            yield "games", (rowid, *v[1:])
        elif len(v) == 12:
            yield "events", (v[1], rowid, *v[2:])
        elif len(v) == 10:
            yield "rulings", (rowid, *v[1:])
        elif len(v) == 5 and isinstance(v[4], bytes):
            yield "evidence", (rowid, *v[1:])


CHECKS: dict[str, Callable[[tuple[Any, ...]], object]] = {
    "games": game_row, "events": lambda r: event_row(r[1:]), "rulings": ruling_row,
    "evidence": lambda r: _evidence_ok(r),
}


def _insert(target: sqlite3.Connection, table: str, columns: str, raw: tuple[Any, ...],
            report: TableReport | None, saved: set[int]) -> bool:
    """Insert one row if it parses as a journal row (counted as damaged in `report` if not)."""
    try:
        row = _text(raw) if table != "evidence" else raw[:2] + _text(raw[2:4]) + raw[4:]
        CHECKS[table](row)
        marks = ", ".join("?" for _ in columns.split(","))
        target.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", row)
    except (UnicodeDecodeError, JournalError, ValueError, TypeError, IndexError, sqlite3.Error):
        if report is not None:
            report.damaged += 1
        return False
    saved.add(row[_id_index(columns)])
    if report is not None:
        report.saved += 1
    return True


def _drop_orphans(target: sqlite3.Connection, report: ExportReport) -> None:
    """Delete rows whose game or ruling was not saved (foreign keys were off while copying)."""
    while True:
        orphans = target.execute("PRAGMA foreign_key_check").fetchall()
        if not orphans:
            return
        for table, rowid, _parent, _fk in orphans:
            target.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
            report.tables[table].orphaned += 1
            report.tables[table].saved -= 1


def _evidence_ok(row: tuple[Any, ...]) -> None:
    if not (isinstance(row[2], str) and isinstance(row[3], int) and isinstance(row[4], bytes)):
        raise TypeError("not an evidence row")

"""Rows read straight from a journal file's pages, for when its b-tree cannot lead to them.

A zeroed interior or root page hides every row below it from SQLite, though
the leaf pages that hold the rows are intact. This reads the file as SQLite's
documented format (https://sqlite.org/fileformat.html): every table-leaf page
not on the freelist, every cell on it, its record (following overflow pages),
decoded into Python values. `journal_salvage` tells which table a record
belongs to by its shape and keeps only rows that parse as journal rows.
"""
from __future__ import annotations

import mmap
import struct
from pathlib import Path
from typing import Any, Iterator

LEAF_TABLE = 0x0D
MAX_OVERFLOW_PAGES = 4096        # one evidence JPEG is ~60 KB; a longer chain is a loop or garbage


def _varint(buf: bytes, at: int) -> tuple[int, int]:
    """(value, next offset) of the SQLite varint at `at`."""
    value = 0
    for i in range(8):
        byte = buf[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | buf[at + 8], at + 9


class PageFile:
    """A database file as pages (1-based), with its page size, usable size and freelist."""

    def __init__(self, data: Any) -> None:
        self.data = data
        if len(self.data) < 100:
            raise ValueError("shorter than an SQLite header")
        size = struct.unpack(">H", self.data[16:18])[0]
        self.page_size = 65536 if size == 1 else size
        if self.page_size < 512 or self.page_size & (self.page_size - 1):
            raise ValueError(f"page size {self.page_size} is not a power of two from 512")
        self.usable = self.page_size - self.data[20]
        self.pages = len(self.data) // self.page_size
        self.free = self._freelist()

    def page(self, n: int) -> bytes:
        return self.data[(n - 1) * self.page_size:n * self.page_size]

    def _freelist(self) -> set[int]:
        """Pages on the freelist (stale rows of pruned games live there): trunk pages and their leaves."""
        free: set[int] = set()
        trunk = struct.unpack(">I", self.data[32:36])[0]
        while 1 < trunk <= self.pages and trunk not in free:
            free.add(trunk)
            page = self.page(trunk)
            count = min(struct.unpack(">I", page[4:8])[0], (self.usable - 8) // 4)
            free.update(struct.unpack(">I", page[8 + 4 * i:12 + 4 * i])[0] for i in range(count))
            trunk = struct.unpack(">I", page[:4])[0]
        return free

    def cells(self) -> Iterator[tuple[int, bytes]]:
        """(rowid, record payload) of every cell on every live table-leaf page; damaged cells skipped."""
        for n in range(1, self.pages + 1):
            if n in self.free:
                continue
            page = self.page(n)
            head = 100 if n == 1 else 0
            if page[head] != LEAF_TABLE:
                continue
            count = struct.unpack(">H", page[head + 3:head + 5])[0]
            for i in range(min(count, (self.usable - head) // 2)):
                try:
                    at = struct.unpack(">H", page[head + 8 + 2 * i:head + 10 + 2 * i])[0]
                    yield self._cell(page, at)
                except (IndexError, ValueError, struct.error):
                    continue

    def _cell(self, page: bytes, at: int) -> tuple[int, bytes]:
        size, at = _varint(page, at)
        rowid, at = _varint(page, at)
        u, x = self.usable, self.usable - 35
        if size <= x:
            local = size
        else:
            m = ((u - 12) * 32 // 255) - 23
            k = m + (size - m) % (u - 4)
            local = k if k <= x else m
        payload = bytearray(page[at:at + local])
        if len(payload) != local:
            raise ValueError("cell runs off its page")
        next_page = struct.unpack(">I", page[at + local:at + local + 4])[0] if size > local else 0
        seen: set[int] = set()
        while len(payload) < size:
            if not 1 < next_page <= self.pages or next_page in seen or len(seen) > MAX_OVERFLOW_PAGES:
                raise ValueError("broken overflow chain")
            seen.add(next_page)
            over = self.page(next_page)
            payload += over[4:min(u, 4 + size - len(payload))]
            next_page = struct.unpack(">I", over[:4])[0]
        return rowid, bytes(payload)


def decode_record(payload: bytes) -> list[Any]:
    """The column values of one record (text as bytes, like a connection with text_factory=bytes)."""
    header, at = _varint(payload, 0)
    types = []
    while at < header:
        t, at = _varint(payload, at)
        types.append(t)
    body = header
    values: list[Any] = []
    sizes = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 8, 8: 0, 9: 0}
    for t in types:
        if t in sizes:
            n = sizes[t]
            raw = payload[body:body + n]
            if len(raw) != n:
                raise ValueError("record runs short")
            if t == 0:
                values.append(None)
            elif t == 7:
                values.append(struct.unpack(">d", raw)[0])
            elif t in (8, 9):
                values.append(t - 8)
            else:
                values.append(int.from_bytes(raw, "big", signed=True))
        elif t >= 12:
            n = (t - 12) // 2
            raw = payload[body:body + n]
            if len(raw) != n:
                raise ValueError("record runs short")
            values.append(bytes(raw))
        else:
            raise ValueError(f"serial type {t} is reserved")
        body += n
    return values


def scan(path: Path) -> Iterator[tuple[int, list[Any]]]:
    """(rowid, column values) of every readable record on the file's live table-leaf pages."""
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            try:
                pages = PageFile(data)
            except (ValueError, struct.error):
                return
            for rowid, payload in pages.cells():
                try:
                    yield rowid, decode_record(payload)
                except (IndexError, ValueError, struct.error):
                    continue
    except (OSError, ValueError):        # unreadable, or empty (mmap of 0 bytes)
        return

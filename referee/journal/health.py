"""Is the journal file sound, and can it be written? Checks made before a game, and the words for a failure.

SQLite reports a full disk as "database or disk is full" only when a write
returns ENOSPC; a failed shared-memory or WAL extension, or a file-size limit
(RLIMIT_FSIZE, EFBIG), comes back as "disk I/O error". So a failed write is
classified here from SQLite's error code *and* the state of the file system
(room left, read-only mount, permissions), and the user is told "disk full"
or "read-only" as such.
"""
from __future__ import annotations

import os
import resource
import sqlite3
from pathlib import Path

from .records import JournalDamaged, JournalError, JournalWriteError

SQLITE_MAGIC = b"SQLite format 3\x00"
DEFAULT_MIN_FREE_MB = 8.0        # room kept free before a game starts (a game is ~0.1 MB, evidence ~1 MB)
FULL_BELOW_BYTES = 1 << 20       # after a failed write, less room than this means the disk is full


def sidecars(path: Path) -> list[Path]:
    """The WAL and shared-memory files SQLite keeps beside a WAL-mode database."""
    return [path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def room_bytes(path: Path) -> int:
    """Bytes the journal can still grow by: free space in its folder for this user, and the
    process's file-size limit (RLIMIT_FSIZE, e.g. systemd's LimitFSIZE) against its largest file."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        st = os.statvfs(folder)
        room = st.f_bavail * st.f_frsize
    except OSError:
        return 0
    soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    if soft != resource.RLIM_INFINITY:
        largest = max([_size(path)] + [_size(p) for p in sidecars(path)])
        room = min(room, max(0, soft - largest))
    return room


def read_only_reason(path: Path) -> str | None:
    """Why this process cannot write the journal's file or folder, or None."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"{folder} is on a read-only file system"
    except OSError as exc:
        return f"{folder}: {exc.strerror}"
    if path.exists() and not os.access(path, os.W_OK):
        return f"{path} is read-only for this user"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} is read-only for this user"
    return None


def classify(exc: sqlite3.Error, path: Path) -> JournalError:
    """The JournalError for a failed write: JournalWriteError("disk full" / "read-only" / "busy" /
    "I/O error"), or JournalDamaged when SQLite found the file corrupt."""
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    detail = f"{exc} [{name}]" if name else str(exc)
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return damaged(path, str(exc))
    if name.startswith("SQLITE_FULL") or room_bytes(path) < FULL_BELOW_BYTES:
        return JournalWriteError(str(path), "disk full", f"{room_bytes(path) // 1024} KB left; {detail}")
    if name.startswith("SQLITE_READONLY"):
        return JournalWriteError(str(path), "read-only", read_only_reason(path) or detail)
    reason = read_only_reason(path)
    if reason is not None:
        return JournalWriteError(str(path), "read-only", reason)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return JournalWriteError(str(path), "busy", f"another process holds the journal: {detail}")
    return JournalWriteError(str(path), "I/O error", detail)


def corrupt(exc: sqlite3.Error) -> bool:
    """SQLite found the file damaged (or a text cell that is not UTF-8: flipped bytes)."""
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    text = str(exc)
    return (name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in text
            or "not a database" in text or "Could not decode" in text)


def damaged(path: Path, problem: str) -> JournalDamaged:
    first = problem.strip().splitlines()
    what = next((line for line in first if not line.startswith("***")), problem)[:160]
    return JournalDamaged(f"{path} is damaged ({what}); `referee journal export {path} --out NEW.db` "
                          f"saves what can still be read")


def check_file(path: Path, *, create: bool) -> bool:
    """Refuse what cannot be a journal before SQLite touches it; True when the file is new (to be created).
    A missing file, or an empty one with no write-ahead log beside it, may become a journal (create only);
    anything else must start with SQLite's header."""
    if path.is_dir():
        raise JournalError(f"{path} is a folder, not a journal file")
    if not path.exists():
        if not create:
            raise JournalError(f"no journal at {path}")
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            raise JournalError(f"cannot create the journal {path}: the folder {folder} does not exist")
        return True
    if not path.is_file():
        raise JournalError(f"{path} is not a regular file (a device or pipe cannot hold a journal)")
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise JournalError(f"cannot read the journal {path}: {exc.strerror}") from None
    if not head:
        wal = sidecars(path)[0]
        if _size(wal) > 0:
            raise damaged(path, f"the file is empty but {wal.name} holds {_size(wal):,} bytes")
        if not create:
            raise JournalError(f"{path} is empty: not a journal yet")
        return True
    if head != SQLITE_MAGIC:
        raise JournalError(f"{path} is not a usable journal (not an SQLite file); refusing to touch it")
    return False


def quick_check(db: sqlite3.Connection, path: Path) -> None:
    """SQLite's quick_check (every page and cell readable, no index cross-check): JournalDamaged if not ok."""
    try:
        rows = db.execute("PRAGMA quick_check(5)").fetchall()
    except sqlite3.DatabaseError as exc:
        if corrupt(exc):
            raise damaged(path, str(exc)) from None
        raise                        # cannot open or lock: the caller says why (read-only, busy)
    problems = [str(r[0]) for r in rows if r and r[0] != "ok"]
    if problems:
        raise damaged(path, "; ".join(problems))


def integrity_report(db: sqlite3.Connection) -> list[str]:
    """SQLite's full integrity_check and foreign-key check, as lines (empty: sound)."""
    try:
        rows = [r[0].decode("utf-8", "replace") if isinstance(r[0], bytes) else str(r[0])
                for r in db.execute("PRAGMA integrity_check(100)").fetchall()]
        problems = [r for r in rows if r != "ok"]
        problems += [f"{r[0]} row {r[1]} refers to a missing {r[2]} row"
                     for r in db.execute("PRAGMA foreign_key_check").fetchall()]
    except sqlite3.DatabaseError as exc:
        problems = [str(exc)]
    return problems


def check_for_table(path: Path, *, deep: bool = True) -> bool:
    """What opening `path` as a table's journal would refuse, found without creating or changing anything
    (`referee run` and `--check`, before the table is built): a folder, a device, not a journal, a missing
    or unwritable folder or file, and (`deep`) a damaged journal, by the quick_check opening would run.
    True when the journal is new (created at the first game); JournalError saying why otherwise."""
    new = check_file(path, create=True)
    reason = read_only_reason(path) or _unwritable(path, new)
    if reason is not None:
        raise JournalError(f"{path} cannot be written: {reason}")
    if deep and not new:
        _quick_check_unchanged(path)
    return new


def _unwritable(path: Path, new: bool) -> str | None:
    """Try what the journal will do (root passes every permission check, /proc takes no files): open the
    file for writing, or make an unnamed file in its folder that vanishes when closed."""
    import tempfile
    try:
        if new:
            with tempfile.TemporaryFile(dir=path.parent if str(path.parent) else "."):
                pass
        else:
            with open(path, "r+b"):
                pass
    except OSError as exc:
        where = f"cannot create a file in {path.parent}" if new else "cannot open it for writing"
        return f"{where} ({exc.strerror or type(exc).__name__})"
    return None


def _quick_check_unchanged(path: Path) -> None:
    """quick_check, read-only. With no write-ahead log beside it (no writer) the file is opened immutable, so
    SQLite leaves no -wal/-shm files behind; with one, it is opened as every reader opens it."""
    from urllib.parse import quote

    from . import Journal
    if sidecars(path)[0].exists():
        Journal(path, create=False).close()
        return
    db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1", uri=True)
    try:
        quick_check(db, path)
    except sqlite3.DatabaseError as exc:
        raise damaged(path, str(exc)) from None
    finally:
        db.close()


def preflight(path: Path, min_free_mb: float = DEFAULT_MIN_FREE_MB) -> None:
    """Before a game: JournalWriteError if the folder is read-only or has less than `min_free_mb` of room."""
    reason = read_only_reason(path)
    if reason is not None:
        raise JournalWriteError(str(path), "read-only", reason)
    room = room_bytes(path)
    if room < min_free_mb * 2**20:
        raise JournalWriteError(str(path), "disk full",
                                f"{room / 2**20:.1f} MB left, a game needs {min_free_mb:g} MB")


__all__ = ["room_bytes", "read_only_reason", "classify", "check_file", "check_for_table", "quick_check",
           "integrity_report",
           "preflight", "damaged", "sidecars", "DEFAULT_MIN_FREE_MB"]

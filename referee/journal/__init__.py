"""The journal: every game, event, ruling and evidence frame, kept in SQLite for disputes and resume.

This module is the journal's one public face; the work is split by job:
`journal_records` (schema, rows, error types), `journal_health` (is the file
sound, is there room, what a failed write means), `journal_store` (the
Journal: checked opening, one fsync'd transaction per record, reads),
`journal_recorder` (live recording, resume, and what happens when the
journal cannot be written) and `journal_salvage` (`referee journal export`).

Durability: WAL with `synchronous=FULL`, each record its own transaction, so
SIGKILL or a power cut loses nothing committed. A journal that cannot be
written raises JournalWriteError ("disk full", "read-only", ...): the runtime
pauses judging and says "check the table: the journal cannot be written".

Only `referee/` journal modules (and `vision/`) import sqlite3; none imports cv2.
"""
from __future__ import annotations

from .health import DEFAULT_MIN_FREE_MB, integrity_report, preflight, room_bytes
from .recorder import (MAX_BACKLOG, NOT_RECORDED, SLAP_KINDS, Recorder, feed, resume, ruling_key,
                       session_for)
from .records import (FED_WAYS, SCHEMA_VERSION, EventRecord, EvidenceRecord, Finish,
                      GameRecord, JournalDamaged, JournalError, JournalWriteError, ResumeMismatch,
                      RulingRecord, Tick, UnknownRecord, normal_fields)
from .store import GameLog, Journal

__all__ = ["Journal", "JournalError", "JournalDamaged", "JournalWriteError", "UnknownRecord", "ResumeMismatch",
           "Recorder", "GameLog", "resume", "feed", "session_for", "ruling_key", "Tick", "Finish", "GameRecord",
           "EventRecord", "RulingRecord", "EvidenceRecord", "SCHEMA_VERSION", "normal_fields", "FED_WAYS",
           "SLAP_KINDS", "MAX_BACKLOG", "NOT_RECORDED", "DEFAULT_MIN_FREE_MB", "preflight",
           "room_bytes", "integrity_report"]

"""OpenClaw's per-agent SQLite session store (2026.8 and later), read only and briefly.

`agents/<id>/agent/openclaw-agent.sqlite` (OPENCLAW-SQLITE.md): `session_nodes` maps a
session key to its record (`entry_json`, read only where `entry_valid = 1`: a row being
rewritten is 0) and its current session id; `transcript_events` holds the transcript,
one JSON event a row ordered by `seq` (0 is the header), either as `event_json` or as
one zstd frame in `event_zstd` (2026.9, schema 23), decoded with the `zstandard` package.

memcli never writes this database, not even a pragma: it connects with `mode=ro`, sets
`query_only`, reads in one short transaction and closes. A write OpenClaw holds does not
stop a read in WAL mode (the reader sees the last commit); where it does (rollback
journal on a network file system, or a commit under way) the read waits up to the busy
timeout, then gives up with LockTimeout (exit 4), nothing written. The columns are
checked before they are queried: 2026.8.1 (schema 19) has no zstd columns.

SQLite itself creates `-wal` and `-shm` beside a WAL database it opens, read-only too,
when they are not there (a live OpenClaw has them open already); when memcli runs as
root, they are given to the database's owner so that OpenClaw can go on using them.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from memcli.errors import DataError, LockTimeout

BUSY_SECONDS = 5.0
KNOWN_SCHEMAS = (19, 23)
MAX_EVENT_BYTES = 64 << 20  # OpenClaw compresses events of 1 KiB to 4 MiB
SQLITE_MAGIC = b"SQLite format 3\x00"
NEEDED = {
    "session_nodes": ("session_key", "current_session_id", "entry_json", "entry_valid"),
    "transcript_events": ("session_id", "seq", "event_json"),
}


@dataclass(frozen=True, slots=True)
class DbSession:
    key: str
    session_id: str
    entry: dict[str, Any]
    events_bytes: int  # the UTF-8 bytes of its events (the size a JSONL transcript would have)
    last_seq: int | None  # its last event; None when it has none


@dataclass(frozen=True, slots=True)
class DbSessions:
    version: int  # PRAGMA user_version: 19 in 2026.8.1, 23 in 2026.9.6
    sessions: tuple[DbSession, ...]
    problems: tuple[str, ...] = ()  # rows left out, named


@dataclass(frozen=True, slots=True)
class Events:
    lines: tuple[str, ...]  # each event's JSON text, in seq order
    last_seq: int | None
    problems: tuple[str, ...] = field(default=())


def is_database(path: Path) -> bool:
    """Whether `path` is an SQLite file (by its first 16 bytes)."""
    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def _uri(path: Path) -> str:
    return f"file:{quote(str(path))}?mode=ro"


@contextlib.contextmanager
def _reading(path: Path, timeout: float) -> Iterator[sqlite3.Connection]:
    """A read-only connection inside one read transaction, closed at the end."""
    name = str(path)
    sidecars = [Path(name + suffix) for suffix in ("-wal", "-shm")]
    missing = [p for p in sidecars if not p.exists()]
    try:
        db = sqlite3.connect(_uri(path), uri=True, timeout=timeout, isolation_level=None)
    except sqlite3.Error as exc:
        raise _error(path, exc, timeout) from None
    try:
        db.execute("PRAGMA query_only = ON")
        db.execute("BEGIN")
        try:
            yield db
        finally:
            with contextlib.suppress(sqlite3.Error):
                db.execute("COMMIT")
    except sqlite3.Error as exc:
        raise _error(path, exc, timeout) from None
    finally:
        db.close()
        _give_to_owner([p for p in missing if p.exists()], path)


def _give_to_owner(created: Sequence[Path], database: Path) -> None:
    """The -wal/-shm files SQLite made for this read, given to the database's owner (when
    memcli runs as root for another user), so that OpenClaw can open them."""
    if not created or os.geteuid() != 0:
        return
    try:
        st = os.stat(database)
    except OSError:
        return
    for path in created:
        with contextlib.suppress(OSError):
            os.chown(path, st.st_uid, st.st_gid, follow_symlinks=False)


def _error(path: Path, exc: sqlite3.Error, timeout: float) -> DataError | LockTimeout:
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return LockTimeout(
            f"{path} is locked by OpenClaw (a write under way) for more than {timeout:g} s; "
            "nothing was read, nothing was written",
            "run again in a moment; memcli never writes OpenClaw's database",
        )
    return DataError(
        f"{path} cannot be read as OpenClaw's session database ({text})",
        "check it with `openclaw doctor --session-sqlite inspect`; memcli never writes it",
    )


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}


def _check_schema(db: sqlite3.Connection, path: Path) -> tuple[int, set[str]]:
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    events: set[str] = set()
    for table, needed in NEEDED.items():
        have = _columns(db, table)
        lacking = [c for c in needed if c not in have]
        if lacking:
            raise DataError(
                f"{path} (schema {version}) has no {table}.{', '.join(lacking)}: not an OpenClaw "
                f"session database memcli knows (it reads schemas {' and '.join(map(str, KNOWN_SCHEMAS))})",
                "update memcli, or check the file with `openclaw doctor --session-sqlite inspect`",
            )
        if table == "transcript_events":
            events = have
    return version, events


def _size_expression(columns: set[str]) -> str:
    text_bytes = "length(CAST(event_json AS BLOB))"
    if "event_utf8_bytes" in columns:
        return f"COALESCE(event_utf8_bytes, {text_bytes}, 0)"
    return f"COALESCE({text_bytes}, 0)"


def read_sessions(path: Path, timeout: float = BUSY_SECONDS, key: str | None = None) -> DbSessions:
    """Every valid session of the database (or the one `key`), newest first, with the size
    and the last seq of its current transcript: numbers only, no event is decoded."""
    problems: list[str] = []
    with _reading(path, timeout) as db:
        version, columns = _check_schema(db, path)
        query = "SELECT session_key, current_session_id, entry_json, entry_valid FROM session_nodes"
        args: tuple[Any, ...] = ()
        if key is not None:
            query += " WHERE session_key = ?"
            args = (key,)
        rows = db.execute(query + " ORDER BY updated_at DESC, session_key", args).fetchall()
        sizes = {
            str(sid): (int(total or 0), last)
            for sid, last, total in db.execute(
                f"SELECT session_id, MAX(seq), SUM({_size_expression(columns)}) FROM transcript_events "
                "GROUP BY session_id"
            )
        }
    sessions: list[DbSession] = []
    for session_key, session_id, entry_json, valid in rows:
        if valid != 1:
            problems.append(
                f"{path.name}: session {session_key!r} is being rewritten by OpenClaw (entry_valid "
                f"{valid}); left for the next run"
            )
            continue
        try:
            entry = json.loads(entry_json)
        except (TypeError, ValueError, RecursionError):
            problems.append(f"{path.name}: session {session_key!r}: its entry_json is not JSON; left out")
            continue
        if not isinstance(entry, dict) or not isinstance(session_id, str):
            problems.append(f"{path.name}: session {session_key!r}: its record is not an object; left out")
            continue
        total, last = sizes.get(session_id, (0, None))
        sessions.append(DbSession(str(session_key), session_id, entry, total, last))
    return DbSessions(version, tuple(sessions), tuple(problems))


def read_events(path: Path, session_id: str, after_seq: int = -1, timeout: float = BUSY_SECONDS) -> Events:
    """The events of a session after `after_seq` (all of them with -1), as JSON texts in
    seq order; an event that cannot be decoded is named in `problems` and left out."""
    with _reading(path, timeout) as db:
        _, columns = _check_schema(db, path)
        zstd = "event_zstd" in columns
        extra = ", event_zstd, event_utf8_bytes" if zstd and "event_utf8_bytes" in columns else ""
        if zstd and not extra:
            extra = ", event_zstd, NULL"
        rows = db.execute(
            f"SELECT seq, event_json{extra} FROM transcript_events "
            "WHERE session_id = ? AND seq > ? ORDER BY seq",
            (session_id, after_seq),
        ).fetchall()
    lines: list[str] = []
    problems: list[str] = []
    last: int | None = None
    for row in rows:
        seq = int(row[0])
        last = seq
        text = row[1]
        if text is None and zstd and row[2] is not None:
            try:
                text = _decompress(bytes(row[2]), row[3])
            except ValueError as exc:
                problems.append(f"{path.name}: session {session_id} event {seq}: {exc}; skipped")
                continue
        if not isinstance(text, str):
            problems.append(f"{path.name}: session {session_id} event {seq} holds no JSON; skipped")
            continue
        lines.append(text)
    return Events(tuple(lines), last, tuple(problems))


def _decompress(frame: bytes, expected: Any) -> str:
    import zstandard  # only when a compressed event is met: start-up stays light

    limit = expected if isinstance(expected, int) and 0 < expected <= MAX_EVENT_BYTES else MAX_EVENT_BYTES
    try:
        data = zstandard.ZstdDecompressor().decompress(frame, max_output_size=limit)
    except zstandard.ZstdError as exc:
        raise ValueError(f"its zstd frame cannot be decoded ({exc})") from None
    if isinstance(expected, int) and len(data) != expected:
        raise ValueError(f"its zstd frame holds {len(data)} bytes, not the {expected} recorded")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("its zstd frame is not UTF-8") from None

"""The full-text index of the workspace's entries (SPEC §10): SQLite FTS5 under .memcli/.

Each entry is stored with its place and its terms (core.recall.index_terms: words, and
CJK characters alone and in pairs), which FTS5's unicode61 tokenizer indexes as they
are. The index follows the files: a file whose size and mtime are unchanged is not read;
one that changed is re-read and, when its hash changed, re-indexed alone. A schema
change rebuilds the index. It is memcli's cache, safe to delete at any time; in a
read-only workspace it lives in memory for the one run.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memcli.core.entries import parse
from memcli.core.recall import fts_query, index_terms
from memcli.core.roles import STATE_DIR, MemoryFile, Role
from memcli.core.scoring import score_text
from memcli.core.similarity import normalise
from memcli.parallel import parallel_map
from memcli.phases import Report, phase, silent
from memcli.workspace.files import (
    adopt_owner_of_database,
    decode,
    display,
    open_as_it_is,
    read_state,
    usable_state_dir,
)
from memcli.workspace.fingerprint import tree_fingerprint
from memcli.workspace.layout import scan

INDEX_NAME = "index.sqlite"
SCHEMA = "8"  # bump when the tables or the terms change: the index is rebuilt
INDEXED_ROLES = frozenset({Role.CORE, Role.DAILY, Role.DAILY_SLUG, Role.OTHER, Role.SUMMARY, Role.ARCHIVE})

_TABLES = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, sha TEXT NOT NULL,
    role TEXT NOT NULL, day TEXT, evergreen INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS entries(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    text TEXT NOT NULL, day TEXT, importance INTEGER, pinned INTEGER NOT NULL, score REAL NOT NULL,
    section TEXT NOT NULL, eid TEXT NOT NULL, flags INTEGER NOT NULL, time TEXT, kind TEXT NOT NULL,
    norm TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_path ON entries(path);
CREATE INDEX IF NOT EXISTS entries_eid ON entries(eid);
CREATE VIRTUAL TABLE IF NOT EXISTS terms USING fts5(words, tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS shown(
    key TEXT PRIMARY KEY, today TEXT NOT NULL, score REAL NOT NULL, tier TEXT NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class Refresh:
    read: int  # files read (their size or mtime changed)
    indexed: tuple[str, ...]  # files (re)indexed: their bytes changed
    removed: tuple[str, ...]  # files gone from the workspace


@dataclass(frozen=True, slots=True)
class Hit:
    id: int
    path: str
    line: int
    end_line: int
    text: str
    day: str | None
    importance: int | None
    pinned: bool
    evergreen: bool
    bm25: float  # lower is better
    score: float = 0.0  # importance 0..10 (the scoring rules, or the entry's marker)
    section: str = ""  # the headings above the entry: "## Projects / 项目 > ### Atlas"
    entry_id: str = ""  # the entry's id (what `list`, `show` and `restore` name it by)
    flags: int = 0  # what scoring found besides the score: NOISE, REMEMBER, ROUTINE
    role: str = ""  # its file's role (core, daily, …)
    time: str | None = None  # its HH:MM, when it has one
    kind: str = "paragraph"  # bullet, task, paragraph, …
    norm: str = ""  # core.similarity.normalise of the text: what ranking compares


# Hit.flags
NOISE, REMEMBER, ROUTINE = 1, 2, 4
# the files whose days count as mentions of a text (SPEC §3: "mentioned on other days")
MENTION_ROLES = ("daily", "daily-with-slug", "other", "archive")


@dataclass(frozen=True, slots=True)
class Seen:
    """On how many distinct days a text is written in dated notes, and the last of them."""

    days: int
    last: str | None


class Index:
    def __init__(self, root: Path, max_bytes: int, progress: Report = silent) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self.progress = progress
        self.path = root / STATE_DIR / INDEX_NAME
        self.db = self._open()

    def _open(self) -> sqlite3.Connection:
        try:
            if usable_state_dir(self.root, create=True) is None:
                raise PermissionError(self.path)  # read-only (even for root) or .memcli/ links out
            db = sqlite3.connect(self.path)
            db.execute("PRAGMA journal_mode=WAL")
            adopt_owner_of_database(self.path)
        except (OSError, sqlite3.Error):
            db = sqlite3.connect(":memory:")  # a read-only workspace: an index for this run
        try:
            version = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.Error:
            version = None
        if version is None or version[0] != SCHEMA:
            for table in ("shown", "terms", "entries", "files", "meta"):
                db.execute(f"DROP TABLE IF EXISTS {table}")
            db.executescript(_TABLES)
            db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA,))
            db.commit()
        return db

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def refresh(self) -> Refresh:
        """Bring the index up to the files as they are now. When no Markdown file was added,
        removed or changed in size or mtime since the last refresh (one stat per file),
        nothing else is done."""
        fingerprint = tree_fingerprint(self.root, self.max_bytes)
        stored = self.db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        if stored is not None and stored[0] == fingerprint:
            return Refresh(0, (), ())
        refreshed = self._refresh()
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
        return refreshed

    def _refresh(self) -> Refresh:
        layout = scan(self.root)
        wanted = {f.rel: f for f in layout.files if f.role in INDEXED_ROLES}
        known = {
            row[0]: (row[1], row[2], row[3])
            for row in self.db.execute("SELECT path, mtime_ns, size, sha FROM files")
        }
        read = 0
        changed: list[tuple[MemoryFile, os.stat_result, str, str]] = []
        with self.db:
            for rel in sorted(known.keys() - wanted.keys()):
                self._forget(rel)
            with phase(self.progress, "reading notes", len(wanted)) as step:
                for n, (rel, file) in enumerate(sorted(wanted.items()), 1):
                    step(n, len(wanted))
                    try:
                        st = os.stat(self.root / rel)
                    except FileNotFoundError:
                        continue
                    old = known.get(rel)
                    if old is not None and old[0] == st.st_mtime_ns and old[1] == st.st_size:
                        continue
                    read += 1
                    state = read_state(self.root / rel, self.root, self.max_bytes)
                    sha = hashlib.sha256(state.data).hexdigest()
                    if old is not None and old[2] == sha:
                        self.db.execute(
                            "UPDATE files SET mtime_ns = ?, size = ? WHERE path = ?",
                            (st.st_mtime_ns, st.st_size, rel),
                        )
                        continue
                    changed.append((file, st, sha, decode(state.data, display(self.root / rel, self.root))))
            with phase(self.progress, "indexing", len(changed)) as step:
                rows = parallel_map(
                    entry_rows,
                    [(f.rel, f.date.isoformat() if f.date else None, text) for f, _, _, text in changed],
                    PARALLEL_FILES,
                )
                for n, ((file, st, sha, _), entries) in enumerate(zip(changed, rows, strict=True), 1):
                    self._forget(file.rel)
                    self._add(file, st, sha, entries)
                    step(n, len(changed))
        return Refresh(read, tuple(f.rel for f, *_ in changed), tuple(sorted(known.keys() - wanted.keys())))

    def _forget(self, rel: str) -> None:
        ids = [row[0] for row in self.db.execute("SELECT id FROM entries WHERE path = ?", (rel,))]
        self.db.executemany("DELETE FROM terms WHERE rowid = ?", ((i,) for i in ids))
        self.db.execute("DELETE FROM entries WHERE path = ?", (rel,))
        self.db.execute("DELETE FROM files WHERE path = ?", (rel,))

    def _add(self, file: MemoryFile, st: os.stat_result, sha: str, rows: list[Row]) -> None:
        day = file.date.isoformat() if file.date else None
        self.db.execute(
            "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
            (file.rel, st.st_mtime_ns, st.st_size, sha, file.role.value, day, int(file.evergreen)),
        )
        first = int(self.db.execute("SELECT coalesce(max(id), 0) + 1 FROM entries").fetchone()[0])
        self.db.executemany(
            "INSERT INTO entries(id, path, line, end_line, text, day, importance, pinned, score, section,"
            " eid, flags, time, kind, norm) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ((first + n, file.rel, *row[:-1]) for n, row in enumerate(rows)),
        )
        self.db.executemany(
            "INSERT INTO terms(rowid, words) VALUES (?, ?)",
            ((first + n, row[-1]) for n, row in enumerate(rows)),
        )

    def search(self, query: str, limit: int = 200) -> list[Hit]:
        """Entries holding every term of the query, best bm25 first."""
        match = fts_query(query)
        if match is None:
            return []
        rows = self.db.execute(
            """
            SELECT e.id, e.path, e.line, e.end_line, e.text, e.day, e.importance, e.pinned, f.evergreen,
                   bm25(terms), e.score, e.section, e.eid, e.flags, f.role, e.time, e.kind, e.norm
            FROM terms JOIN entries e ON e.id = terms.rowid JOIN files f ON f.path = e.path
            WHERE terms MATCH ? ORDER BY bm25(terms) LIMIT ?
            """,
            (match, limit),
        )
        return [_hit(r) for r in rows]

    def entries(self, where: str = "1", args: tuple[object, ...] = ()) -> list[Hit]:
        """Entries matching an SQL condition on `e` (entries) and `f` (files), in file order."""
        rows = self.db.execute(
            "SELECT e.id, e.path, e.line, e.end_line, e.text, e.day, e.importance, e.pinned, f.evergreen,"
            " 0.0, e.score, e.section, e.eid, e.flags, f.role, e.time, e.kind, e.norm"
            " FROM entries e JOIN files f ON f.path = e.path"
            f" WHERE {where} ORDER BY e.path, e.line",
            args,
        )
        return [_hit(r) for r in rows]

    def seen(self, entry_ids: Iterable[str]) -> dict[str, Seen]:
        """For each entry id, the distinct days its text is written on in dated notes (the
        daily notes, other notes and the archive; not MEMORY.md or summaries) and the last."""
        wanted = sorted(set(entry_ids))
        found: dict[str, Seen] = {}
        roles = ",".join("?" * len(MENTION_ROLES))
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            rows = self.db.execute(
                "SELECT e.eid, count(DISTINCT e.day), max(e.day) FROM entries e"
                " JOIN files f ON f.path = e.path"
                f" WHERE f.role IN ({roles}) AND e.day IS NOT NULL AND e.eid IN ({','.join('?' * len(part))})"
                " GROUP BY e.eid",
                (*MENTION_ROLES, *part),
            )
            found.update({str(eid): Seen(int(days), str(last) if last else None) for eid, days, last in rows})
        return {eid: found.get(eid, Seen(0, None)) for eid in wanted}

    def remember(self, policy: str, shown: Iterable[tuple[str, str, float, str]]) -> None:
        """Keep what the search fast path (memcli.quick) answers from without loading the
        configuration and the scoring rules: the policy values it needs under the key of the
        configuration they came from, and the importance and tier of entries shown, each under
        the key of all it was scored from (today's only: older ones are dropped)."""
        rows = list(shown)
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('policy', ?)", (policy,))
            if rows:
                self.db.execute("DELETE FROM shown WHERE today <> ?", (rows[0][1],))
                self.db.executemany("INSERT OR REPLACE INTO shown VALUES (?, ?, ?, ?)", rows)

    def role_of(self, rel: str) -> str | None:
        row = self.db.execute("SELECT role FROM files WHERE path = ?", (rel,)).fetchone()
        return str(row[0]) if row else None


# line, end line, text, day, importance, pinned, score, section, entry id, flags, time, kind, norm, terms
Row = tuple[int, int, str, str | None, int | None, int, float, str, str, int, str | None, str, str, str]
PARALLEL_FILES = 200  # re-indexing fewer files than this is quicker in this process


def entry_rows(item: tuple[str, str | None, str]) -> list[Row]:
    """The index rows of one file's entries (run in worker processes for large rebuilds)."""
    rel, day, text = item
    rows: list[Row] = []
    for entry in parse(text, rel, date.fromisoformat(day) if day else None).entries:
        scored = score_text(entry.text)
        score = float(entry.importance) if entry.importance is not None else scored.score
        flags = (NOISE if scored.noise else 0) | (REMEMBER if scored.remember else 0)
        flags |= ROUTINE if scored.routine else 0
        rows.append(
            (
                entry.first_line,
                entry.last_line,
                entry.text,
                entry.date.isoformat() if entry.date else day,
                entry.importance,
                int(entry.pinned),
                score,
                entry.section_path,
                entry.id,
                flags,
                entry.time,
                entry.kind,
                normalise(entry.text),
                index_terms(entry.text),
            )
        )
    return rows


def _hit(r: tuple[object, ...]) -> Hit:
    return Hit(
        int(r[0]),  # type: ignore[call-overload]
        str(r[1]),
        int(r[2]),  # type: ignore[call-overload]
        int(r[3]),  # type: ignore[call-overload]
        str(r[4]),
        str(r[5]) if r[5] is not None else None,
        int(r[6]) if r[6] is not None else None,  # type: ignore[call-overload]
        bool(r[7]),
        bool(r[8]),
        float(r[9]),  # type: ignore[arg-type]
        float(r[10]),  # type: ignore[arg-type]
        str(r[11]),
        str(r[12]),
        int(r[13]),  # type: ignore[call-overload]
        str(r[14]),
        str(r[15]) if r[15] is not None else None,
        str(r[16]),
        str(r[17]),
    )


def remove_index(root: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(root / STATE_DIR / (INDEX_NAME + suffix))


@dataclass(frozen=True, slots=True)
class IndexState:
    """What `memcli doctor` says of the index: read without opening it for writing."""

    exists: bool
    size: int = 0
    current: bool = False  # built by this memcli (its schema)
    fresh: bool | None = None  # it follows the files as they are now (None: cannot tell)
    entries: int = 0
    files: int = 0
    problem: str | None = None  # it cannot be read


def index_state(root: Path, max_bytes: int) -> IndexState:
    """The index as it is, read-only (`immutable`: SQLite creates no -wal or -shm file)."""
    path = root / STATE_DIR / INDEX_NAME
    try:
        size = os.stat(path).st_size
    except OSError:
        return IndexState(False)
    try:
        db = open_as_it_is(path)
    except (sqlite3.Error, OSError, ValueError) as exc:
        return IndexState(True, size, problem=str(exc))
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("schema") != SCHEMA:
            return IndexState(True, size)
        entries = int(db.execute("SELECT count(*) FROM entries").fetchone()[0])
        files = int(db.execute("SELECT count(*) FROM files").fetchone()[0])
        stored = meta.get("fingerprint")
        fresh = None if stored is None else stored == tree_fingerprint(root, max_bytes)
        return IndexState(True, size, True, fresh, entries, files)
    except sqlite3.Error as exc:
        return IndexState(True, size, problem=str(exc))
    finally:
        db.close()

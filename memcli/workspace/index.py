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
import stat
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memcli.core.entries import parse
from memcli.core.recall import fts_query, index_terms
from memcli.core.roles import MEMORY_DIR, STATE_DIR, MemoryFile, Role
from memcli.core.scoring import score_text
from memcli.parallel import parallel_map
from memcli.workspace.files import adopt_owner_of_database, decode, display, read_state, usable_state_dir
from memcli.workspace.layout import folder_problem, scan

INDEX_NAME = "index.sqlite"
SCHEMA = "5"  # bump when the tables or the terms change: the index is rebuilt
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
    section TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_path ON entries(path);
CREATE VIRTUAL TABLE IF NOT EXISTS terms USING fts5(words, tokenize = 'unicode61 remove_diacritics 2');
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


class Index:
    def __init__(self, root: Path, max_bytes: int) -> None:
        self.root = root
        self.max_bytes = max_bytes
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
            for table in ("terms", "entries", "files", "meta"):
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
            for rel, file in sorted(wanted.items()):
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
            rows = parallel_map(
                entry_rows,
                [(f.rel, f.date.isoformat() if f.date else None, text) for f, _, _, text in changed],
                PARALLEL_FILES,
            )
            for (file, st, sha, _), entries in zip(changed, rows, strict=True):
                self._forget(file.rel)
                self._add(file, st, sha, entries)
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
            "INSERT INTO entries(id, path, line, end_line, text, day, importance, pinned, score, section)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                   bm25(terms), e.score, e.section
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
            " 0.0, e.score, e.section FROM entries e JOIN files f ON f.path = e.path"
            f" WHERE {where} ORDER BY e.path, e.line",
            args,
        )
        return [_hit(r) for r in rows]

    def role_of(self, rel: str) -> str | None:
        row = self.db.execute("SELECT role FROM files WHERE path = ?", (rel,)).fetchone()
        return str(row[0]) if row else None


# line, end line, text, day, importance, pinned, score, section, terms
Row = tuple[int, int, str, str | None, int | None, int, float, str, str]
PARALLEL_FILES = 200  # re-indexing fewer files than this is quicker in this process


def entry_rows(item: tuple[str, str | None, str]) -> list[Row]:
    """The index rows of one file's entries (run in worker processes for large rebuilds)."""
    rel, day, text = item
    rows: list[Row] = []
    for entry in parse(text, rel, date.fromisoformat(day) if day else None).entries:
        score = float(entry.importance) if entry.importance is not None else score_text(entry.text).score
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
    )


def tree_fingerprint(root: Path, max_bytes: int) -> str:
    """A hash of the path, size and mtime of every Markdown file where layout.scan looks
    (the root, and memory/ with its subfolders; hidden names skipped). The fingerprint
    taken before a refresh is stored with it, so a change during the refresh is seen next
    time."""
    digest = hashlib.blake2b(str(max_bytes).encode(), digest_size=16)

    def visit(folder: str, rel: str, deep: bool) -> None:
        try:
            items = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for item in items:
            if item.name.startswith("."):
                continue
            if deep and item.is_dir(follow_symlinks=False):
                visit(item.path, f"{rel}{item.name}/", deep)
            elif item.name.lower().endswith(".md"):
                try:
                    st = item.stat()
                    mark = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:{stat.S_IFMT(st.st_mode)}"
                except OSError:
                    mark = "missing"
                digest.update(f"{rel}{item.name}\0{mark}\0".encode("utf-8", "surrogateescape"))

    visit(str(root), "", deep=False)
    digest.update(b"\1")
    problem = folder_problem(root, MEMORY_DIR)
    if problem is None:
        visit(str(root / MEMORY_DIR), f"{MEMORY_DIR}/", deep=True)
    else:  # a memory/ that links out of the workspace is never walked (scan refuses it)
        digest.update(problem.problem.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def remove_index(root: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(root / STATE_DIR / (INDEX_NAME + suffix))

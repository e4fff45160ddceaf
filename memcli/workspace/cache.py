"""What memcli read from each note, kept between runs (.memcli/cache.sqlite).

Parsing a note and reading its entry texts (normalising each, finding its values,
scanning it with the scoring rules) are the largest costs of `list`, `dedupe` and `gc` on
a big workspace, and a note rarely changes once its day is over. So a file's outline
(core.outline: its blocks and what parsing found in each entry) and the facts of its
texts are stored under the SHA-256 of the file's bytes, stamped with everything that
produced them: the rule overrides of memcli.toml and the source of the modules that parse
notes and read texts. A changed file, a changed rule or a new memcli misses, and is read
again; an outline that does not fit the file's text is parsed again. The same file holds
`status`'s counts of each file (table `tallies`, kept by memcli.workspace.tally), which
this module leaves alone.

The cache is memcli's own, best effort and safe to delete: any error reading or writing
it means "not cached", never a failed command. It lives only in a .memcli/ that exists
(made by gc, add, search…): a command that only reads never creates one, and a read-only
workspace has none. The note rows' values are JSON, never pickles, so a cache file from
elsewhere cannot run code; the judgement's memo keeps its own rows in the same file
(workspace.memo_store), pickled but each signed with a key of this user's, and never
unpickled unless the signature checks out.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import sys
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.core import analysis, entries, judgement, outline, roles, rules, scoring, similarity
from memcli.core.analysis import TextFields
from memcli.core.roles import STATE_DIR, MemoryFile
from memcli.core.similarity import held_values
from memcli.workspace.files import FileState, adopt_owner_of_database, open_as_it_is, usable_state_dir
from memcli.workspace.snapshot import Parser

CACHE_NAME = "cache.sqlite"
SCHEMA = "3"  # 2: outlines without their file date
TABLE = "notes"
OLD_TABLES = ("files",)  # schema 1: facts only


def code_digest() -> bytes:
    """What parsing and reading depend on besides the text: the source of the modules that
    parse notes, date them and read texts (the judgement package's included: its word lists
    shape the facts), and the Python and Unicode versions (entry ids rest on NFKC and case
    folding)."""
    digest = hashlib.sha256(f"{SCHEMA}|{sys.version_info[:3]}|{unicodedata.unidata_version}".encode())
    sources = [Path(str(m.__file__)) for m in (analysis, entries, outline, roles, rules, scoring, similarity)]
    sources += sorted((Path(str(judgement.__file__)).parent).glob("*.py"))  # every judgement module
    for source in sources:
        with contextlib.suppress(OSError, TypeError):
            digest.update(source.read_bytes())
    return digest.digest()


# Read once, as this process imports memcli: a `memcli watch` started before an upgrade
# must not stamp what its old code parsed with the new code's stamp.
CODE = code_digest()


def stamp(code: bytes, rule_overrides: object, scan: bool) -> str:
    """What the cached facts depend on besides the text: the code, the rules, the scan."""
    return hashlib.sha256(code + f"|{scan}|{rule_overrides!r}".encode()).hexdigest()


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _encode(facts: Mapping[str, TextFields]) -> str:
    return _json([[t, d[0], sorted(d[1]), d[2], s, r, sig] for t, ((d), s, r, sig) in facts.items()])


def _decode(value: str) -> dict[str, TextFields]:
    out: dict[str, TextFields] = {}
    for text, norm, values, negative, scoring_text, routine, signals in json.loads(value):
        out[text] = ((norm, frozenset(values), bool(negative)), scoring_text, bool(routine), signals)
    return out


class Shared:
    """Texts' facts with what recurs from text to text one object each, for a run that holds
    every text's facts at once: a decade's notes hold 200,000 texts, and each decoded copy
    of a string costs tens of bytes, of a set of values or a map of signals hundreds. A
    text's values are held as a sorted tuple (similarity.held_values), equal ones one tuple,
    equal signals one map (never changed once read), and their strings one string each."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, ...], tuple[str, ...]] = {}  # (see similarity.held_values)
        self.signals: dict[tuple[object, ...], dict[str, str]] = {}  # by items, or by names

    def fields(self, fields: TextFields, brief: bool = False) -> TextFields:
        """`brief`: without the scoring text, and the signals' names only (see `names`)."""
        (norm, values, negative), scoring_text, routine, signals = fields
        if brief:
            scoring_text, signals = "", self.names(signals)
        if values:
            held = held_values(set(map(sys.intern, values)))
            found = self.values.setdefault(held, held)
            values = found
        else:
            values = _NO_VALUES
        if signals and not brief:
            items = tuple(signals.items())
            known = self.signals.get(items)
            if known is None:
                known = self.signals[items] = {sys.intern(k): sys.intern(v) for k, v in items}
            signals = known
        return (norm, values, negative), scoring_text, routine, signals

    def names(self, signals: dict[str, str] | None) -> dict[str, str] | None:
        """Which signals a text has, without the words that gave them (what the routine
        learnt from recurrence reads): one map for each set of them, a few hundred in all."""
        if not signals:
            return signals
        names = tuple(signals)
        known = self.signals.get(names)  # (keyed apart from full signals: a tuple of names)
        if known is None:
            known = self.signals[names] = dict.fromkeys(names, "")
        return known


_NO_VALUES: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Known:
    """What the cache holds of one file: its texts' facts and its outline."""

    facts: dict[str, TextFields]
    outline: Any


@dataclass(frozen=True, slots=True)
class Fresh:
    """What to store of a file read this time."""

    sha: bytes
    facts: Mapping[str, TextFields]
    outline: Any


class NoteCache:
    """Notes by file hash; every method is a no-op when the cache is unusable."""

    def __init__(self, root: Path, rule_overrides: object, scan: bool, writable: bool = True) -> None:
        """`writable=False` (status, check): rows are read, never added or forgotten, and
        a missing cache is not created."""
        self.stamp = stamp(CODE, rule_overrides, scan)
        live = (self.stamp, stamp(CODE, rule_overrides, not scan))  # list's and dedupe's
        self.live = live
        self.writable = writable
        self.db: sqlite3.Connection | None = None
        folder = usable_state_dir(root)  # never created here: reading makes no .memcli/
        if folder is None:
            return
        path = folder / CACHE_NAME
        if not writable:
            with contextlib.suppress(OSError, ValueError, sqlite3.Error):
                if path.is_file():
                    self.db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2.0)
            return
        try:
            self.db = self._open(path, live)
            adopt_owner_of_database(path)
        except sqlite3.OperationalError:  # busy or locked by another run: go without
            self.db = None
        except sqlite3.DatabaseError:  # not a database (any more): it is only a cache
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    os.unlink(f"{path}{suffix}")
            with contextlib.suppress(OSError, sqlite3.Error):
                self.db = self._open(path, live)
        except (OSError, sqlite3.Error):
            self.db = None

    @staticmethod
    def _open(path: Path, live: tuple[str, str]) -> sqlite3.Connection:
        db = sqlite3.connect(path, timeout=2.0)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            with db:
                for old in OLD_TABLES:
                    db.execute(f"DROP TABLE IF EXISTS {old}")
                db.execute(
                    f"CREATE TABLE IF NOT EXISTS {TABLE}(stamp TEXT NOT NULL, sha BLOB NOT NULL,"
                    " facts TEXT NOT NULL, outline TEXT NOT NULL, PRIMARY KEY (stamp, sha))"
                )
                # rows another memcli or other rules wrote are of no use any more
                db.execute(f"DELETE FROM {TABLE} WHERE stamp NOT IN (?, ?)", live)
        except BaseException:
            db.close()
            raise
        return db

    def get(self, sha: bytes) -> Known | None:
        if self.db is None:
            return None
        try:
            row = self.db.execute(
                f"SELECT facts, outline FROM {TABLE} WHERE stamp = ? AND sha = ?", (self.stamp, sha)
            ).fetchone()
            return Known(_decode(row[0]), json.loads(row[1])) if row is not None else None
        except (sqlite3.Error, ValueError, TypeError):
            return None

    def outline(self, sha: bytes) -> Any:
        """The outline of a file, whichever command stored it (it does not depend on the
        rules); None when no live row has it."""
        if self.db is None:
            return None
        try:
            row = self.db.execute(
                f"SELECT outline FROM {TABLE} WHERE stamp IN (?, ?) AND sha = ? LIMIT 1", (*self.live, sha)
            ).fetchone()
            return json.loads(row[0]) if row is not None else None
        except (sqlite3.Error, ValueError, TypeError):
            return None

    def put(self, rows: Iterable[Fresh], keep: set[bytes]) -> None:
        """Store the files read this time; forget, under this stamp, the files not in
        `keep` (those no longer in the workspace)."""
        if self.db is None or not self.writable:
            return
        try:
            with self.db:
                self.db.executemany(
                    f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?)",
                    ((self.stamp, r.sha, _encode(r.facts), _json(r.outline)) for r in rows),
                )
                known = self.db.execute(f"SELECT sha FROM {TABLE} WHERE stamp = ?", (self.stamp,))
                gone = [(self.stamp, s) for (s,) in known if s not in keep]
                self.db.executemany(f"DELETE FROM {TABLE} WHERE stamp = ? AND sha = ?", gone)
        except (sqlite3.Error, ValueError, TypeError):
            pass

    def close(self) -> None:
        if self.db is not None:
            with contextlib.suppress(sqlite3.Error):
                self.db.close()
            self.db = None


def file_key(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


@dataclass(frozen=True, slots=True)
class CacheState:
    """What `memcli doctor` says of the cache: read without opening it for writing."""

    exists: bool
    size: int = 0
    notes: int = 0  # notes cached for this memcli and these rules (list's or dedupe's reading)
    other: int = 0  # rows of another memcli or other rules: dropped by the next run that writes
    problem: str | None = None


def cache_state(root: Path, rule_overrides: object) -> CacheState:
    """The cache as it is, read-only (`immutable`: SQLite creates no -wal or -shm file)."""
    path = root / STATE_DIR / CACHE_NAME
    try:
        size = os.stat(path).st_size
    except OSError:
        return CacheState(False)
    live = (stamp(CODE, rule_overrides, True), stamp(CODE, rule_overrides, False))
    try:
        db = open_as_it_is(path)
    except (sqlite3.Error, OSError, ValueError) as exc:
        return CacheState(True, size, problem=str(exc))
    try:
        rows = db.execute(f"SELECT stamp IN (?, ?), count(DISTINCT sha) FROM {TABLE} GROUP BY 1", live)
        counts = {bool(mine): int(n) for mine, n in rows}
        return CacheState(True, size, counts.get(True, 0), counts.get(False, 0))
    except sqlite3.Error as exc:
        return CacheState(True, size, problem=str(exc))
    finally:
        db.close()


@contextlib.contextmanager
def outline_parser(root: Path, rule_overrides: object) -> Iterator[Parser]:
    """A parser that rebuilds a note unchanged since a run that cached it (list, dedupe, gc)
    from its outline, and parses the others; it only reads the cache. (Here, not in
    services: `check` and `status` read notes without importing the planner.)"""
    cache = NoteCache(root, rule_overrides, True, writable=False)

    def parser(file: MemoryFile, state: FileState, text: str) -> entries.Document:
        brief = cache.outline(file_key(state.data))
        doc = outline.rebuild(text, file.rel, file.date, brief) if brief is not None else None
        return doc if doc is not None else entries.parse(text, file.rel, file.date)

    try:
        yield parser
    finally:
        cache.close()

"""The judgement's memo (core.memo) between runs: rows of .memcli/cache.sqlite.

What the judgement read from each text and judged of each pair is kept as pickled rows,
one per table, stamped with memcli's core code, the rule overrides and the policy: any
change of them, and the rows are of no use (dropped by the next run that stores one). A pickle can run
code when loaded, so each row carries an HMAC-SHA256 made with a key only this user can
read (`$XDG_CACHE_HOME/memcli/memo.key`, made on first use, mode 0600); a row whose MAC
does not check out (a cache file copied from elsewhere, a changed key, a damaged file) is
never unpickled: it is "not cached". Best effort throughout, like the note cache: any
error reading or writing means a run without the memo, never a failed command.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import hmac
import io
import os
import pickle
import sqlite3
import sys
from collections.abc import Hashable, Iterator, Mapping
from pathlib import Path
from typing import Any, cast

from memcli.core.memo import Memo
from memcli.core.roles import STATE_DIR
from memcli.workspace.cache import CACHE_NAME
from memcli.workspace.files import adopt_owner_of_database, open_as_it_is, usable_state_dir

TABLE = "memo_tables"
KEY_BYTES = 32


def code_digest() -> bytes:
    """Every module of memcli's core: the memo holds answers of its functions."""
    import memcli.core

    digest = hashlib.sha256(f"memo-3|{sys.version_info[:3]}|{sys.byteorder}".encode())
    for source in sorted(Path(str(memcli.core.__file__)).parent.rglob("*.py")):
        with contextlib.suppress(OSError):
            digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.digest()


CODE = code_digest()  # read once, as memcli is imported (see workspace.cache.CODE)


def memo_stamp(policy: object) -> str:
    """What the answers depend on besides their arguments: the core's code and the policy
    (which holds the rule overrides)."""
    return hashlib.sha256(CODE + f"|{policy!r}".encode()).hexdigest()


def key_path(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memcli" / "memo.key"


def _key(create: bool) -> bytes | None:
    """This user's key, made when missing (and `create`); None when it cannot be had."""
    try:
        path = key_path()
    except RuntimeError:  # no home
        return None
    for _ in range(2):
        try:
            with open(path, "rb") as f:
                key = f.read(KEY_BYTES + 1)
            return key if len(key) == KEY_BYTES else None
        except FileNotFoundError:
            if not create:
                return None
        except OSError:
            return None
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue  # another run made it first: read theirs
        except OSError:
            return None
        try:
            os.write(fd, os.urandom(KEY_BYTES))
        finally:
            os.close(fd)
    return None


def _mac(key: bytes, stamp: str, name: str, data: bytes) -> bytes:
    return hmac.new(key, f"{stamp}\0{name}\0".encode() + data, hashlib.sha256).digest()


def _connect(root: Path) -> sqlite3.Connection | None:
    folder = usable_state_dir(root)  # never created here
    if folder is None:
        return None
    path = folder / CACHE_NAME
    db = sqlite3.connect(path, timeout=2.0)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        with db:
            db.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE}(stamp TEXT NOT NULL, name TEXT NOT NULL,"
                " mac BLOB NOT NULL, data BLOB NOT NULL, PRIMARY KEY (stamp, name))"
            )
        adopt_owner_of_database(path)
    except BaseException:
        db.close()
        raise
    return db


_COLUMNS = "memcli.memo.columns.1"
PART = 16_384  # keys in one row: a table is stored and loaded a row at a time
ADDED = b"+"  # the first byte of a row of answers added to a table: a pickle of its own
ADDED_MOST = 30  # rows added to a table before it is stored whole again


def _columns(table: dict[Hashable, Any]) -> object:
    """A table as it is stored: keyed by texts (or tuples of as many texts), its keys as
    columns of texts beside a list of its values, which loading turns into one dict at
    once (a dict of the pickled keys, copied with shared texts, held both for a moment:
    100 MB more for a decade's verdicts). Other keys: the table as it is."""
    keys = list(table)
    first = keys[0] if keys else ""
    width = len(first) if type(first) is tuple else 0
    if width == 0 and all(type(key) is str for key in keys):
        columns = [keys]
    elif width > 0 and all(
        type(key) is tuple and len(key) == width and all(type(part) is str for part in key) for key in keys
    ):
        pairs = cast(list[tuple[str, ...]], keys)
        columns = [[key[c] for key in pairs] for c in range(width)]
    else:
        return table
    return (_COLUMNS, width, columns, list(table.values()))


def _parts(table: dict[Hashable, Any], size: int) -> Iterator[object]:
    """The table in parts of `size` keys (`_columns`), each a row of its own."""
    stored = _columns(table)
    if not isinstance(stored, tuple):
        yield stored
        return
    tag, width, columns, values = stored
    for start in range(0, max(len(values), 1), size):
        yield (tag, width, [column[start : start + size] for column in columns], values[start : start + size])


def _row_name(name: str, k: int) -> str:
    """A table's k-th row: the first by the table's name, the rest after it in order."""
    return name if k == 0 else f"{name}\0{k:06d}"


class _Rows:
    """What one unpickler reads a table's rows through, a row at a time: the rows were
    pickled by one pickler, so a later row may refer to what an earlier one held (a feature
    found in many texts is one string however many rows have it)."""

    def __init__(self) -> None:
        self.row = io.BytesIO()

    def read(self, n: int = -1) -> bytes:
        return self.row.read(n)

    def readinto(self, buffer: Any) -> int:
        return self.row.readinto(buffer)

    def readline(self, limit: int = -1) -> bytes:
        return self.row.readline(limit)


class MemoStore:
    """The memo's rows of one workspace under one stamp: `load` is the Memo's loader,
    `store` its sink."""

    def __init__(self, root: Path, stamp: str, part: int = PART) -> None:
        self.root = root
        self.stamp = stamp
        self.part = part  # keys in one row
        self.key = _key(create=False)
        self.pruned = False
        self.texts: dict[str, str] = {}  # every text a table loaded is keyed by, once
        # each table this store loaded: its rows, how many of them were added, the last's MAC
        self.shapes: dict[str, tuple[int, int, bytes]] = {}

    def _table(self, stored: object) -> dict[Hashable, Any] | None:
        """A row as stored (`_columns`) with each text of its keys one object across all
        the tables: each is a pickle of its own, and most tables are keyed by the same texts
        (a decade's duplicate tables hold 200 MB of copies of them otherwise)."""
        if isinstance(stored, dict):  # keys that are not texts or tuples of them
            return stored
        if not (isinstance(stored, tuple) and len(stored) == 4 and stored[0] == _COLUMNS):
            return None
        _, width, columns, values = stored
        texts = self.texts
        for c, column in enumerate(columns):  # (a copy is let go once no column holds it)
            columns[c] = [texts.setdefault(text, text) for text in column]
        keys = columns[0] if width == 0 else zip(*columns, strict=True)
        return dict(zip(keys, values, strict=True))

    def memo(self) -> Memo:
        return Memo(loader=self.load, sink=self.store, append=self.append)

    def load(self, name: str) -> dict[Hashable, Any] | None:
        """Last run's answers of one table; None when there are none to trust."""
        if self.key is None:
            return None
        db = None
        enabled = gc.isenabled()
        # A table: up to a few million small objects, none of them garbage, so the
        # collector, which would walk them all again and again as they are made, waits.
        gc.disable()
        try:
            db = _connect(self.root)
            return self._rows_of(db, name) if db is not None else None
        except (
            sqlite3.Error,
            OSError,
            pickle.UnpicklingError,
            ValueError,
            TypeError,
            EOFError,
            AttributeError,
        ):
            return None
        finally:
            if enabled:
                gc.enable()
            if db is not None:
                db.close()

    def _rows_of(self, db: sqlite3.Connection, name: str) -> dict[Hashable, Any] | None:
        """A table's rows, each checked before it is unpickled: a row's MAC covers the row
        before it, so rows of two different stores are never read as one table."""
        assert self.key is not None
        rows = db.execute(
            f"SELECT name, mac, data FROM {TABLE} WHERE stamp = ? AND (name = ? OR name BETWEEN ? AND ?)"
            " ORDER BY name",
            (self.stamp, name, f"{name}\0", f"{name}\1"),
        )
        source = _Rows()
        unpickler = pickle.Unpickler(source)
        table: dict[Hashable, Any] | None = None
        before = b""
        added = 0
        for k, (row_name, mac, data) in enumerate(rows):
            if row_name != _row_name(name, k):
                return None
            if not hmac.compare_digest(bytes(mac), _mac(self.key, self.stamp, row_name, before + data)):
                return None
            if data[:1] == ADDED:  # (answers added later: their own pickle, after the table's)
                source.row = io.BytesIO(data[1:])
                part = self._table(pickle.Unpickler(source).load())
                added += 1
            elif added:
                return None
            else:
                source.row = io.BytesIO(data)
                part = self._table(unpickler.load())
            if part is None or source.row.read(1):
                return None
            if table is None:
                table = part
            else:
                table.update(part)
            before = bytes(mac)
        if table is not None:
            self.shapes[name] = (k + 1, added, before)
        return table

    def _prune(self, db: sqlite3.Connection) -> None:
        """The first write of this store drops the rows of other stamps (another memcli,
        other rules or policy)."""
        if not self.pruned:
            db.execute(f"DELETE FROM {TABLE} WHERE stamp != ?", (self.stamp,))
            self.pruned = True

    def store(self, name: str, table: dict[Hashable, Any]) -> None:
        """Keep one table's answers for the next run, a row at a time (a decade's sketches
        pickled whole, and sqlite's copy of the pickle, were 170 MB at once); the first
        table stored drops the rows of other stamps (another memcli, other rules or policy)."""
        if self.key is None:
            self.key = _key(create=True)
            if self.key is None:
                return
        db = None
        try:
            db = _connect(self.root)
            if db is None:
                return
            with db:
                self._prune(db)
                db.execute(
                    f"DELETE FROM {TABLE} WHERE stamp = ? AND (name = ? OR name BETWEEN ? AND ?)",
                    (self.stamp, name, f"{name}\0", f"{name}\1"),
                )
                buffer = io.BytesIO()
                pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
                before = b""
                for k, part in enumerate(_parts(table, self.part)):
                    pickler.dump(part)
                    data = buffer.getvalue()
                    buffer.seek(0)
                    buffer.truncate()
                    row_name = _row_name(name, k)
                    mac = _mac(self.key, self.stamp, row_name, before + data)
                    db.execute(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?)", (self.stamp, row_name, mac, data))
                    before = mac
                rows = k + 1
        except (sqlite3.Error, OSError, pickle.PicklingError, ValueError, TypeError, RecursionError):
            self.shapes.pop(name, None)
            return
        finally:
            if db is not None:
                db.close()
        self.shapes[name] = (rows, 0, before)  # answers can be added to the rows just made

    def append(self, name: str, answers: dict[Hashable, Any]) -> bool:
        """Add a table's new answers to its rows, as one more row (chained to the last by its
        MAC), instead of storing it whole again: when this store loaded the table, its rows
        are still those it loaded, and fewer than ADDED_MOST rows were added to it since it
        was stored whole. Whether they were added (if not, the table is to be stored whole)."""
        shape = self.shapes.get(name)
        if shape is None or self.key is None or not answers or len(answers) > self.part:
            return False
        count, added, last = shape
        if added >= ADDED_MOST:
            return False
        row_name = _row_name(name, count)
        db = None
        try:
            db = _connect(self.root)
            if db is None:
                return False
            with db:
                self._prune(db)
                found = db.execute(
                    f"SELECT name, mac FROM {TABLE} WHERE stamp = ? AND (name = ? OR name BETWEEN ? AND ?)"
                    " ORDER BY name DESC LIMIT 1",
                    (self.stamp, name, f"{name}\0", f"{name}\1"),
                ).fetchone()
                if found is None or found[0] != _row_name(name, count - 1) or bytes(found[1]) != last:
                    return False  # stored again, or added to, by another run since
                data = ADDED + pickle.dumps(_columns(answers), protocol=pickle.HIGHEST_PROTOCOL)
                mac = _mac(self.key, self.stamp, row_name, last + data)
                db.execute(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?)", (self.stamp, row_name, mac, data))
        except (sqlite3.Error, OSError, pickle.PicklingError, ValueError, TypeError, RecursionError):
            return False
        finally:
            if db is not None:
                db.close()
        self.shapes[name] = (count + 1, added + 1, mac)
        return True


def memo_state(root: Path, stamp: str) -> tuple[int, int]:
    """The memo's tables under this stamp and their bytes, read as they are (`doctor`):
    (0, 0) when there are none or the cache cannot be read."""
    path = root / STATE_DIR / CACHE_NAME
    if not path.is_file():
        return 0, 0
    try:
        db = open_as_it_is(path)
    except (sqlite3.Error, OSError, ValueError):
        return 0, 0
    try:
        row = db.execute(
            f"SELECT coalesce(sum(instr(name, char(0)) = 0), 0), coalesce(sum(length(data)), 0)"
            f" FROM {TABLE} WHERE stamp = ?",
            (stamp,),
        )
        tables, size = row.fetchone()
        return int(tables), int(size)
    except sqlite3.Error:  # no memo table yet
        return 0, 0
    finally:
        db.close()

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
import os
import pickle
import sqlite3
import sys
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

from memcli.core.memo import Memo
from memcli.core.roles import STATE_DIR
from memcli.workspace.cache import CACHE_NAME
from memcli.workspace.files import adopt_owner_of_database, open_as_it_is, usable_state_dir

TABLE = "memo_tables"
KEY_BYTES = 32


def code_digest() -> bytes:
    """Every module of memcli's core: the memo holds answers of its functions."""
    import memcli.core

    digest = hashlib.sha256(f"memo-1|{sys.version_info[:3]}".encode())
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


def _unpickled(data: bytes) -> object:
    """A table: up to a few million small objects, none of them garbage, so the collector,
    which would walk them all again and again as they are made, waits until they are."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(data)
    finally:
        if enabled:
            gc.enable()


class MemoStore:
    """The memo's rows of one workspace under one stamp: `load` is the Memo's loader,
    `store` its sink."""

    def __init__(self, root: Path, stamp: str) -> None:
        self.root = root
        self.stamp = stamp
        self.key = _key(create=False)
        self.pruned = False
        self.texts: dict[str, str] = {}  # every text a table loaded is keyed by, once

    def _shared_keys(self, table: dict[Hashable, Any]) -> dict[Hashable, Any]:
        """The table with each text of its keys one object across all its tables: each is a
        pickle of its own, and most tables are keyed by the same texts (a decade's
        duplicate tables hold 200 MB of copies of them otherwise)."""
        texts = self.texts
        shared: dict[Hashable, Any] = {}
        while table:  # (taken out one by one: each copy of a text is let go at once)
            key, value = table.popitem()
            if type(key) is str:
                key = texts.setdefault(key, key)
            elif type(key) is tuple and all(type(part) is str for part in key):
                key = tuple(texts.setdefault(part, part) for part in key)
            shared[key] = value
        return dict(reversed(shared.items()))  # (in the order stored)

    def memo(self) -> Memo:
        return Memo(loader=self.load, sink=self.store)

    def load(self, name: str) -> dict[Hashable, Any] | None:
        """Last run's answers of one table; None when there are none to trust."""
        if self.key is None:
            return None
        db = None
        try:
            db = _connect(self.root)
            if db is None:
                return None
            row = db.execute(
                f"SELECT mac, data FROM {TABLE} WHERE stamp = ? AND name = ?", (self.stamp, name)
            ).fetchone()
            if row is None:
                return None
            data = bytes(row[1])
            if not hmac.compare_digest(bytes(row[0]), _mac(self.key, self.stamp, name, data)):
                return None
            table = _unpickled(data)
            return self._shared_keys(table) if isinstance(table, dict) else None
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
            if db is not None:
                db.close()

    def store(self, name: str, table: dict[Hashable, Any]) -> None:
        """Keep one table's answers for the next run; the first table stored drops the rows
        of other stamps (another memcli, other rules or policy)."""
        if self.key is None:
            self.key = _key(create=True)
            if self.key is None:
                return
        db = None
        try:
            db = _connect(self.root)
            if db is None:
                return
            data = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
            with db:
                if not self.pruned:
                    db.execute(f"DELETE FROM {TABLE} WHERE stamp != ?", (self.stamp,))
                    self.pruned = True
                db.execute(
                    f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?)",
                    (self.stamp, name, _mac(self.key, self.stamp, name, data), data),
                )
        except (sqlite3.Error, OSError, pickle.PicklingError, ValueError, TypeError, RecursionError):
            return
        finally:
            if db is not None:
                db.close()


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
            f"SELECT count(*), coalesce(sum(length(data)), 0) FROM {TABLE} WHERE stamp = ?", (stamp,)
        )
        tables, size = row.fetchone()
        return int(tables), int(size)
    except sqlite3.Error:  # no memo table yet
        return 0, 0
    finally:
        db.close()

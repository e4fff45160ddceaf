"""What `memcli status` counts of each file, kept between runs (issue 20, point 2).

Status reports, per role, files, entries, characters and tokens. Counting them means
parsing every note (on the decade, rebuilding 3,651 notes from their cached outlines costs
seconds), though a note rarely changes once its day is over. So the counts of each file
are kept in `.memcli/cache.sqlite` (table `tallies`, beside the outlines of
`memcli.workspace.cache`), under the file's path and what `lstat` says of it (size,
mtime_ns, ctime_ns, inode, device, mode), stamped with the source of the code that parses
and counts. A file whose stat differs, a new file or a new memcli is read and counted
again; a status with everything known reads no note at all, only stats them.

The counts are the ones `core.inventory` makes of a parsed document (entries, characters
and tokens of its rendering), so the report is the same whether a file was counted now or
before. What the stat cannot vouch for is always read as before: a symlink (it may lead
anywhere), a file over `max_file_bytes` or not regular (reading it fails as it did), a
file in a folder that resolves out of the workspace. A file modified less than
`RACY_SECONDS` before it was counted is not stored: a write in the same tick of the
file system clock could leave its stat as it was (git's "racily clean" files).

Like the rest of the cache it is best effort: any SQLite or OS error means "not known",
never a failed status. It is written only where the note cache may be (an existing,
usable `.memcli/`), so status on a workspace without one, or a read-only one, writes
nothing. This module imports neither the parser's rules nor the cache's modules: status
answers from it without loading them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import stat
import sys
import time
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

import memcli
from memcli.core.entries import Document
from memcli.core.inventory import Tally
from memcli.core.roles import MemoryFile, Role
from memcli.core.tokens import estimate_tokens
from memcli.workspace.files import adopt_owner_of_database, is_inside, usable_state_dir
from memcli.workspace.layout import Layout, scan
from memcli.workspace.snapshot import Parser, parse_file, read_file

CACHE_NAME = "cache.sqlite"  # memcli.workspace.cache.CACHE_NAME (not imported: it loads the rules)
TABLE = "tallies"
SCHEMA = "1"
RACY_SECONDS = 2  # FAT's mtime granularity; ext4, btrfs and tmpfs are far finer

# What a file's counts depend on besides its bytes: the parser and the counting (memcli/core),
# how a file is read, found and rebuilt from its outline, and this module.
_PACKAGE = Path(memcli.__file__).parent
_SOURCES = (
    "core/**/*.py",
    "services.py",
    "workspace/files.py",
    "workspace/layout.py",
    "workspace/snapshot.py",
    "workspace/tally.py",
)


def code_stamp() -> str:
    """The stamp of the code that counts: its source, and the Python and Unicode versions
    (parsing rests on str methods and NFKC)."""
    digest = hashlib.sha256(f"{SCHEMA}|{sys.version_info[:3]}|{unicodedata.unidata_version}".encode())
    for pattern in _SOURCES:
        for source in sorted(_PACKAGE.glob(pattern)):
            digest.update(source.relative_to(_PACKAGE).as_posix().encode())
            with contextlib.suppress(OSError):
                digest.update(source.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class FileTally:
    """One file's share of status's table."""

    entries: int
    chars: int
    tokens: int


def count(doc: Document) -> FileTally:
    """As core.inventory.Tally.plus counts a document."""
    text = doc.render()
    return FileTally(len(doc.entries), len(text), estimate_tokens(text))


Key = tuple[int, int, int, int, int, int]


def stat_key(st: os.stat_result) -> Key:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, st.st_mode)


@dataclass(frozen=True, slots=True)
class Counted:
    """The layout scanned and each of its files counted, in the layout's order."""

    layout: Layout
    files: tuple[tuple[MemoryFile, FileTally], ...]
    read: int  # files read and parsed this time (the others came from the cache)


class TallyCache:
    """The `tallies` table of one workspace: loaded at once, written back only when a
    file was counted anew or is gone."""

    def __init__(self, root: Path) -> None:
        self.stamp = code_stamp()
        self.known: dict[str, tuple[Key, FileTally]] = {}
        self.path: Path | None = None
        folder = usable_state_dir(root)  # never created here
        if folder is None:
            return
        self.path = folder / CACHE_NAME
        if not self.path.is_file():
            return
        try:
            db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=2.0)
        except (sqlite3.Error, OSError, ValueError):
            return
        try:
            rows = db.execute(
                f"SELECT path, size, mtime_ns, ctime_ns, inode, device, mode, entries, chars, tokens"
                f" FROM {TABLE} WHERE stamp = ?",
                (self.stamp,),
            )
            for path, size, mtime, ctime, inode, device, mode, entries, chars, tokens in rows:
                key = (int(size), int(mtime), int(ctime), int(inode), int(device), int(mode))
                self.known[str(path)] = (key, FileTally(int(entries), int(chars), int(tokens)))
        except (sqlite3.Error, ValueError, TypeError):
            self.known = {}  # no table yet, or not ours: nothing known
        finally:
            db.close()

    def get(self, rel: str, key: Key) -> FileTally | None:
        found = self.known.get(rel)
        return found[1] if found is not None and found[0] == key else None

    def save(self, fresh: Mapping[str, tuple[Key, FileTally]], current: set[str]) -> None:
        """Store the files counted this time; forget the rows of files no longer there and
        those another memcli wrote. Nothing is written when nothing changed."""
        gone = [rel for rel in self.known if rel not in current]
        if self.path is None or not (fresh or gone):
            return
        try:
            db = sqlite3.connect(self.path, timeout=0.5)  # busy: another run writes; skip
        except (sqlite3.Error, OSError):
            return
        try:
            db.execute("PRAGMA journal_mode=WAL")
            with db:
                db.execute(
                    f"CREATE TABLE IF NOT EXISTS {TABLE}(stamp TEXT NOT NULL, path TEXT NOT NULL,"
                    " size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,"
                    " inode INTEGER NOT NULL, device INTEGER NOT NULL, mode INTEGER NOT NULL,"
                    " entries INTEGER NOT NULL, chars INTEGER NOT NULL, tokens INTEGER NOT NULL,"
                    " PRIMARY KEY (stamp, path))"
                )
                db.execute(f"DELETE FROM {TABLE} WHERE stamp != ?", (self.stamp,))
                db.executemany(
                    f"DELETE FROM {TABLE} WHERE stamp = ? AND path = ?", ((self.stamp, r) for r in gone)
                )
                db.executemany(
                    f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        (self.stamp, rel, *key, t.entries, t.chars, t.tokens)
                        for rel, (key, t) in fresh.items()
                    ),
                )
        except (sqlite3.Error, OSError, ValueError, TypeError, OverflowError):
            pass
        finally:
            db.close()
        adopt_owner_of_database(self.path)


def _trusted_key(root: Path, file: MemoryFile, max_bytes: int, inside: dict[str, bool]) -> Key | None:
    """The stat a cached count may be trusted under, or None when the file must be read as
    before: a link, not a regular file, over the size limit, in a folder that resolves out of
    the workspace, or gone."""
    try:
        st = os.lstat(os.path.join(root, file.rel))
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
        return None
    folder = os.path.dirname(file.rel)
    if folder not in inside:
        inside[folder] = is_inside(root / folder, root)
    return stat_key(st) if inside[folder] else None


def count_files(
    root: Path,
    max_bytes: int,
    parser: Callable[[int], AbstractContextManager[Parser]],
    progress: Callable[[int, int], None] | None = None,
) -> Counted:
    """Scan the layout and count every file, from the cache where its stat is the one
    counted before. The others are read in the layout's order as `take_snapshot` reads
    them (the first that cannot be read raises as it does), with the parser `parser(n)`
    gives for `n` files to read, and stored."""
    layout = scan(root)
    cache = TallyCache(root)
    started = time.time_ns()
    inside: dict[str, bool] = {}
    keys = [_trusted_key(root, f, max_bytes, inside) for f in layout.files]
    known = [cache.get(f.rel, k) if k is not None else None for f, k in zip(layout.files, keys, strict=True)]
    to_read = sum(t is None for t in known)
    fresh: dict[str, tuple[Key, FileTally]] = {}
    out: list[tuple[MemoryFile, FileTally]] = []
    total = len(layout.files)
    with parser(to_read) as parse:
        for n, (file, key, tally) in enumerate(zip(layout.files, keys, known, strict=True), 1):
            if tally is None:
                tally = count(read_file(root, file, max_bytes, parse).doc)
                if key is not None and _unchanged(root / file.rel, key, started):
                    fresh[file.rel] = (key, tally)
            out.append((file, tally))
            if progress is not None:
                progress(n, total)
    cache.save(fresh, {f.rel for f in layout.files})
    return Counted(layout, tuple(out), to_read)


def _unchanged(path: Path, key: Key, started: int) -> bool:
    """The file is as it was stat'ed before it was read, and old enough that a later write
    must change its mtime."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat_key(st) == key and st.st_mtime_ns < started - RACY_SECONDS * 1_000_000_000


def by_role(files: Sequence[tuple[MemoryFile, FileTally]]) -> dict[Role, Tally]:
    """Files, entries, characters and tokens per role, in the roles' order, as
    core.inventory.tally_by_role makes them of parsed documents."""
    sums: dict[Role, Tally] = {}
    for file, t in files:
        s = sums.get(file.role, Tally())
        sums[file.role] = Tally(s.files + 1, s.entries + t.entries, s.chars + t.chars, s.tokens + t.tokens)
    return {role: sums[role] for role in Role if role in sums}


@contextlib.contextmanager
def plain_parser(n: int) -> Iterator[Parser]:
    """Parse each file read (enough when few are)."""
    yield parse_file

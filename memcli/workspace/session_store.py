"""OpenClaw's session store, read and written the way OpenClaw does (SPEC §9).

`sessions.json` maps session keys to entries. memcli keeps every field it does not
know and the order of keys; it writes only under OpenClaw's own lock,
`sessions.json.lock` (created exclusively, `{"pid", "createdAt"}`, stale after 30 s),
re-reads the store inside the lock, and replaces it with 2-space JSON through a temp
file and a rename, keeping its mode. OpenClaw 2026.8 and later keep sessions in
`agents/<id>/agent/openclaw-agent.sqlite`; a JSON store beside such a database is
legacy, and memcli never writes to the database (workspace.openclaw_db reads it).

Which stores a workspace sees (`search_stores`): the one named with --sessions, else its
own `sessions.json` and the stores of the OpenClaw agents whose workspace it is
(workspace.openclaw): each agent's database when it has one (the JSON store beside it is
then legacy), else its `agents/<id>/sessions/sessions.json`. Never another agent's.

A store that is a symlink (a workspace's `sessions.json` linked to OpenClaw's
`agents/<id>/sessions/sessions.json`) is written through the link: the file it leads to
is replaced and the link is kept, so OpenClaw and memcli go on sharing one store. The
lock sits beside that real file, where OpenClaw, which opens its store by its own path,
puts `sessions.json.lock` too. A link is followed only into the workspace, into
OpenClaw's state folder (`$OPENCLAW_STATE_DIR`, else `~/.openclaw`) or within its own
folder; a write through a link that leads anywhere else is refused (SPEC §14), nothing
written.

A number a double cannot hold (`1e999`) is written back with the text it was read with
(see transcripts.Verbatim), never as Python's `Infinity`, which is not JSON.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.errors import DataError, LockTimeout, UsageError
from memcli.workspace.files import (
    NOFOLLOW,
    adopt_owner,
    display,
    is_inside,
    pid_alive,
    possible_pid,
    read_state,
    remove_dead_temp_files,
    replace_file,
)
from memcli.workspace.openclaw import Agent, OpenClaw, load_openclaw, no_such_agent
from memcli.workspace.openclaw_db import BUSY_SECONDS, is_database, read_sessions
from memcli.workspace.transcripts import STORE_NAME, Verbatim, locate, read_store

LOCK_SUFFIX = ".lock"
STALE_SECONDS = 30.0
WAIT_SECONDS = 10.0
POLL_SECONDS = 0.05
MAX_STORE_BYTES = 64 << 20
SQLITE_NAME = "openclaw-agent.sqlite"
MAX_LOCK_BYTES = 4096  # a lock record is some 50 bytes: anything longer is no lock record


@dataclass(frozen=True, slots=True)
class Store:
    path: Path
    legacy: bool  # an OpenClaw >= 2026.8 database sits beside it: OpenClaw no longer reads it
    kind: str = "json"  # "json" (sessions.json) or "sqlite" (OpenClaw 2026.8+'s database)
    agent: str | None = None  # the OpenClaw agent it belongs to; None for a workspace's own store

    @property
    def database(self) -> bool:
        return self.kind == "sqlite"


@dataclass(frozen=True, slots=True)
class StoreSearch:
    stores: tuple[Store, ...]
    looked: tuple[str, ...]  # every place looked at, for the message when there is no store
    openclaw: OpenClaw | None
    agents: tuple[str, ...]  # the agents whose sessions this workspace sees

    def nowhere(self, root: Path) -> DataError:
        """No store: what memcli looked at, and how to point it at one (exit 3)."""
        where = "; ".join(self.looked)
        why = ""
        oc = self.openclaw
        if oc is not None and not oc.state.is_dir():
            why = f"; OpenClaw's state folder {oc.state} (from {oc.state_source}) does not exist"
        elif oc is not None and not self.agents:
            why = (
                f"; {root} is the workspace of no OpenClaw agent in {oc.state} (from {oc.state_source}; "
                f"agents: {oc.describe_agents()})"
            )
        return DataError(
            f"no session store found for {root}: looked at {where}{why}",
            "point --state-dir (or OPENCLAW_STATE_DIR) at OpenClaw's state folder, choose the agent "
            "with --agent ID, or name the store with --sessions PATH",
        )


def _store_of(path: Path, agent: str | None = None) -> Store:
    if is_database(path):
        return Store(path, False, "sqlite", agent)
    return Store(path, _legacy(path), "json", agent)


def search_stores(
    root: Path, named: Path | None = None, openclaw: OpenClaw | None = None, agent: str | None = None
) -> StoreSearch:
    """The stores to work on: the one named (a sessions.json or an OpenClaw database), else
    the workspace's own sessions.json and those of the OpenClaw agents whose workspace `root`
    is (`agent` chooses one of them; another agent's is refused, exit 2)."""
    if named is not None:
        if not named.is_file():
            raise DataError(f"no session store at {named}", "name a sessions.json with --sessions")
        return StoreSearch((_store_of(named),), (str(named),), openclaw, ())
    looked: list[str] = []
    found: list[Store] = []
    own = root / STORE_NAME
    looked.append(str(own))
    agents: list[Agent] = []
    if openclaw is not None:
        agents = openclaw.agents_of(root)
        if agent is not None:
            chosen = openclaw.agent(agent)
            if chosen is None:
                raise no_such_agent(openclaw, agent)
            if chosen not in agents:
                raise UsageError(
                    f"{root} is not the workspace of agent {chosen.id!r} (its workspace is "
                    f"{chosen.workspace}); one agent's sessions are never written into another agent's notes",
                    f"run with -w {chosen.workspace}, or with --agent {chosen.id} and no -w",
                )
            agents = [chosen]
    if own.is_file() and (agent is None or any(_same(own, a.store) for a in agents)):
        found.append(_store_of(own, next((a.id for a in agents if _same(own, a.store)), None)))
    for a in agents:
        looked += [str(a.database), str(a.store)]
        if a.database.is_file():
            found.append(Store(a.database, False, "sqlite", a.id))
        if a.store.is_file() and not any(_same(a.store, s.path) for s in found):
            found.append(Store(a.store, _legacy(a.store), "json", a.id))
    if openclaw is not None and not agents:
        looked.append(f"{openclaw.state}/agents/")
    return StoreSearch(tuple(found), tuple(looked), openclaw, tuple(a.id for a in agents))


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def find_stores(
    root: Path, named: Path | None = None, openclaw: OpenClaw | None = None, agent: str | None = None
) -> list[Store]:
    return list(search_stores(root, named, openclaw, agent).stores)


def state_dir(environ: Mapping[str, str] = os.environ) -> Path | None:
    """OpenClaw's state folder when OPENCLAW_STATE_DIR names one."""
    named = environ.get("OPENCLAW_STATE_DIR")
    return Path(named).expanduser() if named else None


LEGACY_WHY = "legacy store: OpenClaw 2026.8+ keeps sessions in its SQLite database; not written"


def _legacy(store: Path) -> bool:
    """OpenClaw >= 2026.8 keeps sessions in agents/<id>/agent/openclaw-agent.sqlite (the
    store's real folder decides: a workspace's sessions.json may link to OpenClaw's)."""
    real = Path(os.path.realpath(store))
    agent = real.parent.parent
    return (agent / "agent" / SQLITE_NAME).is_file() or (real.parent / SQLITE_NAME).is_file()


def lock_path(store: Path) -> Path:
    """`<file>.lock` beside the real file (a store reached through a symlink is locked where
    OpenClaw, which opens it by its own path, locks it)."""
    real = Path(os.path.realpath(store))
    return real.with_name(real.name + LOCK_SUFFIX)


def openclaw_home(environ: Mapping[str, str] = os.environ) -> Path:
    """OpenClaw's state folder: $OPENCLAW_STATE_DIR, else ~/.openclaw."""
    return state_dir(environ) or Path.home() / ".openclaw"


def store_target(store: Path, root: Path, state: Path | None = None) -> Path:
    """The file a write of `store` replaces: the store itself, or the file it links to (the
    link is kept). A link is followed only into the workspace, OpenClaw's state folder or
    its own folder; anywhere else, DataError (exit 3) before anything is written."""
    if not store.is_symlink():
        return store
    real = Path(os.path.realpath(store))
    name = display(store, root)
    if not real.is_file():
        raise DataError(f"{name} is a symlink to {real}, which is not a file", "nothing was written")
    places = [root, openclaw_home(), store.parent] + ([state] if state is not None else [])
    if not any(is_inside(real, place) for place in places):
        raise DataError(
            f"{name} is a symlink to {real}, outside the workspace and OpenClaw's state folder; "
            "nothing was written",
            f"set OPENCLAW_STATE_DIR to the folder that holds it, or name the store itself "
            f"with --sessions {real}",
        )
    return real


@contextlib.contextmanager
def store_lock(
    store: Path,
    wait: float = WAIT_SECONDS,
    stale: float = STALE_SECONDS,
    clock: Callable[[], float] = time.time,
) -> Iterator[None]:
    """OpenClaw's lock on a store (or a transcript): a file created exclusively holding
    `{pid, createdAt}` (ms). It is taken over when its holder is gone (the pid runs no
    process) or it is older than `stale` seconds (by `createdAt`); a lock whose content
    is not such a record (empty or half-written: its owner is still writing it, or a
    stranger's) is judged by its file time alone, live while it is younger than `stale`.
    A live one is waited for up to `wait` seconds, then LockTimeout (exit 4).

    memcli's own lock appears with its record already in it (made as an unnamed file,
    then linked in place): memcli never leaves an empty one, not even when killed at that
    instant. Where the system cannot do that, it is created, then written."""
    path = lock_path(store)
    deadline = time.monotonic() + wait
    while True:
        record = json.dumps({"pid": os.getpid(), "createdAt": int(clock() * 1000)}).encode()
        if _create(path, record):
            break
        if _take_over(path, stale, clock):
            continue
        if time.monotonic() >= deadline:
            unnamed = (
                ""
                if _holder(path) is not None
                else f" (it names no owner yet: it is live until {stale:g} s old)"
            )
            raise LockTimeout(
                f"{path.name} is held by another process (OpenClaw or memcli); nothing was written",
                f"it was waited for {wait:g} s{unnamed}; run again later",
            ) from None
        time.sleep(POLL_SECONDS)
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _create(path: Path, record: bytes) -> bool:
    """Create the lock file holding `record`; False when a lock is there already."""
    if hasattr(os, "O_TMPFILE"):
        try:
            return _link_whole(path, record)
        except OSError:
            pass  # no unnamed files on this file system, or no /proc: created, then written
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
    except FileExistsError:
        return False
    try:
        adopt_owner(fd, path.parent)
        _write_all(fd, record)
    finally:
        os.close(fd)
    return True


def _link_whole(path: Path, record: bytes) -> bool:
    """The lock made as an unnamed file (Linux's O_TMPFILE) holding `record`, then linked
    under its name, which fails when the name is taken: it is never seen without its
    record, and a run killed before the link leaves nothing behind."""
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fd = os.open(".", os.O_WRONLY | os.O_TMPFILE, 0o600, dir_fd=folder)
        try:
            adopt_owner(fd, path.parent)
            _write_all(fd, record)
            try:
                # through /proc, which linkat follows (os.link uses linkat with dst_dir_fd)
                os.link(f"/proc/self/fd/{fd}", path.name, dst_dir_fd=folder)
            except FileExistsError:
                return False
            return True
        finally:
            os.close(fd)
    finally:
        os.close(folder)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _take_over(path: Path, stale: float, clock: Callable[[], float]) -> bool:
    """Remove the lock at `path` if it may be taken over; True when it is gone (removed
    here, or by its holder meanwhile), so that it may be created again at once."""
    try:
        seen = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not _stale(path, seen, stale, clock):
        return False
    try:
        now = os.lstat(path)
        # another process may have taken it over since it was judged: remove only that one
        if (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns) == (
            seen.st_dev,
            seen.st_ino,
            seen.st_size,
            seen.st_mtime_ns,
        ):
            os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False  # it cannot be removed (a folder, a folder not writable): waited for
    return True


def _stale(path: Path, seen: os.stat_result, stale: float, clock: Callable[[], float]) -> bool:
    """Whether the lock may be taken over: its holder is gone (a pid that runs no process),
    or it is older than `stale` seconds, by its `createdAt`, else (no record, a record
    without a usable time, a time to come) by its file time. A young lock naming a pid no
    process can have is damaged: DataError (exit 3), nothing written."""
    now = clock()
    file_age = now - seen.st_mtime
    holder = _holder(path)
    if holder is None:
        return file_age > stale  # being written, or not a record at all: its file time decides
    pid, created = holder
    age = now - created if created is not None and created <= now else file_age
    if not possible_pid(pid) and age <= stale:
        raise DataError(
            f"{path.name} names pid {pid}, which no process can have: a damaged lock; nothing was written",
            f"if no OpenClaw is running, remove {path} (it is taken over once {stale:g} s old)",
        )
    if not pid_alive(pid):
        return True
    return age > stale


def _holder(path: Path) -> tuple[int, float | None] | None:
    """The lock's record: its holder's pid and its `createdAt` in seconds (None when it
    has none that is a time); None when it holds no such record (empty, half-written,
    not JSON, no integer pid, too long, unreadable)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW)
        try:
            data = os.read(fd, MAX_LOCK_BYTES + 1)
        finally:
            os.close(fd)
    except OSError:
        return None
    if len(data) > MAX_LOCK_BYTES:
        return None
    try:
        record = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    if not isinstance(record, dict):
        return None
    pid = record.get("pid")
    if type(pid) is not int:  # not a bool, a float or a string
        return None
    created = record.get("createdAt")
    if isinstance(created, bool) or not isinstance(created, int | float):
        return pid, None
    try:
        seconds = float(created) / 1000.0
    except OverflowError:
        return pid, None
    return pid, seconds if math.isfinite(seconds) else None


def render_store(data: dict[str, Any], name: str = STORE_NAME) -> bytes:
    """2-space JSON, keys in their order, non-ASCII kept (as OpenClaw writes it). A number
    read as Verbatim gets its own text back; anything else JSON cannot hold is DataError."""
    marks: dict[str, str] = {}
    try:
        text = json.dumps(
            _marked(data, marks, secrets.token_hex(16)), indent=2, ensure_ascii=False, allow_nan=False
        )
    except ValueError:
        raise DataError(
            f"{name} would hold a number that is not JSON (inf or nan)", "nothing was written"
        ) from None
    except RecursionError:
        raise DataError(
            f"{name} nests its JSON too deeply to be written back", "nothing was written"
        ) from None
    for mark, number in marks.items():
        text = text.replace(mark, number, 1)
    return (text + "\n").encode("utf-8")


def _marked(value: Any, marks: dict[str, str], token: str) -> Any:
    """`value` with each Verbatim number replaced by a unique string, its JSON text (the mark
    render_store swaps for the number's own text) recorded in `marks`."""
    if isinstance(value, Verbatim):
        mark = f"\x00memcli-number-{token}-{len(marks)}"
        marks[json.dumps(mark)] = value.text
        return mark
    if isinstance(value, dict):
        return {key: _marked(item, marks, token) for key, item in value.items()}
    if isinstance(value, list):
        return [_marked(item, marks, token) for item in value]
    return value


def update_store(
    store: Path, root: Path, change: Callable[[dict[str, Any]], bool], wait: float = WAIT_SECONDS
) -> bool:
    """Under the store's lock: re-read it, apply `change` (True when it changed something),
    write it back. The file's mode is kept; nothing is written when nothing changed. A
    store linked elsewhere is written through the link (store_target); one that could not
    be written back is refused before `change` runs, so that it writes nothing either."""
    target = store_target(store, root)
    name = display(store, root)
    with store_lock(target, wait):
        remove_dead_temp_files(target)  # left by a run killed while it wrote the store
        state = read_state(target, root, MAX_STORE_BYTES, allow_outside=True)
        data = read_store(store, root)
        render_store(data, name)
        if not change(data):
            return False
        replace_file(target, render_store(data, name), state.mode)  # not atomic_write: nothing appends to it
        return True


def describe(store: Store, root: Path) -> str:
    note = " (legacy: OpenClaw 2026.8+ keeps sessions in its SQLite database)" if store.legacy else ""
    return display(store.path, root) + note


@dataclass(frozen=True, slots=True)
class SessionRef:
    """A session as a command first finds it: its store's entry, and where its transcript
    is (a JSON store's file, or the events of a database) with its size, without reading
    it. `problem` says why it has no transcript to read; `refused` that the store names
    one memcli must not read (a path out of the sessions folder, a NUL), which makes the
    command end with exit 3 once the other sessions are done."""

    store: Store
    key: str
    entry: dict[str, Any]
    transcript: Path | None = None
    size: int | None = None  # the transcript's bytes
    session_id: str | None = None
    last_seq: int | None = None  # a database session's last event
    note: str | None = None
    problem: str | None = None
    refused: bool = False


@dataclass
class Listing:
    refs: list[SessionRef]
    problems: list[str]  # stores that could not be read, rows left out


def ref_of(store: Store, key: str, entry: dict[str, Any]) -> SessionRef:
    """A JSON store's session with its transcript located and sized (one stat, no read)."""
    session_id = entry.get("sessionId") if isinstance(entry.get("sessionId"), str) else None
    try:
        found = locate(store.path, entry, key)
    except DataError as exc:
        return SessionRef(store, key, entry, session_id=session_id, problem=exc.one_line(), refused=True)
    size = None
    if found.path is not None:
        try:
            size = found.path.stat().st_size
        except OSError as exc:
            return SessionRef(
                store, key, entry, None, None, session_id, None, found.note, f"its transcript: {exc.strerror}"
            )
    return SessionRef(store, key, entry, found.path, size, session_id, None, found.note, found.problem)


def list_sessions(
    root: Path,
    stores: Sequence[Store],
    key: str | None = None,
    strict: bool = True,
    timeout: float = BUSY_SECONDS,
    named: bool = False,
) -> Listing:
    """Every session of `stores` (or the one `key`), each store read once. A store that
    cannot be read raises when `strict`, else is named in `problems`. A `key` no store
    holds is refused (DataError)."""
    refs: list[SessionRef] = []
    problems: list[str] = []
    for store in stores:
        try:
            if store.database:
                read = read_sessions(store.path, timeout, key)
                problems += read.problems
                for s in read.sessions:
                    refs.append(
                        SessionRef(store, s.key, s.entry, None, s.events_bytes, s.session_id, s.last_seq)
                    )
                continue
            data = read_store(store.path, root)
        except (DataError, LockTimeout) as exc:
            if strict:
                raise
            problems.append(exc.one_line())
            continue
        if key is not None and key not in data and named:
            known = ", ".join(list(data)[:8]) or "none"
            raise DataError(f"no session {key!r} in {store.path.name}", f"sessions: {known}")
        for name in [key] if key is not None else list(data):
            entry = data.get(name)
            if isinstance(entry, dict):
                refs.append(ref_of(store, name, entry))
    if key is not None and not refs:
        raise DataError(f"no session {key!r} in any session store", "list them with `memcli status`")
    return Listing(refs, problems)


def sessions_of(
    root: Path, key: str | None = None, named: Path | None = None, openclaw: OpenClaw | None = None
) -> Iterator[tuple[Store, str, dict[str, Any]]]:
    """Each session (store, key, entry) of the JSON stores memcli works on, or the one `key`:
    refused when the named store lacks it, or when no store holds it."""
    found = search_stores(root, named, openclaw if openclaw is not None else load_openclaw())
    stores = [s for s in found.stores if not s.database]
    for ref in list_sessions(root, stores, key, named=named is not None).refs:
        yield ref.store, ref.key, ref.entry

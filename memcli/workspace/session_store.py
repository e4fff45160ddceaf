"""OpenClaw's session store, read and written the way OpenClaw does (SPEC §9).

`sessions.json` maps session keys to entries. memcli keeps every field it does not
know and the order of keys; it writes only under OpenClaw's own lock,
`sessions.json.lock` (created exclusively, `{"pid", "createdAt"}`, stale after 30 s),
re-reads the store inside the lock, and replaces it with 2-space JSON through a temp
file and a rename, keeping its mode. OpenClaw 2026.8 and later keep sessions in
`agents/<id>/agent/openclaw-agent.sqlite`; a JSON store beside such a database is
legacy, and memcli never writes to the database.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.errors import DataError, LockTimeout
from memcli.workspace.files import display, read_state, replace_file
from memcli.workspace.transcripts import STORE_NAME, read_store

LOCK_SUFFIX = ".lock"
STALE_SECONDS = 30.0
WAIT_SECONDS = 10.0
POLL_SECONDS = 0.05
MAX_STORE_BYTES = 64 << 20
SQLITE_NAME = "openclaw-agent.sqlite"


@dataclass(frozen=True, slots=True)
class Store:
    path: Path
    legacy: bool  # an OpenClaw >= 2026.8 database sits beside it: OpenClaw no longer reads it


def find_stores(root: Path, named: Path | None = None, state_dir: Path | None = None) -> list[Store]:
    """The stores to work on: the one named, else the workspace's sessions.json, and those
    of OpenClaw's state folder (`agents/*/sessions/sessions.json`)."""
    if named is not None:
        if not named.is_file():
            raise DataError(f"no session store at {named}", "name a sessions.json with --sessions")
        return [Store(named, _legacy(named))]
    found = []
    if (root / STORE_NAME).is_file():
        found.append(root / STORE_NAME)
    if state_dir is not None and (state_dir / "agents").is_dir():
        found += sorted((state_dir / "agents").glob(f"*/sessions/{STORE_NAME}"))
    return [Store(p, _legacy(p)) for p in found]


def state_dir(environ: Mapping[str, str] = os.environ) -> Path | None:
    """OpenClaw's state folder when OPENCLAW_STATE_DIR names one (memcli does not go looking
    in the home folder on its own)."""
    named = environ.get("OPENCLAW_STATE_DIR")
    return Path(named).expanduser() if named else None


LEGACY_WHY = "legacy store: OpenClaw 2026.8+ keeps sessions in its SQLite database; not written"


def _legacy(store: Path) -> bool:
    """OpenClaw >= 2026.8 keeps sessions in agents/<id>/agent/openclaw-agent.sqlite."""
    agent = store.parent.parent
    return (agent / "agent" / SQLITE_NAME).is_file() or (store.parent / SQLITE_NAME).is_file()


def lock_path(store: Path) -> Path:
    return store.with_name(store.name + LOCK_SUFFIX)


@contextlib.contextmanager
def store_lock(
    store: Path,
    wait: float = WAIT_SECONDS,
    stale: float = STALE_SECONDS,
    clock: Callable[[], float] = time.time,
) -> Iterator[None]:
    """OpenClaw's lock on a store: a file created exclusively holding `{pid, createdAt}`
    (ms). One older than `stale` seconds, or left by a process that is gone, is taken over;
    a live one is waited for up to `wait` seconds, then LockTimeout (exit 4)."""
    path = lock_path(store)
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            if _stale(path, stale, clock):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
                continue
            if time.monotonic() >= deadline:
                raise LockTimeout(
                    f"{path.name} is held by another process (OpenClaw or memcli); nothing was written",
                    f"it was waited for {wait:g} s; run again later",
                ) from None
            time.sleep(POLL_SECONDS)
            continue
        try:
            os.write(fd, json.dumps({"pid": os.getpid(), "createdAt": int(clock() * 1000)}).encode())
        finally:
            os.close(fd)
        break
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _stale(path: Path, stale: float, clock: Callable[[], float]) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
        created = float(data.get("createdAt", 0)) / 1000.0
        pid = int(data.get("pid", 0))
    except (OSError, ValueError, TypeError, AttributeError):
        try:
            created, pid = path.stat().st_mtime, 0
        except FileNotFoundError:
            return False
    if clock() - created > stale:
        return True
    if pid > 0:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
    return False


def render_store(data: dict[str, Any]) -> bytes:
    """2-space JSON, keys in their order, non-ASCII kept (as OpenClaw writes it)."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def update_store(
    store: Path, root: Path, change: Callable[[dict[str, Any]], bool], wait: float = WAIT_SECONDS
) -> bool:
    """Under the store's lock: re-read it, apply `change` (True when it changed something),
    write it back. The file's mode is kept; nothing is written when nothing changed."""
    with store_lock(store, wait):
        state = read_state(store, root, MAX_STORE_BYTES, allow_outside=True)
        data = read_store(store, root)
        if not change(data):
            return False
        replace_file(store, render_store(data), state.mode)  # not atomic_write: nothing appends to it
        return True


def describe(store: Store, root: Path) -> str:
    note = " (legacy: OpenClaw 2026.8+ keeps sessions in its SQLite database)" if store.legacy else ""
    return display(store.path, root) + note


def sessions_of(
    root: Path, key: str | None = None, named: Path | None = None
) -> Iterator[tuple[Store, str, dict[str, Any]]]:
    """Each session (store, key, entry) of the stores memcli works on, or the one `key`:
    refused when the named store lacks it, or when no store holds it."""
    found_any = False
    for store in find_stores(root, named, state_dir()):
        sessions = read_store(store.path, root)
        if key is not None and key not in sessions:
            if named is None:
                continue  # another store may hold it
            known = ", ".join(list(sessions)[:8]) or "none"
            raise DataError(f"no session {key!r} in {store.path.name}", f"sessions: {known}")
        for name in [key] if key is not None else list(sessions):
            entry = sessions[name]
            if isinstance(entry, dict):
                found_any = True
                yield store, name, entry
    if key is not None and not found_any:
        raise DataError(f"no session {key!r} in any session store", "list them with `memcli status`")

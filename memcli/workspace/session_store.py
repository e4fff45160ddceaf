"""OpenClaw's session store, read and written the way OpenClaw does (SPEC §9).

`sessions.json` maps session keys to entries. memcli keeps every field it does not
know and the order of keys; it writes only under OpenClaw's own lock,
`sessions.json.lock` (created exclusively, `{"pid", "createdAt"}`, stale after 30 s),
re-reads the store inside the lock, and replaces it with 2-space JSON through a temp
file and a rename, keeping its mode. OpenClaw 2026.8 and later keep sessions in
`agents/<id>/agent/openclaw-agent.sqlite`; a JSON store beside such a database is
legacy, and memcli never writes to the database.

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
import os
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.errors import DataError, LockTimeout
from memcli.workspace.files import display, is_inside, read_state, remove_dead_temp_files, replace_file
from memcli.workspace.transcripts import STORE_NAME, Verbatim, read_store

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
    """`<file>.lock` beside the real file (a store reached through a symlink is locked where
    OpenClaw, which opens it by its own path, locks it)."""
    real = Path(os.path.realpath(store))
    return real.with_name(real.name + LOCK_SUFFIX)


def openclaw_home(environ: Mapping[str, str] = os.environ) -> Path:
    """OpenClaw's state folder: $OPENCLAW_STATE_DIR, else ~/.openclaw."""
    return state_dir(environ) or Path.home() / ".openclaw"


def store_target(store: Path, root: Path) -> Path:
    """The file a write of `store` replaces: the store itself, or the file it links to (the
    link is kept). A link is followed only into the workspace, OpenClaw's state folder or
    its own folder; anywhere else, DataError (exit 3) before anything is written."""
    if not store.is_symlink():
        return store
    real = Path(os.path.realpath(store))
    name = display(store, root)
    if not real.is_file():
        raise DataError(f"{name} is a symlink to {real}, which is not a file", "nothing was written")
    if not any(is_inside(real, place) for place in (root, openclaw_home(), store.parent)):
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

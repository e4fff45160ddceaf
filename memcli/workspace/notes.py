"""Adding to daily notes: the one way memcli writes into a note that is still open."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memcli.core.compose import daily_note, separator_before
from memcli.core.roles import daily_note_rel
from memcli.errors import DataError
from memcli.workspace.files import (
    append_bytes,
    append_payload,
    create_text,
    decode,
    display,
    ensure_writable,
    make_dirs,
    read_state,
    read_text,
    recover_carried,
    remove_stale_temp_files,
)
from memcli.workspace.layout import scan
from memcli.workspace.lock import Holder, WorkspaceLock


@dataclass(frozen=True, slots=True)
class Added:
    file: str
    line: int
    created: bool
    stale_lock: Holder | None


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _planned_separator(text: str, entry: str, name: str) -> str:
    sep = separator_before(text, entry)
    if sep is None:
        raise DataError(
            f"{name} ends inside an unclosed code block or comment; a new entry would land in it",
            "close the block at the end of the note first",
        )
    return sep


def check_appendable(root: Path, rel: str, entry: str, max_bytes: int) -> None:
    """Refuse early (before any lock or folder is created) what an append would refuse later."""
    path = root / rel
    if path.exists() or path.is_symlink():
        state, text = read_text(path, root, max_bytes)
        ensure_writable(path, root)
        sep = _planned_separator(text, entry, rel)
        if len(state.data) + len(append_payload(state.data, sep + entry)) > max_bytes:
            raise DataError(
                f"{rel} would grow over max_file_bytes ({max_bytes:,} bytes)",
                "start a new note, or raise max_file_bytes in memcli.toml",
            )
        return
    existing = path.parent
    while not existing.exists():
        existing = existing.parent
    ensure_writable(existing / "_", root)


def add_entry(root: Path, day: date, entry: str, max_bytes: int, lock_timeout: float) -> Added:
    """Append `entry` to the note of `day`, creating it with a heading if needed.

    Everything that could refuse is checked before the workspace lock is taken,
    and again under it; the note's existing bytes are never rewritten.
    """
    rel = daily_note_rel(day)
    check_appendable(root, rel, entry, max_bytes)
    path = root / rel
    with WorkspaceLock(root, "add", lock_timeout) as lock:
        recover_carried(root)
        remove_stale_temp_files(root, scan(root, lenient=True).temp_files)
        make_dirs(path.parent, root)
        if not path.exists() and create_text(path, daily_note(day, entry), root):
            return Added(rel, 3, True, lock.stale)
        state = read_state(path, root, max_bytes)
        text = decode(state.data, display(path, root))
        sep = _planned_separator(text, entry, rel)
        payload = append_payload(state.data, sep + entry)
        ensure_writable(state.path, root)
        append_bytes(state.path, payload)
        line = _line_count(state.data) + 1 + (1 if sep else 0)
        return Added(rel, line, False, lock.stale)

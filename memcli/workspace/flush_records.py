"""memcli's own record of its flushes: `.memcli/flushed.json` (SPEC §9, §14).

Per session (`<kind>:<real store path>#<session key>`): for an OpenClaw 2026.8+ database,
which memcli never writes, the session id, the last event seq flushed, when and in which
compaction cycle (what `memoryFlushAt` says in a sessions.json); for a JSONL transcript,
where the last flush's read stopped (transcripts.Position), so that the next reads only
the lines added since.

memcli's private state: read once, changed under its own lock (`flushed.json.lock`, the
protocol of OpenClaw's store lock) and re-read inside it, replaced whole (temp file,
fsync, rename, mode 0600, the workspace owner's). It is written after the notes and the
store: a run killed in between costs the next flush a longer read (what memory already
holds is not appended twice), never a note. A record that cannot be read is no record.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memcli.core.roles import STATE_DIR
from memcli.workspace.files import make_dirs, remove_dead_temp_files, replace_file, resolve_inside
from memcli.workspace.session_store import Store, store_lock
from memcli.workspace.state import RECORD_MODE, read_record

RECORD_NAME = "flushed.json"


def record_key(store: Store, key: str) -> str:
    return f"{store.kind}:{os.path.realpath(store.path)}#{key}"


class Records:
    """`.memcli/flushed.json`, read on first use."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._data: dict[str, Any] | None = None

    @staticmethod
    def _read(root: Path) -> dict[str, Any]:
        data = read_record(root, RECORD_NAME)
        sessions = data.get("sessions") if isinstance(data, dict) else None
        return dict(sessions) if isinstance(sessions, dict) else {}

    def get(self, ident: str) -> dict[str, Any] | None:
        if self._data is None:
            self._data = self._read(self.root)
        found = self._data.get(ident)
        return found if isinstance(found, dict) else None

    @contextlib.contextmanager
    def locked(self, wait: float) -> Iterator[Records]:
        """The record re-read under its lock; what is put in it is written at the end."""
        make_dirs(self.root / STATE_DIR, self.root)
        path = self.root / STATE_DIR / RECORD_NAME
        with store_lock(path, wait):
            self._data = self._read(self.root)
            before = json.dumps(self._data, sort_keys=True)
            yield self
            if json.dumps(self._data, sort_keys=True) != before:
                _write(self.root, {"version": 1, "sessions": self._data})

    def put(self, ident: str, value: dict[str, Any]) -> None:
        if self._data is None:
            self._data = self._read(self.root)
        self._data[ident] = value


def _write(root: Path, value: Any) -> None:
    """The record replaced whole (files.replace_file); a temp file a killed writer left is
    removed first."""
    target = resolve_inside(root / STATE_DIR / RECORD_NAME, root)
    remove_dead_temp_files(target)
    replace_file(target, json.dumps(value, indent=1).encode("utf-8"), RECORD_MODE)

"""Reading a session's transcript through the session store (SPEC §9), read-only.

The store is the workspace's `sessions.json` (or the file named); a session's
`sessionFile` is resolved only inside the store's folder, never outside it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.core.conversation import Transcript, parse_transcript
from memcli.errors import DataError
from memcli.workspace.files import decode, display, read_state

STORE_NAME = "sessions.json"
MAX_STORE_BYTES = 64 << 20
MAX_TRANSCRIPT_BYTES = 256 << 20


@dataclass(frozen=True, slots=True)
class Session:
    key: str
    entry: dict[str, Any]
    transcript: Path | None  # None when the entry names no file, or it does not exist


def read_store(path: Path, root: Path) -> dict[str, Any]:
    """The session store, keys in file order; malformed JSON is refused (exit 3)."""
    state = read_state(path, root, MAX_STORE_BYTES, allow_outside=True)
    text = decode(state.data, display(path, root))
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise DataError(f"{display(path, root)} is not valid JSON ({exc})", "nothing was written") from None
    if not isinstance(data, dict):
        raise DataError(f"{display(path, root)} is not a JSON object of sessions")
    return data


def transcript_path(store: Path, entry: dict[str, Any]) -> Path | None:
    """The session's transcript: its `sessionFile`, else `<sessionId>.jsonl` beside the store
    or in its sessions/ folder; refused when it would lead out of the store's folder."""
    folder = store.parent
    named = entry.get("sessionFile")
    candidates: list[Path] = []
    if isinstance(named, str) and named:
        candidates.append(Path(named) if os.path.isabs(named) else folder / named)
    session_id = entry.get("sessionId")
    if isinstance(session_id, str) and session_id:
        candidates += [folder / f"{session_id}.jsonl", folder / "sessions" / f"{session_id}.jsonl"]
    real_folder = Path(os.path.realpath(folder))
    for candidate in candidates:
        real = Path(os.path.realpath(candidate))
        if real_folder not in real.parents:
            raise DataError(
                f"the transcript {named or candidate} of a session lies outside {folder}",
                "memcli reads transcripts only inside the sessions folder",
            )
        if real.is_file():
            return real
    return None


def find_session(root: Path, key: str, store: Path | None = None) -> Session:
    path = store or root / STORE_NAME
    if not path.is_file():
        raise DataError(f"no session store at {display(path, root)}", "name one with --sessions PATH")
    sessions = read_store(path, root)
    entry = sessions.get(key)
    if not isinstance(entry, dict):
        known = ", ".join(list(sessions)[:8]) or "none"
        raise DataError(f"no session {key!r} in {display(path, root)}", f"sessions: {known}")
    return Session(key, entry, transcript_path(path, entry))


def read_transcript(path: Path, root: Path) -> Transcript:
    """The transcript's messages; a 0-byte file is an empty transcript, a broken line is
    reported in `problems` and the rest is read."""
    state = read_state(path, root, MAX_TRANSCRIPT_BYTES, allow_outside=True)
    text = state.data.decode("utf-8", "replace")
    return parse_transcript(text.splitlines(), path.name)

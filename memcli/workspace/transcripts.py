"""Reading a session's transcript through the session store (SPEC §9); the one line
memcli ever adds to a transcript (a compaction entry), appended.

The store is the workspace's `sessions.json` (or the file named); a session's
`sessionFile` is resolved only inside the store's folder, never outside it.

A number too large for a double (`1e999`, valid JSON) or one of the constants JSON5 allows
(`Infinity`, `NaN`) is read as a `Verbatim` float that remembers its text, so that the
store is written back with that text and not as Python's bare `Infinity`.

A transcript is JSONL: its lines end at "\n" (a "\r" before it is tolerated). U+2028,
U+2029, U+0085 and the other characters `str.splitlines` also breaks at are left raw inside
strings by JSON.stringify, so they are part of a line, never the end of one.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.core.conversation import Transcript, parse_transcript
from memcli.core.watching import complete_lines
from memcli.errors import DataError
from memcli.workspace.files import READ_CHUNK, append_bytes, decode, display, newline_of, read_state

STORE_NAME = "sessions.json"
MAX_STORE_BYTES = 64 << 20
MAX_TRANSCRIPT_BYTES = 256 << 20


class Verbatim(float):
    """A number of the store that a double cannot hold (inf or nan), with its original text."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> Verbatim:
        number = super().__new__(cls, text)
        number.text = text
        return number


def _float(text: str) -> float:
    number = float(text)
    return number if math.isfinite(number) else Verbatim(text)


def _constant(text: str) -> float:
    return Verbatim(text)  # Infinity, -Infinity, NaN: JSON5 (OpenClaw's reader) allows them


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
        data = json.loads(text, parse_float=_float, parse_constant=_constant)
    except ValueError as exc:
        raise DataError(f"{display(path, root)} is not valid JSON ({exc})", "nothing was written") from None
    except RecursionError:
        raise DataError(
            f"{display(path, root)} nests its JSON too deeply to be read", "nothing was written"
        ) from None
    if not isinstance(data, dict):
        raise DataError(f"{display(path, root)} is not a JSON object of sessions")
    return data


def transcript_path(store: Path, entry: dict[str, Any], key: str | None = None) -> Path | None:
    """The session's transcript: its `sessionFile`, else `<sessionId>.jsonl` beside the store
    or in its sessions/ folder; refused when it would lead out of the store's folder, or
    when it holds a NUL byte (no file can be named so). `key` names the session in errors.

    A store that is a symlink has two folders: the link's and that of the file it leads to
    (OpenClaw's `agents/<id>/sessions/`, where OpenClaw keeps the transcripts and whose
    absolute paths it writes as `sessionFile`); a transcript is looked for in both, the
    link's first, and may lie in either."""
    named = entry.get("sessionFile")
    session_id = entry.get("sessionId")
    for field, value in (("sessionFile", named), ("sessionId", session_id)):
        if isinstance(value, str) and "\x00" in value:
            session = f"session {key!r}" if key is not None else "a session"
            raise DataError(
                f"{store.name}: the transcript of {session} cannot be found: its {field} {value!r} "
                "holds a NUL byte",
                f"correct {field} in {store.name}",
            )
    folders = [store.parent]
    linked = Path(os.path.realpath(store)).parent
    if linked != Path(os.path.realpath(store.parent)):
        folders.append(linked)
    candidates: list[Path] = []
    if isinstance(named, str) and named:
        candidates += [Path(named)] if os.path.isabs(named) else [folder / named for folder in folders]
    if isinstance(session_id, str) and session_id:
        for folder in folders:
            candidates += [folder / f"{session_id}.jsonl", folder / "sessions" / f"{session_id}.jsonl"]
    real_folders = [Path(os.path.realpath(folder)) for folder in folders]
    for candidate in candidates:
        real = Path(os.path.realpath(candidate))
        if not any(folder in real.parents for folder in real_folders):
            raise DataError(
                f"the transcript {named or candidate} of a session lies outside "
                + " and ".join(str(folder) for folder in folders),
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
    return Session(key, entry, transcript_path(path, entry, key))


def read_transcript(path: Path, root: Path) -> Transcript:
    """The transcript's messages; a 0-byte file is an empty transcript, a broken line is
    reported in `problems` and the rest is read."""
    state = read_state(path, root, MAX_TRANSCRIPT_BYTES, allow_outside=True)
    text = state.data.decode("utf-8", "replace")
    return parse_transcript(jsonl_lines(text), path.name)


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSONL text: split at "\n" only (not at U+2028 and the like, which JSON
    leaves raw inside strings), a "\r" before it dropped."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()  # the final newline ends the last line; it does not start another
    return [line.removesuffix("\r") for line in lines]


def append_entry(path: Path, entry: dict[str, Any]) -> None:
    """One JSON line at the end of a transcript (the caller holds the store's lock), after a
    line break in the file's own style when its last line has none."""
    data = path.read_bytes()
    line = json.dumps(entry, ensure_ascii=False).encode("utf-8") + b"\n"
    if data and not data.endswith(b"\n"):
        line = newline_of(data) + line
    append_bytes(path, line)


def count_in_new_lines(
    path: Path, start_at: Callable[[int], int], count: Callable[[list[bytes]], int]
) -> tuple[int, int]:
    """Read a growing transcript from `start_at(its size)` to its last whole line, a chunk
    at a time: the sum of `count` over those lines, and the offset just after them (a line
    still being written is left for the next read)."""
    with open(path, "rb") as f:
        offset = start_at(os.fstat(f.fileno()).st_size)
        f.seek(offset)
        total = 0
        pending = b""
        while chunk := f.read(READ_CHUNK):
            lines, used = complete_lines(pending + chunk)
            total += count(lines)
            offset += used
            pending = (pending + chunk)[used:]
    return total, offset

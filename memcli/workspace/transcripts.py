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

A lone UTF-16 surrogate (`"\ud83d"`: half an emoji, valid JSON but no text, which UTF-8
cannot hold) is refused in the store (DataError naming the line: memcli could not write
it back) and read as U+FFFD in a transcript, which memcli never rewrites, as invalid
UTF-8 bytes are.

memcli adds its line only after the transcript's last line break: a last line still being
written (another process mid-append) is waited for, never split.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.core.conversation import Transcript, parse_transcript
from memcli.core.watching import complete_lines
from memcli.errors import ConflictError, DataError
from memcli.workspace.files import READ_CHUNK, append_bytes, decode, display, newline_of, read_state

STORE_NAME = "sessions.json"
MAX_STORE_BYTES = 64 << 20
MAX_TRANSCRIPT_BYTES = 256 << 20
LINE_WAIT_SECONDS = 2.0  # how long a line another process is writing is waited for
LINE_POLL_SECONDS = 0.02
TORN_SECONDS = 30.0  # a last line unfinished and untouched this long has no writer any more

# JSON escapes, one at a time from the left (so that `\\` never starts one): a surrogate
# pair, a lone surrogate (6 characters), any other escape
_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}|\\.",
    re.DOTALL,
)
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


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
    """The session store, keys in file order; malformed JSON, or a string holding a lone
    surrogate (which memcli could not write back), is refused (exit 3)."""
    state = read_state(path, root, MAX_STORE_BYTES, allow_outside=True)
    text = decode(state.data, display(path, root))
    lone = next(lone_surrogates(text), None)
    if lone is not None:
        raise DataError(
            f"{display(path, root)}: line {text.count(chr(10), 0, lone.start()) + 1} holds a lone "
            f"UTF-16 surrogate ({lone.group()}, half a character), which is not text and could not "
            "be written back",
            "nothing was written; remove it, or complete the character",
        )
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
    reported in `problems` and the rest is read; invalid UTF-8 and lone surrogates are read
    as U+FFFD."""
    state = read_state(path, root, MAX_TRANSCRIPT_BYTES, allow_outside=True)
    text = state.data.decode("utf-8", "replace")
    lines = jsonl_lines(text)
    if _MAYBE_SURROGATE.search(text):  # rare: only then is each line looked at
        lines = [_whole_characters(line) for line in lines]
    return parse_transcript(lines, path.name)


def lone_surrogates(text: str) -> Iterator[re.Match[str]]:
    """The escapes of a JSON text (`\\ud83d`) that stand for a lone UTF-16 surrogate: half
    a character, which json.loads reads as such and UTF-8 cannot encode."""
    if not _MAYBE_SURROGATE.search(text):
        return
    for escape in _ESCAPE.finditer(text):
        if len(escape.group()) == 6 and escape.group()[2] in "dD":
            yield escape


def _whole_characters(line: str) -> str:
    """A JSON line with each escape of a lone surrogate replaced by U+FFFD (as `decode`
    with "replace" does for invalid UTF-8): what memcli takes from it can be written."""
    if not _MAYBE_SURROGATE.search(line):
        return line
    return _ESCAPE.sub(
        lambda m: "\\ufffd" if len(m.group()) == 6 and m.group()[2] in "dD" else m.group(), line
    )


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSONL text: split at "\n" only (not at U+2028 and the like, which JSON
    leaves raw inside strings), a "\r" before it dropped."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()  # the final newline ends the last line; it does not start another
    return [line.removesuffix("\r") for line in lines]


def append_entry(path: Path, entry: dict[str, Any], root: Path | None = None) -> None:
    """One JSON line at the end of a transcript (the caller holds its lock and has waited
    for its last line, wait_for_whole_lines). A last line without a line break is ended
    first, in the file's own style, only when it was left by a writer that is gone (it has
    not changed for TORN_SECONDS); one still being written is ConflictError: memcli's line
    never lands inside another's."""
    text = json.dumps(entry, ensure_ascii=False)
    try:
        line = text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate: written as its escape, the same JSON value
        line = json.dumps(entry).encode("ascii") + b"\n"
    last, age = _tail(path)
    if last not in (b"", b"\n"):
        if age <= TORN_SECONDS:
            raise _being_written(path, root, 0.0)
        line = newline_of(path.read_bytes()) + line
    append_bytes(path, line)


def wait_for_whole_lines(path: Path, root: Path | None = None, wait: float = LINE_WAIT_SECONDS) -> bool:
    """Return once the transcript ends at a line break (or is empty, or its unfinished last
    line has not changed for TORN_SECONDS: its writer died mid-line): True when it had to
    wait for another process to finish its line. Still unfinished after `wait` seconds:
    ConflictError (exit 4)."""
    deadline = time.monotonic() + wait
    waited = False
    while True:
        last, age = _tail(path)
        if last in (b"", b"\n") or age > TORN_SECONDS:
            return waited
        if time.monotonic() >= deadline:
            raise _being_written(path, root, wait)
        waited = True
        time.sleep(LINE_POLL_SECONDS)


def _tail(path: Path) -> tuple[bytes, float]:
    """The file's last byte (b"" when empty) and the seconds since it last changed."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if st.st_size == 0:
            return b"", time.time() - st.st_mtime
        f.seek(st.st_size - 1)
        return f.read(1), time.time() - st.st_mtime


def _being_written(path: Path, root: Path | None, wait: float) -> ConflictError:
    waited = f" (not finished after {wait:g} s)" if wait else ""
    return ConflictError(
        f"{display(path, root)} ends in a line another process is still writing{waited}",
        "memcli never adds its line inside another's; run again once it is finished",
    )


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

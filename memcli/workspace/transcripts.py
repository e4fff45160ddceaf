"""Reading a session's transcript through the session store (SPEC §9); the one line
memcli ever adds to a transcript (a compaction entry), appended.

A session's `sessionFile` is resolved only inside its store's folder, never outside it; a
stale absolute path (a restored backup) is looked up there by its file name (`locate`).
A flush reads only the lines added since its last read (`read_since`, from a `Position`).

A number too large for a double (`1e999`, valid JSON) or one of the constants JSON5 allows
(`Infinity`, `NaN`) is read as a `Verbatim` float that remembers its text, so that the
store is written back with that text and not as Python's bare `Infinity`.

A transcript is JSONL: its lines end at "\n" (a "\r" before it is tolerated). U+2028,
U+2029, U+0085 and the other characters `str.splitlines` also breaks at are left raw inside
strings by JSON.stringify, so they are part of a line, never the end of one.

A lone UTF-16 surrogate (`"\\ud83d"`: half an emoji, valid JSON but no text, which UTF-8
cannot hold) is refused in the store (DataError naming the line: memcli could not write
it back) and read as U+FFFD in a transcript, which memcli never rewrites, as invalid
UTF-8 bytes are.

memcli adds its line only after the transcript's last line break: a last line still being
written (another process mid-append) is waited for, never split.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from memcli.core.conversation import Transcript, parse_transcript
from memcli.core.sessions import is_history
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


@dataclass(frozen=True, slots=True)
class Located:
    """Where a session's transcript is: `path`, or None and `problem` saying why there is
    none to read (missing; an archive, which is history). `note` says how it was found when
    not where the store names it (a stale absolute path, found by its name)."""

    path: Path | None
    note: str | None = None
    problem: str | None = None


def transcript_path(store: Path, entry: dict[str, Any], key: str | None = None) -> Path | None:
    """The session's transcript (see `locate`), None when there is none to read."""
    return locate(store, entry, key).path


def locate(store: Path, entry: dict[str, Any], key: str | None = None) -> Located:
    """The session's transcript: its `sessionFile`, else `<sessionId>.jsonl` beside the store
    or in its sessions/ folder. Refused (DataError) when it would lead out of the store's
    folder, or when it holds a NUL byte (no file can be named so). `key` names the session
    in errors.

    An absolute `sessionFile` outside the folder is a stale path (a restored backup, another
    home): the file of the same name in the folder is used, and the result says so. Only an
    absolute path to a file that exists elsewhere, with no file of its name here, is refused.
    A transcript named as one of OpenClaw's archives (`.reset.`, `.deleted.`, `.bak`) is
    history: never read for a flush or a compaction.

    A store that is a symlink has two folders: the link's and that of the file it leads to
    (OpenClaw's `agents/<id>/sessions/`, where OpenClaw keeps the transcripts and whose
    absolute paths it writes as `sessionFile`); a transcript is looked for in both, the
    link's first, and may lie in either."""
    named = entry.get("sessionFile")
    session_id = entry.get("sessionId")
    session = f"session {key!r}" if key is not None else "a session"
    for field_name, value in (("sessionFile", named), ("sessionId", session_id)):
        if isinstance(value, str) and "\x00" in value:
            raise DataError(
                f"{store.name}: the transcript of {session} cannot be found: its {field_name} {value!r} "
                "holds a NUL byte",
                f"correct {field_name} in {store.name}",
            )
    folders = [store.parent]
    linked = Path(os.path.realpath(store)).parent
    if linked != Path(os.path.realpath(store.parent)):
        folders.append(linked)
    real_folders = [Path(os.path.realpath(folder)) for folder in folders]

    def inside(real: Path) -> bool:
        return any(folder in real.parents for folder in real_folders)

    def outside(what: object) -> DataError:
        return DataError(
            f"the transcript {what} of {session} lies outside "
            + " and ".join(str(folder) for folder in folders),
            "memcli reads transcripts only inside the sessions folder",
        )

    note: str | None = None
    if isinstance(named, str) and named:
        if os.path.isabs(named):
            real = Path(os.path.realpath(named))
            if inside(real):
                if real.is_file():
                    return _live(real, None)
            else:
                base = PurePosixPath(named).name
                for folder in folders if base else []:
                    for place in (folder, folder / "sessions"):
                        candidate = Path(os.path.realpath(place / base))
                        if inside(candidate) and candidate.is_file():
                            return _live(
                                candidate,
                                f"its sessionFile {named} is not in {folder}; the transcript of that "
                                f"name there ({candidate.name}) is used (a restored backup?)",
                            )
                if os.path.exists(named):
                    raise outside(named)
                note = f"its sessionFile {named} does not exist"
        else:
            for folder in folders:
                real = Path(os.path.realpath(folder / named))
                if not inside(real):
                    raise outside(named)
                if real.is_file():
                    return _live(real, None)
    if isinstance(session_id, str) and session_id:
        for folder in folders:
            for candidate in (folder / f"{session_id}.jsonl", folder / "sessions" / f"{session_id}.jsonl"):
                real = Path(os.path.realpath(candidate))
                if not inside(real):
                    raise outside(candidate)
                if real.is_file():
                    found = f"{note}; {real.name} is used" if note else None
                    return _live(real, found)
    what = named if isinstance(named, str) and named else f"{session_id}.jsonl" if session_id else None
    problem = f"its transcript {what} does not exist" if what else "it names no transcript"
    return Located(None, note, problem)


def _live(path: Path, note: str | None) -> Located:
    kind = is_history(path.name)
    if kind is not None:
        return Located(
            None,
            note,
            f"its transcript {path.name} is an archive ({kind}): history, never flushed or compacted",
        )
    return Located(path, note)


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


@dataclass(frozen=True, slots=True)
class Position:
    """Where a read of a transcript stopped: its file (device, inode), the offset after its
    last whole line, and a hash of the bytes just before that offset, so that a file
    rewritten or replaced since is told from one that only grew."""

    dev: int
    ino: int
    offset: int
    tail: str

    def to_json(self) -> dict[str, Any]:
        return {"dev": self.dev, "ino": self.ino, "offset": self.offset, "tail": self.tail}

    @staticmethod
    def from_json(data: Any) -> Position | None:
        if not isinstance(data, dict):
            return None
        try:
            dev, ino, offset, tail = (data["dev"], data["ino"], data["offset"], data["tail"])
        except KeyError:
            return None
        if not all(type(v) is int for v in (dev, ino, offset)) or not isinstance(tail, str) or offset < 0:
            return None
        return Position(dev, ino, offset, tail)


TAIL_BYTES = 256


def _tail_hash(fd: int, offset: int) -> str:
    start = max(0, offset - TAIL_BYTES)
    return hashlib.sha256(os.pread(fd, offset - start, start)).hexdigest()


def read_since(path: Path, root: Path, since: Position | None = None) -> tuple[Transcript, Position, bool]:
    """The transcript's whole lines after `since` (where an earlier read stopped), or all of
    them when the file is not the one read then, or no longer holds those bytes; a line
    still being written is left for the next read. Returns the messages, where this read
    stopped, and whether it read the file from its start. Decoding as read_transcript."""
    name = display(path, root)
    try:
        fd = os.open(os.path.realpath(path), os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise DataError(f"{name} does not exist") from None
    except OSError as exc:
        raise DataError(f"{name} cannot be read: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise DataError(f"{name} is not a regular file", "memcli reads transcripts only from files")
        if st.st_size > MAX_TRANSCRIPT_BYTES:
            raise DataError(
                f"{name} is over {MAX_TRANSCRIPT_BYTES >> 20} MiB",
                "memcli does not read transcripts that large",
            )
        start = 0
        if (
            since is not None
            and (since.dev, since.ino) == (st.st_dev, st.st_ino)
            and since.offset <= st.st_size
            and _tail_hash(fd, since.offset) == since.tail
        ):
            start = since.offset
        chunks: list[bytes] = []
        offset = start
        while chunk := os.pread(fd, READ_CHUNK, offset):
            chunks.append(chunk)
            offset += len(chunk)
        data = b"".join(chunks)
        end = data.rfind(b"\n") + 1  # whole lines only
        stop = Position(st.st_dev, st.st_ino, start + end, _tail_hash(fd, start + end))
    except OSError as exc:
        raise DataError(f"{name} cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    text = data[:end].decode("utf-8", "replace")
    lines = jsonl_lines(text)
    if _MAYBE_SURROGATE.search(text):
        lines = [_whole_characters(line) for line in lines]
    return parse_transcript(lines, path.name), stop, start == 0


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

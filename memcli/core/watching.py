"""When `memcli watch` acts, and what it counts (SPEC §11).

Pure: times (seconds of a monotonic clock), paths and transcript bytes come in, decisions
come out. The daemon that feeds them events and reads the files is memcli.watch.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from pathlib import PurePath

from memcli.core.roles import STATE_DIR, TEMP_SUFFIX
from memcli.core.sessions import UNATTENDED

DEBOUNCE_SECONDS = 1.5
MAX_WAIT_SECONDS = 10.0

# memcli's own state, git's, and the scratch files of writers (ours, OpenClaw's, editors'):
# none of them is a change to memory, and our own writes must not wake us again.
IGNORED_DIRS = frozenset({STATE_DIR, ".git"})
IGNORED_SUFFIXES = (TEMP_SUFFIX, ".lock", ".tmp", ".swp", ".swx", ".swo", "~")


@dataclass
class Debouncer:
    """A burst of events becomes one action `delay` seconds after its last event, or
    `max_wait` seconds after its first when the events never stop (an agent that writes
    every second must still get its flush)."""

    delay: float = DEBOUNCE_SECONDS
    max_wait: float = MAX_WAIT_SECONDS
    first: float | None = None
    last: float | None = None

    def note(self, at: float) -> None:
        if self.first is None:
            self.first = at
        self.last = at if self.last is None else max(self.last, at)

    @property
    def pending(self) -> bool:
        return self.first is not None

    def due_at(self) -> float | None:
        if self.first is None or self.last is None:
            return None
        return min(self.last + self.delay, self.first + max(self.max_wait, self.delay))

    def due(self, now: float) -> bool:
        at = self.due_at()
        return at is not None and now >= at

    def wait(self, now: float) -> float | None:
        """Seconds until the burst is due; None when nothing is pending."""
        at = self.due_at()
        return None if at is None else max(0.0, at - now)

    def take(self) -> None:
        """The burst is being acted on: events from now on start a new one."""
        self.first = self.last = None


class Change(IntEnum):
    NONE = 0  # not ours to look at
    CHANGE = 1  # something inside a watched folder changed: act after the debounce
    RESYNC = 2  # a watched folder itself (or a folder above it) came or went: re-check the watches


def ignored(parts: Iterable[str]) -> bool:
    """A path (its parts, relative to the watched folder) that is no change to memory."""
    names = list(parts)
    if any(part in IGNORED_DIRS for part in names):
        return True
    name = names[-1] if names else ""
    return name.endswith(IGNORED_SUFFIXES) or name.startswith(".#") or name == "4913"


def classify(path: str, targets: Iterable[str]) -> Change:
    """What an event on `path` means for folders `targets` that should be watched."""
    p = PurePath(path)
    found = Change.NONE
    for target in targets:
        t = PurePath(target)
        if p == t or p in t.parents:
            return Change.RESYNC
        if t in p.parents and not ignored(p.relative_to(t).parts):
            found = Change.CHANGE
    return found


def complete_lines(data: bytes) -> tuple[list[bytes], int]:
    """The whole lines of `data` and how many bytes they take; a line still being written
    (no newline yet) is left for the next read."""
    end = data.rfind(b"\n")
    if end < 0:
        return [], 0
    return data[:end].split(b"\n"), end + 1


def is_user_turn(line: bytes) -> bool:
    """A transcript line that is a message of the user (one turn of the conversation)."""
    if b'"user"' not in line:
        return False
    try:
        entry = json.loads(line)
    except ValueError:
        return False
    if not isinstance(entry, dict) or entry.get("type") != "message":
        return False
    message = entry.get("message")
    return isinstance(message, dict) and message.get("role") == "user"


def user_turns(lines: Iterable[bytes]) -> int:
    return sum(1 for line in lines if is_user_turn(line))


def read_from(known: int | None, size: int, baseline: bool) -> int:
    """Where to start reading a transcript for new turns: where the last read stopped; its
    current end when no count has been recorded yet (a first run counts from now on); its
    start when it is new since then, or shorter than before (replaced by another)."""
    if known is None:
        return size if baseline else 0
    return known if known <= size else 0


def counts_turns(key: str) -> bool:
    """Heartbeat and cron sessions are nobody's conversation: their turns do not count."""
    return not any(part in UNATTENDED for part in key.casefold().split(":"))

"""A session transcript as memcli reads it: messages along the active branch (SPEC §9).

Pure: the JSONL lines come in as text (read by memcli.workspace.transcripts), messages
come out. A line that is not JSON is reported, never fatal; unknown entry types are kept
by OpenClaw and skipped here; a transcript without its header still reads.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from memcli.core.tokens import estimate_tokens

READ_TOOLS = frozenset({"read", "read_file", "view", "cat", "grep", "glob", "ls", "search", "open"})
WRITE_TOOLS = frozenset({"write", "edit", "write_file", "edit_file", "str_replace", "apply_patch", "create"})


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    path: str | None  # the file it reads or writes, when its arguments name one
    size: int = 0  # characters of its arguments as JSON (what the model reads of the call)


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    role: str  # user, assistant, toolResult
    text: str  # the text parts, joined
    time: datetime | None
    calls: tuple[ToolCall, ...] = ()
    error: bool = False  # a tool result that reports a failure
    # its entry's place in the file, counting every JSON line from 0 (the header, when there
    # is one): how OpenClaw's first transcripts, which had no ids, named the first kept entry
    index: int = -1


@dataclass(frozen=True, slots=True)
class Transcript:
    header: dict[str, Any] | None
    messages: tuple[Message, ...]  # the active branch, oldest first
    compactions: tuple[dict[str, Any], ...]  # compaction entries on that branch, oldest first
    problems: tuple[str, ...] = field(default=())  # lines that could not be read, named
    entries: tuple[dict[str, Any], ...] = field(default=())  # every entry, in file order

    def context(self) -> tuple[Message, ...]:
        """The messages the model still sees: since the last compaction's first kept entry
        (its summary stands for the ones before), or all of them. The first kept entry is
        named by its id (`firstKeptEntryId`) or, in a transcript without ids, by its place
        in the file (`firstKeptEntryIndex`, as OpenClaw's version 1 transcripts did)."""
        if not self.compactions:
            return self.messages
        last = self.compactions[-1]
        first = last.get("firstKeptEntryId")
        ids = [m.id for m in self.messages]
        if isinstance(first, str) and first and first in ids:
            return self.messages[ids.index(first) :]
        index = last.get("firstKeptEntryIndex")
        if isinstance(index, int) and not isinstance(index, bool):
            return tuple(m for m in self.messages if m.index >= index)
        return self.messages

    @property
    def leaf_id(self) -> str | None:
        """The id of the last entry: where the active branch ends, and a new entry hangs."""
        last = self.entries[-1].get("id") if self.entries else None
        return str(last) if last is not None else None

    @property
    def previous_summary(self) -> str | None:
        return str(self.compactions[-1].get("summary") or "") or None if self.compactions else None


def _when(raw: Any) -> datetime | None:
    if isinstance(raw, str):
        try:
            return datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def _text_of(content: Any) -> tuple[str, tuple[ToolCall, ...]]:
    if isinstance(content, str):
        return content, ()
    texts: list[str] = []
    calls: list[ToolCall] = []
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif part.get("type") in ("toolCall", "tool_use"):
            args = part.get("arguments") or part.get("input") or {}
            path = None
            if isinstance(args, dict):
                found = args.get("path") or args.get("file_path") or args.get("file")
                path = found if isinstance(found, str) else None
            calls.append(ToolCall(str(part.get("name", "")), path, _size(args)))
    return "\n".join(texts), tuple(calls)


def _size(args: Any) -> int:
    """The characters of a call's arguments as JSON (an edit's texts, a command)."""
    if isinstance(args, str):
        return len(args)
    try:
        return len(json.dumps(args, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        return 0


def _is_error(message: dict[str, Any], text: str) -> bool:
    if message.get("isError") is True:
        return True
    head = text[:200].casefold()
    return any(cue in head for cue in ("error", "failed", "traceback", "exception", "失败", "报错", "错误"))


def parse_transcript(lines: Iterable[str], name: str = "transcript") -> Transcript:
    """The messages on the branch that ends at the last entry (following `parentId`)."""
    header: dict[str, Any] | None = None
    entries: list[dict[str, Any]] = []
    problems: list[str] = []
    place: dict[int, int] = {}  # id() of an entry -> its index among the file's JSON lines
    parsed = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            problems.append(f"{name}:{number}: not a JSON line (skipped)")
            continue
        parsed += 1
        if not isinstance(data, dict):
            problems.append(f"{name}:{number}: not a JSON object (skipped)")
            continue
        if data.get("type") == "session" and header is None and not entries:
            header = data
        else:
            place[id(data)] = parsed - 1
            entries.append(data)
    branch = _active_branch(entries)
    messages: list[Message] = []
    compactions: list[dict[str, Any]] = []
    for entry in branch:
        kind = entry.get("type")
        if kind == "compaction":
            compactions.append(entry)
            continue
        message = entry.get("message")
        if kind != "message" or not isinstance(message, dict):
            continue
        role = str(message.get("role", ""))
        text, calls = _text_of(message.get("content"))
        error = role == "toolResult" and _is_error(message, text)
        when = _when(entry.get("timestamp"))
        messages.append(Message(str(entry.get("id", "")), role, text, when, calls, error, place[id(entry)]))
    return Transcript(header, tuple(messages), tuple(compactions), tuple(problems), tuple(entries))


def _key(value: Any) -> Hashable:
    """An id or parentId as a dict key: a list or an object (unhashable) by its JSON text, kept
    apart from any string id; equal ids still meet, whatever their type."""
    if isinstance(value, list | dict):
        try:
            return ("json", json.dumps(value, sort_keys=True))
        except (RecursionError, ValueError):
            return ("object", id(value))  # nested too deep to compare: equal to itself only
    return cast(Hashable, value)


def _active_branch(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """From the last entry back through `parentId` to the root; entries without ids (an old
    or hand-written transcript) are taken in file order."""
    if not entries or not all("id" in e for e in entries):
        return list(entries)
    by_id = {_key(e["id"]): e for e in entries}
    path: list[dict[str, Any]] = []
    seen: set[Hashable] = set()
    current: dict[str, Any] | None = entries[-1]
    while current is not None and _key(current["id"]) not in seen:
        seen.add(_key(current["id"]))
        path.append(current)
        parent = current.get("parentId")
        current = by_id.get(_key(parent)) if parent is not None else None
    return path[::-1]


def transcript_tokens(messages: Sequence[Message]) -> int:
    """Tokens of a transcript's messages as a model reads them (text and tool traffic)."""
    total = 0
    for m in messages:
        total += estimate_tokens(m.text)
        # a call: its name and arguments (an edit's texts, a file written whole), ~4 characters a token
        total += sum(estimate_tokens(c.name) + max(c.size, len(c.path or "")) // 4 + 8 for c in m.calls)
    return total

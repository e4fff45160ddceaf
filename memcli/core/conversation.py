"""A session transcript as memcli reads it: messages along the active branch (SPEC §9).

Pure: the JSONL lines come in as text (read by memcli.workspace.transcripts), messages
come out. A line that is not JSON is reported, never fatal; unknown entry types are kept
by OpenClaw and skipped here; a transcript without its header still reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

READ_TOOLS = frozenset({"read", "read_file", "view", "cat", "grep", "glob", "ls", "search", "open"})
WRITE_TOOLS = frozenset({"write", "edit", "write_file", "edit_file", "str_replace", "apply_patch", "create"})


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    path: str | None  # the file it reads or writes, when its arguments name one


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    role: str  # user, assistant, toolResult
    text: str  # the text parts, joined
    time: datetime | None
    calls: tuple[ToolCall, ...] = ()
    error: bool = False  # a tool result that reports a failure


@dataclass(frozen=True, slots=True)
class Transcript:
    header: dict[str, Any] | None
    messages: tuple[Message, ...]  # the active branch, oldest first
    compactions: tuple[dict[str, Any], ...]  # compaction entries on that branch, oldest first
    problems: tuple[str, ...] = field(default=())  # lines that could not be read, named
    entries: tuple[dict[str, Any], ...] = field(default=())  # every entry, in file order

    def context(self) -> tuple[Message, ...]:
        """The messages the model still sees: since the last compaction's first kept entry
        (its summary stands for the ones before), or all of them."""
        if not self.compactions:
            return self.messages
        first = self.compactions[-1].get("firstKeptEntryId")
        ids = [m.id for m in self.messages]
        return self.messages[ids.index(first) :] if first in ids else self.messages

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
            calls.append(ToolCall(str(part.get("name", "")), path))
    return "\n".join(texts), tuple(calls)


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
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            problems.append(f"{name}:{number}: not a JSON line (skipped)")
            continue
        if not isinstance(data, dict):
            problems.append(f"{name}:{number}: not a JSON object (skipped)")
            continue
        if data.get("type") == "session" and header is None and not entries:
            header = data
        else:
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
        messages.append(
            Message(str(entry.get("id", "")), role, text, _when(entry.get("timestamp")), calls, error)
        )
    return Transcript(header, tuple(messages), tuple(compactions), tuple(problems), tuple(entries))


def _active_branch(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """From the last entry back through `parentId` to the root; entries without ids (an old
    or hand-written transcript) are taken in file order."""
    if not entries or not all("id" in e for e in entries):
        return list(entries)
    by_id = {e["id"]: e for e in entries}
    path: list[dict[str, Any]] = []
    seen: set[Any] = set()
    current: dict[str, Any] | None = entries[-1]
    while current is not None and current["id"] not in seen:
        seen.add(current["id"])
        path.append(current)
        parent = current.get("parentId")
        current = by_id.get(parent) if parent is not None else None
    return path[::-1]

"""`memcli flush`: durable notes out of sessions before compaction loses them (SPEC §9).

For each session of the store (or one): decide whether it is due (core.sessions),
take the durable items said since its last flush or compaction (preferences,
decisions, environment facts, lessons, open items), leave out what memory already
holds, append the rest under a heading to today's note (never rewriting it), then
record `memoryFlushAt` and `memoryFlushCompactionCount` under the store's lock.

Each item is what was said, in the speaker's words (core.verbatim). A message that
holds a secret is left out whole (core.withheld): the result names it by its id.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memcli.core.conversation import Message, Transcript
from memcli.core.sessions import FlushDecision, bad_flush_time, flush_decision, flush_time
from memcli.core.similarity import normalise
from memcli.core.summarize import Item, message_items, message_place, transcript_tokens
from memcli.core.withheld import holds_secret
from memcli.errors import DataError
from memcli.runtime import Runtime
from memcli.workspace.files import display, writable_dir
from memcli.workspace.notes import add_entry
from memcli.workspace.session_store import LEGACY_WHY, sessions_of, update_store
from memcli.workspace.snapshot import take_snapshot
from memcli.workspace.transcripts import read_store, read_transcript, transcript_path

DURABLE = ("preference", "decision", "environment", "knowledge", "pending")
COOLDOWN_MINUTES = 10.0

FLUSH_PROMPT = (
    "Pre-compaction memory flush ({date}). Write the durable memories of this session to "
    "memory/{date}.md (create memory/ if needed): user preferences, decisions, environment facts, "
    "lessons learned, open tasks. Append only; do not repeat what MEMORY.md or the notes already hold. "
    "If there is nothing to store, reply with NO_REPLY."
)
FLUSH_SYSTEM_PROMPT = (
    "Pre-compaction memory flush turn ({date}). The session is close to automatic compaction: "
    "capture durable memories to disk now. You may reply, but NO_REPLY is usually right."
)


@dataclass(frozen=True)
class Flushed:
    store: str
    key: str
    decision: FlushDecision
    items: tuple[str, ...] = ()  # what was (or would be) appended
    skipped: int = 0  # durable items memory already held
    note: str | None = None  # the note appended to
    recorded: bool = False
    problems: tuple[str, ...] = field(default=())
    withheld: tuple[str, ...] = ()  # messages left out because they hold a secret ("message <id>")

    def to_json(self) -> dict[str, Any]:
        d = self.decision
        return {
            "store": self.store,
            "session": self.key,
            "due": d.due,
            "why": d.why,
            "tokens": d.tokens,
            "window": d.window,
            "threshold": d.threshold,
            "items": list(self.items),
            "already_in_memory": self.skipped,
            "note": self.note,
            "recorded": self.recorded,
            "withheld": list(self.withheld),
        }


def prompts(day: str) -> tuple[str, str]:
    """The flush prompt and system prompt a gateway injects, with the date filled in."""
    return FLUSH_PROMPT.format(date=day), FLUSH_SYSTEM_PROMPT.format(date=day)


def _aware(moment: datetime) -> datetime:
    """A transcript time without an offset is taken as UTC (OpenClaw writes `…Z`)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def since_last_flush(transcript: Transcript, entry: dict[str, Any]) -> list[Message]:
    """The messages after the later of the last flush and the last compaction (a
    `memoryFlushAt` that is no usable time counts as no flush)."""
    marks: list[datetime] = []
    flushed = flush_time(entry)
    if flushed is not None:
        marks.append(flushed)
    for compaction in transcript.compactions[-1:]:
        stamp = compaction.get("timestamp")
        if isinstance(stamp, str):
            with contextlib.suppress(ValueError):
                marks.append(_aware(datetime.fromisoformat(stamp.replace("Z", "+00:00"))))
    if not marks:
        return list(transcript.messages)
    mark = max(marks)
    return [m for m in transcript.messages if m.time is None or _aware(m.time) > mark]


def memory_texts(run: Runtime) -> set[str]:
    """What memory already says: every entry of the memory files, normalised."""
    snap = take_snapshot(run.root, run.policy.max_file_bytes)
    return {normalise(e.text) for e in snap.entries()}


def new_items(items: Sequence[Item], known: set[str]) -> tuple[list[str], int]:
    """The items memory does not hold yet, and how many it does. Each is compared as the
    bullet it becomes in the note, as memory's own entries are."""
    fresh: list[str] = []
    skipped = 0
    seen = set(known)
    # one search of all of memory per item (a NUL never occurs in a normalised text): a
    # loop over every entry made a flush quadratic in the size of memory
    everything = "\0".join(known)
    for item in items:
        key = normalise(f"- {item.text}")
        if not key:
            continue
        if key in seen or key in everything:
            skipped += 1
            continue
        seen.add(key)
        fresh.append(item.text)
    return fresh, skipped


def without_secrets(items: Sequence[Item]) -> tuple[list[Item], tuple[str, ...]]:
    """The items whose message holds no secret, and the places of those that do."""
    kept: list[Item] = []
    withheld: list[str] = []
    for item in items:
        if holds_secret(item.full, item.text):
            withheld.append(message_place(item.source))
        else:
            kept.append(item)
    return kept, tuple(dict.fromkeys(withheld))


def flush_block(key: str, at: datetime, items: Sequence[str]) -> str:
    """The heading and one bullet per item (each already one line, in the speaker's words)."""
    return f"## Flushed from {key} ({at.strftime('%H:%M')})\n\n" + "".join(f"- {t}\n" for t in items)


def flush(
    run: Runtime,
    key: str | None = None,
    store: Path | None = None,
    force: bool = False,
    dry_run: bool = False,
) -> list[Flushed]:
    results: list[Flushed] = []
    for found, name, _ in sessions_of(run.root, key, store):
        if found.legacy:
            results.append(Flushed(str(found.path), name, FlushDecision(False, LEGACY_WHY, 0, 0, 0)))
        else:
            results.append(flush_one(run, found.path, name, force, dry_run))
    return results


def decide(
    run: Runtime,
    name: str,
    entry: dict[str, Any],
    transcript_file: Path | None,
    transcript: Transcript | None,
    now_ms: int,
    read_only: bool,
) -> FlushDecision:
    """The flush decision for a session, its tokens estimated from the context the model
    sees when the transcript was read (it is read only when totalTokens cannot be trusted)."""
    size = transcript_file.stat().st_size if transcript_file is not None else None
    estimate = transcript_tokens(transcript.context()) if transcript is not None else None
    return flush_decision(name, entry, run.policy, now_ms, size, estimate, read_only, COOLDOWN_MINUTES)


def flush_one(run: Runtime, store: Path, name: str, force: bool, dry_run: bool) -> Flushed:
    """One session, decided and flushed inside the store's lock, on the store as it is then:
    OpenClaw may have written it since memcli first read it."""
    now_ms = int(run.now.timestamp() * 1000)
    read_only = not writable_dir(run.root)  # by mode too: root may write anywhere
    outcome: list[Flushed] = []

    def change(data: dict[str, Any]) -> bool:
        entry = data.get(name)
        if not isinstance(entry, dict):
            return False
        path = transcript_path(store, entry, name)
        transcript = read_transcript(path, run.root) if path is not None else None
        decision = decide(run, name, entry, path, transcript, now_ms, read_only)
        if force and not decision.due and not read_only:
            decision = replace(decision, due=True, why=f"--force ({decision.why})")
        if not decision.due or transcript is None:
            outcome.append(Flushed(str(store), name, decision))
            return False
        durable = [
            i for i in message_items(since_last_flush(transcript, entry), run.rules) if i.kind in DURABLE
        ]
        items, withheld = without_secrets(durable)
        fresh, skipped = new_items(items, memory_texts(run))
        if dry_run:
            found = Flushed(
                str(store), name, decision, tuple(fresh), skipped, None, False, transcript.problems
            )
            outcome.append(replace(found, withheld=withheld))
            return False
        note = None
        if fresh:
            block = flush_block(name, run.now_local, fresh)
            added = add_entry(
                run.root, run.today, block, run.policy.max_file_bytes, run.policy.lock_timeout_seconds
            )
            note = added.file
        entry["memoryFlushAt"] = now_ms
        entry["memoryFlushCompactionCount"] = entry.get("compactionCount", 0)
        done = Flushed(str(store), name, decision, tuple(fresh), skipped, note, True, transcript.problems)
        outcome.append(replace(done, withheld=withheld))
        return True

    if dry_run or read_only:  # nothing will be written: no lock to take (nor to create)
        change(read_store(store, run.root))
    else:
        update_store(store, run.root, change, wait=run.policy.lock_timeout_seconds)
    return outcome[0]


@dataclass(frozen=True)
class SessionRow:
    key: str
    decision: FlushDecision
    last_flush: str | None  # local time of memoryFlushAt
    compactions: int

    def to_json(self) -> dict[str, Any]:
        d = self.decision
        return {
            "session": self.key,
            "tokens": d.tokens,
            "window": d.window,
            "flush_threshold": d.threshold,
            "due": d.due,
            "why": d.why,
            "last_flush": self.last_flush,
            "compactions": self.compactions,
        }


def overview(run: Runtime) -> tuple[list[SessionRow], list[str]]:
    """Each session of the workspace's store with its flush decision, read only: a
    transcript is read only when its token count must be estimated. Problems are returned,
    not raised (status must still show the rest)."""
    rows: list[SessionRow] = []
    problems: list[str] = []
    now_ms = int(run.now.timestamp() * 1000)
    read_only = not writable_dir(run.root)  # by mode too: root may write anywhere
    try:
        for found, key, entry in sessions_of(run.root):
            path = transcript_path(found.path, entry, key)
            fresh = entry.get("totalTokensFresh") is not False and isinstance(entry.get("totalTokens"), int)
            transcript = read_transcript(path, run.root) if path is not None and not fresh else None
            decision = decide(run, key, entry, path, transcript, now_ms, read_only)
            flushed = flush_time(entry)
            when = flushed.astimezone(run.tz).strftime("%Y-%m-%d %H:%M") if flushed is not None else None
            if bad_flush_time(entry):
                problems.append(
                    f"{display(found.path, run.root)}: session {key!r}: memoryFlushAt "
                    f"{_short(entry['memoryFlushAt'])} is no time memcli can use (epoch milliseconds "
                    "within the years 1 to 9999); counted as never flushed, the next flush records a good one"
                )
            count = entry.get("compactionCount")
            rows.append(SessionRow(key, decision, when, count if isinstance(count, int) else 0))
    except DataError as exc:
        problems.append(exc.one_line())
    return rows, problems


def _short(value: Any) -> str:
    """A store value as its JSON text (a number a double cannot hold as written), cut short."""
    text = getattr(value, "text", None) or json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."

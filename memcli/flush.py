"""`memcli flush`: durable notes out of sessions before compaction loses them (SPEC §9).

For each session of the workspace's stores (or one): decide whether it is due
(core.sessions) from the store's numbers and the transcript's size alone, take the
durable items said since its last flush or compaction (preferences, decisions,
environment facts, lessons, open items), leave out what memory already holds, append the
rest under a heading to today's note (never rewriting it), then record the flush.

Where the flush is recorded: in a `sessions.json`, `memoryFlushAt` and
`memoryFlushCompactionCount`, under OpenClaw's lock, the store re-read inside it (OpenClaw
may have written it since); in an OpenClaw 2026.8+ database, which memcli never writes,
in memcli's own record `.memcli/flushed.json` (session id, last event seq, time, cycle).
That record also keeps where each read of a JSONL transcript stopped, so that the next
flush reads only the lines added since.

One bad session never blocks the others: a session whose transcript is missing, cannot
be read or is an archive is skipped with a warning; one whose store entry names a path
memcli must not read is skipped, and the run ends with exit 3 once the others are done.

What a flush takes out of a conversation is `durable_items`, decided by
core.judgement.extraction (what a person would keep: preferences and rules, decisions,
facts about the user's environment, people and projects, lessons, "remember this"; never
envelopes, prompts, tool traffic, narration or connection events). Each item is what was
said, in the speaker's words (core.verbatim), written once: not again when memory holds
it already (MEMORY.md and today's note also in other words: core.judgement.held), at most
extraction.PER_SESSION a session and PER_RUN a run. A message that holds a secret is left
out whole (core.withheld): the result names it by its id.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli.core.conversation import Message, Transcript, parse_transcript, transcript_tokens
from memcli.core.roles import Role
from memcli.core.sessions import (
    FlushDecision,
    OwnFlush,
    bad_flush_time,
    flush_decision,
    flush_marks,
    flush_time,
    ms_time,
)
from memcli.errors import DataError, LockTimeout, MemcliError
from memcli.runtime import Runtime
from memcli.workspace.files import display, writable_dir
from memcli.workspace.flush_records import Records, record_key
from memcli.workspace.notes import add_entry
from memcli.workspace.openclaw_db import read_events
from memcli.workspace.session_store import (
    LEGACY_WHY,
    SessionRef,
    Store,
    list_sessions,
    ref_of,
    search_stores,
    update_store,
)
from memcli.workspace.snapshot import take_snapshot
from memcli.workspace.transcripts import Position, read_since, read_store

if TYPE_CHECKING:  # the judgement is imported when a session is due: deciding stays quick
    from memcli.core.judgement.extraction import Extraction
    from memcli.core.judgement.held import Held

PER_RUN = 60  # items one run appends at most, over all its sessions (each at most PER_SESSION)
COOLDOWN_MINUTES = 10.0
DATABASE_WAIT = 5.0  # OpenClaw's own busy_timeout

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
    agent: str | None = None  # the OpenClaw agent of its store
    kind: str = "json"  # its store: "json" (sessions.json) or "sqlite" (OpenClaw 2026.8+)
    transcript_note: str | None = None  # how its transcript was found, when not as the store names it
    problem: str | None = None  # why a due session was not flushed (its transcript missing, …)

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
            "agent": self.agent,
            "kind": self.kind,
            "transcript_note": self.transcript_note,
            "problem": self.problem,
        }


@dataclass
class FlushRun:
    sessions: list[Flushed] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # sessions skipped, rows left out
    refused: list[str] = field(default_factory=list)  # store entries memcli must not follow (exit 3)

    def error(self) -> DataError | None:
        """The exit-3 error once the other sessions are done, when a session was refused."""
        if not self.refused:
            return None
        done = sum(1 for s in self.sessions if s.recorded)
        others = f"; the other sessions were handled ({done} flushed)" if len(self.sessions) > 1 else ""
        more = f" (and {len(self.refused) - 1} more)" if len(self.refused) > 1 else ""
        return DataError(
            f"{self.refused[0]}{more}{others}", "that session was skipped; nothing of it written"
        )


def prompts(day: str) -> tuple[str, str]:
    """The flush prompt and system prompt a gateway injects, with the date filled in."""
    return FLUSH_PROMPT.format(date=day), FLUSH_SYSTEM_PROMPT.format(date=day)


def _aware(moment: datetime) -> datetime:
    """A transcript time without an offset is taken as UTC (OpenClaw writes `…Z`)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def flush_block(key: str, at: datetime, items: Sequence[str]) -> str:
    """The heading and one bullet per item (each already one line, in the speaker's words)."""
    return f"## Flushed from {key} ({at.strftime('%H:%M')})\n\n" + "".join(f"- {t}\n" for t in items)


def since_last_flush(
    transcript: Transcript, entry: dict[str, Any], since_ms: int | None = None
) -> list[Message]:
    """The messages after the later of the last flush and the last compaction (a
    `memoryFlushAt` that is no usable time counts as no flush). `since_ms` is the time of
    memcli's own flush when the transcript was read from where that flush stopped: then
    only a flush made after it (by OpenClaw) moves the mark."""
    marks: list[datetime] = []
    flushed = flush_time(entry)
    if flushed is not None and (since_ms is None or flushed > (ms_time(since_ms) or flushed)):
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


class Memory:
    """What memory holds (core.judgement.held.Held), read once per run (only when a
    session is due) and kept up to date with what the run appends, so that two sessions
    saying the same thing add it once; and how many items the run has appended."""

    def __init__(self, run: Runtime) -> None:
        self.run = run
        self._held: Held | None = None
        self.added = 0

    @property
    def held(self) -> Held:
        from memcli.core.judgement.held import Held

        if self._held is None:
            snap = take_snapshot(self.run.root, self.run.policy.max_file_bytes)
            today = self.run.today
            near = [
                e.text
                for parsed in snap.files
                if parsed.file.role is Role.CORE or parsed.file.date == today
                for e in parsed.doc.entries
            ]
            self._held = Held((e.text for e in snap.entries()), near)
        return self._held

    @property
    def room(self) -> int:
        return max(0, PER_RUN - self.added)

    def add(self, texts: Sequence[str]) -> None:
        self.held.add(texts)
        self.added += len(texts)


def durable_items(run: Runtime, messages: Sequence[Message]) -> Extraction:
    """What a flush takes out of a conversation: its durable items (preferences, rules,
    decisions, facts about the user's environment, people and projects, lessons, what they
    asked to remember), in the speakers' words, each once, at most PER_SESSION; and the
    messages left out for a secret."""
    from memcli.core.judgement.extraction import extract as judged

    return judged(messages, run.rules)


def extract(
    run: Runtime, messages: Sequence[Message], memory: Memory
) -> tuple[list[str], int, tuple[str, ...]]:
    """The items to append (new to memory, no secret, within the run's bound), how many
    memory held already, and the places of the messages left out for a secret."""
    found = durable_items(run, messages)
    fresh: list[str] = []
    skipped = 0
    for item in found.items:
        if memory.held.holds(item.text) or item.text in fresh:
            skipped += 1
        else:
            fresh.append(item.text)
    return fresh[: memory.room], skipped, found.withheld


def _position(
    record: dict[str, Any] | None, entry: dict[str, Any], path: Path
) -> tuple[Position | None, int | None]:
    """Where memcli's last flush of this transcript stopped, when that record still holds:
    the same session and file, and the store says it was flushed then or later (a store
    restored from an older backup reads the transcript whole again). With it, the time of
    that flush."""
    if record is None or record.get("sessionId") != entry.get("sessionId"):
        return None, None
    if record.get("transcript") != str(path):
        return None, None
    at = record.get("flushedAt")
    stored = flush_time(entry)
    if not isinstance(at, int) or stored is None or stored < (ms_time(at) or stored):
        return None, None
    return Position.from_json(record.get("position")), at


# --- the flush ----------------------------------------------------------------------------------


def flush(
    run: Runtime,
    key: str | None = None,
    store: Path | None = None,
    force: bool = False,
    dry_run: bool = False,
) -> FlushRun:
    """Flush the sessions of the workspace's stores (or the one `key`). No store at all is
    DataError (exit 3) naming where memcli looked."""
    found = search_stores(run.root, store, run.openclaw() if store is None else None, run.agent)
    if not found.stores:
        raise found.nowhere(run.root)
    listing = list_sessions(run.root, found.stores, key, True, database_wait(run), store is not None)
    return flush_refs(run, listing.refs, force, dry_run, listing.problems, named=key is not None)


def database_wait(run: Runtime) -> float:
    return min(DATABASE_WAIT, run.policy.lock_timeout_seconds)


@dataclass(frozen=True)
class _Flushing:
    """One run's flush as each store's flush shares it: the runtime and the options, what
    memory holds, memcli's record, and the run's result (its warnings and refusals)."""

    run: Runtime
    force: bool
    dry_run: bool
    memory: Memory
    records: Records
    out: FlushRun
    named: bool


def flush_refs(
    run: Runtime,
    refs: Sequence[SessionRef],
    force: bool = False,
    dry_run: bool = False,
    warnings: Sequence[str] = (),
    named: bool = False,
) -> FlushRun:
    """Flush these sessions, store by store. With `named` (one session asked for by its
    key), a session memcli must not read is DataError at once."""
    out = FlushRun(warnings=list(warnings))
    job = _Flushing(run, force, dry_run, Memory(run), Records(run.root), out, named)
    results: dict[tuple[str, str], Flushed] = {}
    groups: dict[Store, list[SessionRef]] = {}
    for ref in refs:
        groups.setdefault(ref.store, []).append(ref)
    for store, group in groups.items():
        if store.legacy:
            for ref in group:
                results[(str(store.path), ref.key)] = _result(ref, FlushDecision(False, LEGACY_WHY, 0, 0, 0))
            continue
        flush_store = _flush_database if store.database else _flush_json
        for done in flush_store(job, store, group):
            results[(str(store.path), done.key)] = done
    out.sessions = [
        results[(str(r.store.path), r.key)] for r in refs if (str(r.store.path), r.key) in results
    ]
    return out


def _result(ref: SessionRef, decision: FlushDecision, **more: Any) -> Flushed:
    return Flushed(
        str(ref.store.path),
        ref.key,
        decision,
        agent=ref.store.agent,
        kind=ref.store.kind,
        transcript_note=ref.note,
        **more,
    )


def _forced(decision: FlushDecision, force: bool, read_only: bool) -> FlushDecision:
    if force and not decision.due and not read_only:
        return replace(decision, due=True, why=f"--force ({decision.why})", needs_estimate=False)
    return decision


def _cannot(ref: SessionRef, why: str, out: FlushRun, named: bool) -> str:
    """A due session that cannot be flushed: a warning (the others go on), or for a store
    entry memcli must not follow, a refusal (exit 3 at the end; at once when named)."""
    text = f"session {ref.key!r}: {why}"
    if ref.refused:
        if named:
            raise DataError(why, "that session was skipped; nothing was written")
        out.refused.append(why)
    else:
        out.warnings.append(f"{text}; skipped, the others go on")
    return why


def _flush_json(job: _Flushing, store: Store, refs: list[SessionRef]) -> list[Flushed]:
    """A sessions.json: decided without a lock from the numbers and sizes; the due sessions
    are flushed under OpenClaw's lock, each decided again on the store as it is then."""
    run, force, out, named = job.run, job.force, job.out, job.named
    now_ms = int(run.now.timestamp() * 1000)
    read_only = not writable_dir(run.root)  # by mode too: root may write anywhere
    cache: dict[Path, tuple[Transcript, Position]] = {}
    results: dict[str, Flushed] = {}
    due: list[str] = []
    for ref in refs:
        decision = _forced(_decide_json(run, ref, now_ms, read_only, cache, out), force, read_only)
        if decision.due and (ref.problem or ref.transcript is None):
            why = _cannot(ref, ref.problem or "it has no transcript", out, named)
            results[ref.key] = _result(ref, decision, problem=why)
        elif decision.due:
            due.append(ref.key)
            results[ref.key] = _result(ref, decision)
        else:
            results[ref.key] = _result(ref, decision)
    if not due:
        return [results[r.key] for r in refs]
    positions: dict[str, dict[str, Any]] = {}

    def flush_each(data: dict[str, Any], write: bool) -> bool:
        changed = False
        for key in due:
            entry = data.get(key)
            if not isinstance(entry, dict):
                continue  # gone since: its result stays as first decided, nothing recorded
            ref = ref_of(store, key, entry)
            decision = _forced(_decide_json(run, ref, now_ms, read_only, cache, out), force, read_only)
            if not decision.due:
                results[key] = _result(ref, decision)
                continue
            if ref.problem or ref.transcript is None:
                why = _cannot(ref, ref.problem or "it has no transcript", out, named)
                results[key] = _result(ref, decision, problem=why)
                continue
            ident = record_key(store, key)
            since, since_ms = _position(job.records.get(ident), entry, ref.transcript)
            try:
                if since is None and ref.transcript in cache:
                    transcript, stop = cache[ref.transcript]
                else:
                    transcript, stop, _ = read_since(ref.transcript, run.root, since)
            except DataError as exc:
                why = _cannot(ref, f"its transcript cannot be read ({exc.one_line()})", out, named)
                results[key] = _result(ref, decision, problem=why)
                continue
            messages = since_last_flush(transcript, entry, since_ms if since is not None else None)
            results[key] = _taken_out(job, ref, decision, transcript, messages, write)
            if not write:
                continue
            entry["memoryFlushAt"] = now_ms
            entry["memoryFlushCompactionCount"] = entry.get("compactionCount", 0)
            positions[record_key(store, key)] = {
                "sessionId": entry.get("sessionId"),
                "transcript": str(ref.transcript),
                "position": stop.to_json(),
                "flushedAt": now_ms,
            }
            changed = True
        return changed

    if job.dry_run or read_only:  # nothing will be written: no lock to take (nor to create)
        flush_each(read_store(store.path, run.root), False)
    else:
        update_store(
            store.path, run.root, lambda data: flush_each(data, True), wait=run.policy.lock_timeout_seconds
        )
        if positions:
            _save(job.records, positions, run)
    return [results[r.key] for r in refs]


def _taken_out(
    job: _Flushing,
    ref: SessionRef,
    decision: FlushDecision,
    transcript: Transcript,
    messages: Sequence[Message],
    write: bool,
) -> Flushed:
    """A due session's messages flushed: their durable items new to memory, appended to
    today's note when `write` (the caller then records the flush), else only said."""
    fresh, skipped, withheld = extract(job.run, messages, job.memory)
    note = _append(job.run, ref.key, fresh, job.memory) if write else None
    return _result(
        ref, decision, items=tuple(fresh), skipped=skipped, note=note, recorded=write,
        problems=transcript.problems, withheld=withheld,
    )  # fmt: skip


def _save(records: Records, changes: dict[str, dict[str, Any]], run: Runtime) -> None:
    """memcli's record updated; best effort (without it the next flush reads more)."""
    with contextlib.suppress(MemcliError, OSError), records.locked(run.policy.lock_timeout_seconds):
        for ident, value in changes.items():
            records.put(ident, value)


def _append(run: Runtime, key: str, fresh: Sequence[str], memory: Memory) -> str | None:
    if not fresh:
        return None
    block = flush_block(key, run.now_local, fresh)
    added = add_entry(run.root, run.today, block, run.policy.max_file_bytes, run.policy.lock_timeout_seconds)
    memory.add(fresh)
    return added.file


def _decide_json(
    run: Runtime,
    ref: SessionRef,
    now_ms: int,
    read_only: bool,
    cache: dict[Path, tuple[Transcript, Position]],
    out: FlushRun | None,
) -> FlushDecision:
    """The decision from the store's numbers and the transcript's size; the transcript is
    read (whole: it is the context the model sees) only when totalTokens is stale and
    nothing else rules the session out."""
    size = ref.size if ref.transcript is not None else None
    decision = flush_decision(ref.key, ref.entry, run.policy, now_ms, size, None, read_only, COOLDOWN_MINUTES)
    if not decision.needs_estimate or ref.transcript is None:
        return decision
    try:
        if ref.transcript not in cache:
            transcript, stop, _ = read_since(ref.transcript, run.root, None)
            cache[ref.transcript] = (transcript, stop)
        transcript = cache[ref.transcript][0]
    except DataError as exc:
        if out is not None:
            out.warnings.append(f"session {ref.key!r}: its transcript cannot be read ({exc.one_line()})")
        return replace(
            decision, why="totalTokens is stale and its transcript cannot be read", needs_estimate=False
        )
    estimate = transcript_tokens(transcript.context())
    return flush_decision(ref.key, ref.entry, run.policy, now_ms, size, estimate, read_only, COOLDOWN_MINUTES)


def _own(record: dict[str, Any] | None, ref: SessionRef) -> OwnFlush | None:
    if record is None or record.get("sessionId") != ref.session_id:
        return None
    at, cycle = record.get("flushedAt"), record.get("compactionCount")
    return OwnFlush(at if type(at) is int else None, cycle if type(cycle) is int else None)


def _decide_database(
    run: Runtime, ref: SessionRef, now_ms: int, read_only: bool, own: OwnFlush | None
) -> tuple[FlushDecision, Transcript | None]:
    decision = flush_decision(
        ref.key, ref.entry, run.policy, now_ms, ref.size, None, read_only, COOLDOWN_MINUTES, own
    )
    if not decision.needs_estimate or ref.session_id is None:
        return decision, None
    events = read_events(ref.store.path, ref.session_id, -1, database_wait(run))
    transcript = parse_transcript(events.lines, f"{ref.store.path.name} {ref.session_id}")
    estimate = transcript_tokens(transcript.context())
    again = flush_decision(
        ref.key, ref.entry, run.policy, now_ms, ref.size, estimate, read_only, COOLDOWN_MINUTES, own
    )
    return again, transcript


def _flush_database(job: _Flushing, store: Store, refs: list[SessionRef]) -> list[Flushed]:
    """An OpenClaw 2026.8+ database, read only: the events since memcli's last flush of a
    session (its record: session id, last seq) are flushed, and the record is updated."""
    run, records = job.run, job.records
    now_ms = int(run.now.timestamp() * 1000)
    read_only = not writable_dir(run.root)
    results: dict[str, Flushed] = {}

    def flush_each(write: bool) -> None:
        for ref in refs:
            ident = record_key(store, ref.key)
            record = records.get(ident)
            own = _own(record, ref)
            decision, whole = _decide_database(run, ref, now_ms, read_only, own)
            decision = _forced(decision, job.force, read_only)
            if not decision.due or ref.session_id is None:
                results[ref.key] = _result(ref, decision)
                continue
            after = record.get("lastSeq") if own is not None and record is not None else None
            after = after if type(after) is int else -1
            if whole is not None and after == -1:
                lines_last = ref.last_seq
                transcript = whole
            else:
                events = read_events(store.path, ref.session_id, after, database_wait(run))
                transcript = parse_transcript(events.lines, f"{store.path.name} {ref.session_id}")
                transcript = replace(transcript, problems=transcript.problems + events.problems)
                lines_last = events.last_seq if events.last_seq is not None else ref.last_seq
            messages = since_last_flush(transcript, ref.entry)
            results[ref.key] = _taken_out(job, ref, decision, transcript, messages, write)
            if not write:
                continue
            cycle = ref.entry.get("compactionCount")
            records.put(
                ident,
                {
                    "sessionId": ref.session_id,
                    "lastSeq": lines_last if lines_last is not None else after,
                    "flushedAt": now_ms,
                    "compactionCount": cycle if type(cycle) is int else 0,
                },
            )

    if job.dry_run or read_only:
        flush_each(False)
    else:
        try:
            with records.locked(run.policy.lock_timeout_seconds):
                flush_each(True)
        except LockTimeout as exc:
            raise LockTimeout(
                f"{exc.message} (another memcli is flushing this workspace)", exc.hint
            ) from None
    return [results[r.key] for r in refs]


def flush_one(run: Runtime, store: Path, name: str, force: bool, dry_run: bool) -> Flushed:
    """One session of a sessions.json (compact flushes the session it compacts first)."""
    data = read_store(store, run.root)
    entry = data.get(name)
    found = Store(store, False)
    if not isinstance(entry, dict):
        return Flushed(str(store), name, FlushDecision(False, "no such session", 0, 0, 0))
    done = flush_refs(run, [ref_of(found, name, entry)], force, dry_run, named=True)
    return done.sessions[0]


@dataclass(frozen=True)
class SessionRow:
    key: str
    decision: FlushDecision
    # local time of the last flush (memoryFlushAt, or memcli's own record); "in cycle N
    # (OpenClaw)" when only OpenClaw 2026.8+'s timeless record says it was flushed
    last_flush: str | None
    compactions: int
    agent: str | None = None
    kind: str = "json"

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
            "agent": self.agent,
            "kind": self.kind,
        }


def overview(run: Runtime) -> tuple[list[SessionRow], list[str]]:
    """Each session of the workspace's stores with its flush decision, read only: a
    transcript is read only when its token count must be estimated. Problems are returned,
    not raised (status must still show the rest)."""
    rows: list[SessionRow] = []
    problems: list[str] = []
    now_ms = int(run.now.timestamp() * 1000)
    read_only = not writable_dir(run.root)  # by mode too: root may write anywhere
    try:
        found = search_stores(run.root, None, run.openclaw(), run.agent)
        listing = list_sessions(run.root, found.stores, None, False, database_wait(run))
    except MemcliError as exc:
        return rows, [exc.one_line()]
    problems += listing.problems
    records = Records(run.root)
    cache: dict[Path, tuple[Transcript, Position]] = {}
    legacy: set[Store] = set()
    for ref in listing.refs:
        if ref.store.legacy:
            if ref.store not in legacy:
                legacy.add(ref.store)
                problems.append(
                    f"{display(ref.store.path, run.root)}: {LEGACY_WHY}; its sessions are not shown"
                )
            continue
        own = None
        try:
            if ref.store.database:
                own = _own(records.get(record_key(ref.store, ref.key)), ref)
                decision, _ = _decide_database(run, ref, now_ms, read_only, own)
            else:
                decision = _decide_json(run, ref, now_ms, read_only, cache, None)
        except MemcliError as exc:
            problems.append(exc.one_line())
            continue
        where = display(ref.store.path, run.root)
        if ref.problem:
            problems.append(f"{where}: session {ref.key!r}: {ref.problem}")
        elif ref.note:
            problems.append(f"{where}: session {ref.key!r}: {ref.note}")
        marks = flush_marks(ref.entry, own)
        times = [m.at_ms for m in marks if m.at_ms is not None]
        flushed = ms_time(max(times)) if times else None
        when = flushed.astimezone(run.tz).strftime("%Y-%m-%d %H:%M") if flushed is not None else None
        if when is None and marks:  # OpenClaw 2026.8+ records its flush's cycle, not its time
            when = f"in cycle {marks[-1].cycle} ({marks[-1].by})"
        if bad_flush_time(ref.entry):
            problems.append(
                f"{where}: session {ref.key!r}: memoryFlushAt "
                f"{_short(ref.entry['memoryFlushAt'])} is no time memcli can use (epoch milliseconds "
                "within the years 1 to 9999); counted as never flushed, the next flush records a good one"
            )
        count = ref.entry.get("compactionCount")
        rows.append(
            SessionRow(
                ref.key,
                decision,
                when,
                count if isinstance(count, int) else 0,
                ref.store.agent,
                ref.store.kind,
            )
        )
    return rows, problems


def _short(value: Any) -> str:
    """A store value as its JSON text (a number a double cannot hold as written), cut short."""
    text = getattr(value, "text", None) or json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."

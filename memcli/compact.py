"""`memcli compact`: a session's older turns replaced by a summary, the way OpenClaw does (SPEC §9).

A flush that is due runs first. The cut keeps the most recent `keep_recent_tokens` of
the active branch, never separating a tool call from its result; the turns before it
are summarised with the `compaction-summary` template, merging the previous
compaction's summary. A compaction entry (unique 8-hex id, parentId = the branch's
leaf, ISO timestamp, summary, firstKeptEntryId, tokensBefore, details.readFiles and
modifiedFiles) is appended to the transcript under its lock (`<file>.lock`); then
`compactionCount` goes up by one and `totalTokens` becomes the new estimate, under the
store's lock. The transcript's existing bytes are never rewritten.

A transcript without ids (an old or hand-written one, read in file order) has no id to
name the first kept entry by: its compaction entry names it by its place in the file,
`firstKeptEntryIndex` (0 = the file's first JSON line), as OpenClaw's version 1
transcripts did (OpenClaw turns it into `firstKeptEntryId` when it gives the file ids);
`firstKeptEntryId` is null, and the entry gets no id or parentId, like the entries
around it. The first kept entry is named by id only when exactly one entry holds it.

Nothing is written when the store could not be (a link out of the workspace); when the
transcript turns out to have changed under its lock, the compaction is not written and
the error says whether the due flush before it was recorded.

The summary quotes the turns in their speakers' words (core.verbatim); a turn, or a line
of the previous summary, that holds a secret is left out (core.withheld) and named in
`withheld`. A summary that would still carry one (a template of the user's printing it)
is refused, exit 3.

A transcript that ends in a line another process is still writing is waited for (up to
transcripts.LINE_WAIT_SECONDS), before the flush and again under the lock: memcli's line
goes after the writer's, never inside it. A line that is never finished is exit 4, the
transcript as it was.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace
from datetime import UTC
from pathlib import Path
from typing import Any

from memcli.core.compaction import summarise
from memcli.core.conversation import Message, Transcript
from memcli.core.sessions import compaction_due, cut_index
from memcli.core.summarize import digest_of_session, transcript_tokens
from memcli.core.tokens import estimate_tokens
from memcli.core.withheld import holds_secret
from memcli.errors import ConflictError, DataError
from memcli.flush import Flushed, database_wait, flush_one
from memcli.runtime import Runtime
from memcli.workspace.files import ensure_writable, writable_dir
from memcli.workspace.session_store import (
    LEGACY_WHY,
    list_sessions,
    search_stores,
    store_lock,
    store_target,
    update_store,
)
from memcli.workspace.templates import find_template, render_template
from memcli.workspace.transcripts import append_entry, read_transcript, wait_for_whole_lines


@dataclass(frozen=True)
class Compacted:
    key: str
    due: bool
    why: str
    flushed: Flushed | None = None
    entry: dict[str, Any] | None = None  # the compaction entry appended (or that would be)
    kept: int = 0  # messages kept verbatim
    summarised: int = 0  # messages the summary replaces
    tokens_before: int = 0
    tokens_after: int = 0
    withheld: tuple[str, ...] = ()  # turns left out of the summary because they hold a secret

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.key,
            "due": self.due,
            "why": self.why,
            "flushed": self.flushed.to_json() if self.flushed is not None else None,
            "compaction": self.entry,
            "kept_messages": self.kept,
            "summarised_messages": self.summarised,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "withheld": list(self.withheld),
        }


def _new_id(taken: set[str]) -> str:
    while True:
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate


def _named_by_id(transcript: Transcript, first: Message) -> bool:
    """Whether the first kept message can be named by its id: a string id (not one made a
    string by memcli), held by no other message of the branch (where OpenClaw, as
    Transcript.context, looks for it)."""
    return (
        bool(first.id)
        and any(e.get("id") == first.id for e in transcript.entries)
        and sum(1 for m in transcript.messages if m.id == first.id) == 1
    )


def _still_there(fresh: Transcript, first: Message, by_id: bool) -> bool:
    """Whether the transcript, read again under its lock, still holds the first kept entry
    where memcli found it (OpenClaw only appends; anything else changed it)."""
    if by_id:
        return any(e.get("id") == first.id for e in fresh.entries)
    return any((m.index, m.role, m.text) == (first.index, first.role, first.text) for m in fresh.messages)


OPENCLAW_COMPACTS = (
    "OpenClaw 2026.8+ compacts its own sessions (they live in its SQLite database, which memcli never writes)"
)


class _Unreadable(DataError):
    """A session's transcript could not be read: that session is skipped, the others go on."""


@dataclass
class CompactRun:
    sessions: list[Compacted] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def error(self) -> DataError | None:
        """The exit-3 error once the other sessions are done, when a session was refused."""
        if not self.refused:
            return None
        more = f" (and {len(self.refused) - 1} more)" if len(self.refused) > 1 else ""
        return DataError(f"{self.refused[0]}{more}", "that session was skipped; the others were handled")


def compact(
    run: Runtime,
    key: str | None,
    store: Path | None,
    force: bool,
    dry_run: bool,
    keep_recent: int,
) -> CompactRun:
    """Compact the sessions of the workspace's JSONL stores (or the one `key`). Sessions in an
    OpenClaw 2026.8+ database are OpenClaw's to compact: when they are all there is, DataError
    (exit 3) before anything is written."""
    found = search_stores(run.root, store, run.openclaw() if store is None else None, run.agent)
    if not found.stores:
        raise found.nowhere(run.root)
    listing = list_sessions(run.root, found.stores, key, True, database_wait(run), store is not None)
    live = [r for r in listing.refs if not r.store.legacy]
    if live and all(r.store.database for r in live):
        where = ", ".join(sorted({str(r.store.path) for r in live}))
        raise DataError(
            f"{OPENCLAW_COMPACTS}: {where}; nothing was written",
            "`memcli flush` saves their durable notes to today's note; compaction is OpenClaw's",
        )
    out = CompactRun(warnings=list(listing.problems))
    for ref in listing.refs:
        if ref.store.legacy:
            out.sessions.append(Compacted(ref.key, False, LEGACY_WHY))
        elif ref.store.database:
            out.sessions.append(Compacted(ref.key, False, OPENCLAW_COMPACTS))
        elif ref.refused:
            why = ref.problem or "its transcript cannot be used"
            if key is not None:
                raise DataError(why, "nothing was written")
            out.refused.append(why)
            out.sessions.append(Compacted(ref.key, False, why))
        elif ref.transcript is None:
            out.sessions.append(Compacted(ref.key, False, ref.problem or "no transcript"))
        else:
            try:
                done = _compact_one(
                    run, ref.store.path, ref.key, ref.entry, ref.transcript, force, dry_run, keep_recent
                )
            except _Unreadable as exc:
                if key is not None:
                    raise DataError(exc.message, exc.hint) from None
                out.warnings.append(f"session {ref.key!r}: {exc.one_line()}; skipped, the others go on")
                done = Compacted(ref.key, False, f"its transcript cannot be read ({exc.message})")
            out.sessions.append(done)
    return out


def _compact_one(
    run: Runtime,
    store: Path,
    name: str,
    entry: dict[str, Any],
    path: Path,
    force: bool,
    dry_run: bool,
    keep_recent: int,
) -> Compacted:
    try:
        transcript = read_transcript(path, run.root)
    except DataError as exc:
        raise _Unreadable(exc.message, exc.hint) from None
    messages = transcript.context()
    before = transcript_tokens(messages)
    unrecorded = _unrecorded(transcript, entry)
    if unrecorded is not None:  # finish what a killed run began: record, do not compact again
        if not dry_run:
            store_target(store, run.root)
            _record(run, store, name, unrecorded, before)
        why = f"recorded compaction {unrecorded}, which an interrupted run had appended"
        return Compacted(name, False, why, tokens_before=before, tokens_after=before)
    due, why = compaction_due(entry, run.policy, before)
    if force and not due:
        due, why = True, f"--force ({why})"
    if not due:
        return Compacted(name, False, why, tokens_before=before)
    if not dry_run:
        store_target(store, run.root)  # a store memcli must not write is refused before any write
        if not writable_dir(run.root):
            raise DataError(
                f"{run.root} is read-only; nothing was written", "make it writable, or use --dry-run"
            )
        ensure_writable(path, run.root)  # the transcript gets the compaction entry
        # another process is appending a line: it is waited for (or exit 4, nothing written)
        # before the flush, which would otherwise miss that line for good, and read whole
        try:
            waited = wait_for_whole_lines(path, run.root)
        except ConflictError as exc:
            raise _not_written(exc, None) from None
        if waited:
            transcript = read_transcript(path, run.root)
            messages = transcript.context()
            before = transcript_tokens(messages)
    flushed = flush_one(run, store, name, False, dry_run)
    costs = [transcript_tokens([m]) for m in messages]
    cut = cut_index(costs, [m.role for m in messages], keep_recent)
    if cut == 0:
        return Compacted(
            name, False, f"the whole branch fits in {keep_recent:,} tokens", flushed, tokens_before=before
        )
    older, kept = messages[:cut], messages[cut:]
    digest = digest_of_session(
        "compaction-summary",
        name,
        older,
        [str(path.name)],
        run.now_local,
        run.policy.summary_tokens,
        "en",
        transcript.previous_summary,
        run.rules,
        shrink=False,
    )
    parts = summarise(older, transcript.previous_summary, run.rules, run.policy.summary_tokens)
    read, written = _files(transcript, digest.read_files, digest.modified_files)
    digest = replace(
        digest,
        compaction=parts.parts,
        read_files=read,
        modified_files=written,
        withheld=tuple(dict.fromkeys(digest.withheld + parts.withheld)),
    )
    summary = render_template(
        find_template("compaction-summary", run.root, run.policy.templates_dir),
        digest.context(),
        run.policy.max_file_bytes,
    ).strip()
    if holds_secret(summary):
        done = "; the due flush before it was recorded" if flushed.recorded else ""
        raise DataError(
            f"the compaction summary for {name} would carry a secret (its template printed one); "
            f"the compaction was not written{done}",
            "print only the summary's items in compaction-summary.md.j2",
        )
    after = estimate_tokens(summary) + transcript_tokens(kept)
    first = kept[0]
    by_id = _named_by_id(transcript, first)
    compaction: dict[str, Any] = {"type": "compaction"}
    if by_id:
        compaction.update(id="", parentId=None)
    compaction.update(
        timestamp=run.now.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        summary=summary,
        firstKeptEntryId=first.id if by_id else None,
    )
    if not by_id:
        compaction["firstKeptEntryIndex"] = first.index
    compaction.update(
        tokensBefore=before,
        details={"readFiles": list(digest.read_files), "modifiedFiles": list(digest.modified_files)},
        # what the store will say once this is recorded: a run killed in between is finished
        # by the next one (see _unrecorded) instead of compacting the same cycle again
        memcli={"compactionCount": _count(entry) + 1},
    )
    withheld = digest.withheld
    if dry_run:
        return Compacted(name, True, why, flushed, compaction, len(kept), len(older), before, after, withheld)
    with store_lock(path, run.policy.lock_timeout_seconds):
        try:  # a line begun since: finished before memcli reads and appends, never split
            wait_for_whole_lines(path, run.root)
        except ConflictError as exc:
            raise _not_written(exc, flushed) from None
        fresh = read_transcript(path, run.root)  # what OpenClaw appended meanwhile counts
        if not _still_there(fresh, first, by_id):
            recorded = "; the due flush before it was recorded" if flushed.recorded else ""
            raise ConflictError(
                f"{path.name} changed while memcli read it (its first kept entry is gone): the "
                f"compaction was not written{recorded}",
                "run again",
            )
        if by_id:
            compaction["id"] = _new_id({str(e.get("id")) for e in fresh.entries if e.get("id") is not None})
            compaction["parentId"] = fresh.leaf_id
        try:
            append_entry(path, compaction, run.root)
        except ConflictError as exc:  # a line begun since it was read: not written inside it
            raise _not_written(exc, flushed) from None

    _record(run, store, name, None, after)
    return Compacted(name, True, why, flushed, compaction, len(kept), len(older), before, after, withheld)


def _files(
    transcript: Transcript, read: tuple[str, ...], written: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The files read and modified in the whole session, as OpenClaw carries them: the
    earlier compaction's lists, then those of the turns summarised now (a file modified is
    not listed as read)."""
    details = transcript.compactions[-1].get("details") if transcript.compactions else None
    details = details if isinstance(details, dict) else {}

    def listed(key: str) -> list[str]:
        value = details.get(key)
        return [p for p in value if isinstance(p, str)] if isinstance(value, list) else []

    modified = tuple(dict.fromkeys([*listed("modifiedFiles"), *written]))
    return tuple(p for p in dict.fromkeys([*listed("readFiles"), *read]) if p not in modified), modified


def _not_written(exc: ConflictError, flushed: Flushed | None) -> ConflictError:
    """`exc` saying what was left undone: everything, or the compaction after the flush."""
    if flushed is not None and flushed.recorded:
        done = "the compaction was not written (the due flush before it was recorded)"
    else:
        done = "nothing was written"
    return ConflictError(f"{exc.message}; {done}", exc.hint)


def _count(entry: dict[str, Any]) -> int:
    try:
        return max(0, int(entry.get("compactionCount", 0) or 0))
    except (TypeError, ValueError, OverflowError):  # not a count (a list, inf): start again
        return 0


def _record(run: Runtime, store: Path, name: str, count: int | None, tokens: int) -> None:
    """compactionCount (one more, or `count`) and totalTokens, under OpenClaw's lock."""

    def change(data: dict[str, Any]) -> bool:
        current = data.get(name)
        if not isinstance(current, dict):
            return False
        current["compactionCount"] = _count(current) + 1 if count is None else count
        current["totalTokens"] = tokens
        if "totalTokensFresh" in current:
            current["totalTokensFresh"] = True
        return True

    update_store(store, run.root, change, wait=run.policy.lock_timeout_seconds)


def _unrecorded(transcript: Transcript, entry: dict[str, Any]) -> int | None:
    """The compactionCount of the branch's last compaction when memcli appended it and the
    store does not say so yet (its run was killed in between): None otherwise."""
    if not transcript.compactions:
        return None
    mark = transcript.compactions[-1].get("memcli")
    if not isinstance(mark, dict):
        return None
    try:
        count = int(mark.get("compactionCount"))  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None
    return count if count > _count(entry) else None

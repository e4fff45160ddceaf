"""`memcli compact`: a session's older turns replaced by a summary, the way OpenClaw does (SPEC §9).

A flush that is due runs first. The cut keeps the most recent `keep_recent_tokens` of
the active branch, never separating a tool call from its result; the turns before it
are summarised with the `compaction-summary` template, merging the previous
compaction's summary. A compaction entry (unique 8-hex id, parentId = the branch's
leaf, ISO timestamp, summary, firstKeptEntryId, tokensBefore, details.readFiles and
modifiedFiles) is appended to the transcript under its lock (`<file>.lock`); then
`compactionCount` goes up by one and `totalTokens` becomes the new estimate, under the
store's lock. The transcript's existing bytes are never rewritten.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any

from memcli.core.sessions import compaction_due, cut_index
from memcli.core.summarize import digest_of_session, transcript_tokens
from memcli.core.tokens import estimate_tokens
from memcli.errors import DataError
from memcli.flush import Flushed, flush_one
from memcli.runtime import Runtime
from memcli.workspace.files import append_bytes, newline_of
from memcli.workspace.session_store import LEGACY_WHY, sessions_of, store_lock, update_store
from memcli.workspace.templates import find_template, render_template
from memcli.workspace.transcripts import read_transcript, transcript_path


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
        }


def _new_id(taken: set[str]) -> str:
    while True:
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate


def compact(
    run: Runtime,
    key: str | None,
    store: Path | None,
    force: bool,
    dry_run: bool,
    keep_recent: int,
) -> list[Compacted]:
    return [
        Compacted(name, False, LEGACY_WHY)
        if found.legacy
        else _compact_one(run, found.path, name, entry, force, dry_run, keep_recent)
        for found, name, entry in sessions_of(run.root, key, store)
    ]


def _compact_one(
    run: Runtime, store: Path, name: str, entry: dict[str, Any], force: bool, dry_run: bool, keep_recent: int
) -> Compacted:
    path = transcript_path(store, entry)
    if path is None:
        return Compacted(name, False, "no transcript")
    transcript = read_transcript(path, run.root)
    messages = transcript.context()
    before = transcript_tokens(messages)
    due, why = compaction_due(entry, run.policy, before)
    if force and not due:
        due, why = True, f"--force ({why})"
    if not due:
        return Compacted(name, False, why, tokens_before=before)
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
    summary = render_template(
        find_template("compaction-summary", run.root, run.policy.templates_dir), digest.context()
    ).strip()
    after = estimate_tokens(summary) + transcript_tokens(kept)
    compaction: dict[str, Any] = {
        "type": "compaction",
        "id": "",
        "parentId": None,
        "timestamp": run.now.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "summary": summary,
        "firstKeptEntryId": kept[0].id,
        "tokensBefore": before,
        "details": {"readFiles": list(digest.read_files), "modifiedFiles": list(digest.modified_files)},
    }
    if dry_run:
        return Compacted(name, True, why, flushed, compaction, len(kept), len(older), before, after)
    with store_lock(path, run.policy.lock_timeout_seconds):
        fresh = read_transcript(path, run.root)  # what OpenClaw appended meanwhile counts
        ids = {str(e.get("id")) for e in fresh.entries if e.get("id") is not None}
        if kept[0].id not in ids:
            raise DataError(f"{path.name} changed while memcli read it", "nothing was written; run again")
        compaction["id"] = _new_id(ids)
        compaction["parentId"] = fresh.leaf_id
        data = path.read_bytes()
        line = json.dumps(compaction, ensure_ascii=False).encode("utf-8") + b"\n"
        if data and not data.endswith(b"\n"):
            line = newline_of(data) + line
        append_bytes(path, line)

    def record(data: dict[str, Any]) -> bool:
        current = data.get(name)
        if not isinstance(current, dict):
            return False
        current["compactionCount"] = int(current.get("compactionCount", 0) or 0) + 1
        current["totalTokens"] = after
        if "totalTokensFresh" in current:
            current["totalTokensFresh"] = True
        return True

    update_store(store, run.root, record, wait=run.policy.lock_timeout_seconds)
    return Compacted(name, True, why, flushed, compaction, len(kept), len(older), before, after)

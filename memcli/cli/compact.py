"""`memcli compact`: a session's older turns replaced by a summary entry, as OpenClaw does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import typer

from memcli.cli.common import SessionKey, SessionStore, output, print_sessions, runtime
from memcli.compact import Compacted
from memcli.compact import compact as compact_sessions
from memcli.core.withheld import left_out


def compact(
    ctx: typer.Context,
    session: SessionKey = None,
    sessions: SessionStore = None,
    force: Annotated[
        bool, typer.Option("--force", help="Compact even sessions within their window.")
    ] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would happen; write nothing.")] = False,
    keep_recent_tokens: Annotated[
        int | None,
        typer.Option(
            "--keep-recent-tokens", min=1, help="Tokens of recent turns kept verbatim (default 20000)."
        ),
    ] = None,
) -> None:
    """Compact sessions whose context exceeds contextTokens - reserve_tokens.

    A flush that is due runs first. The most recent turns (keep_recent_tokens) stay; a tool
    call is never cut from its result. The older turns are summarised with the
    compaction-summary template (merging the previous summary) into a compaction entry
    appended to the transcript under its lock; compactionCount goes up and totalTokens
    becomes the new estimate. The transcript's existing lines are never rewritten.
    The summary quotes turns as they were said; a turn holding a secret is left out.
    Sessions kept in an OpenClaw 2026.8+ database are OpenClaw's to compact: memcli never
    writes that database, and says so (exit 3) when they are all there is.
    """
    run = runtime(ctx)
    out = output(ctx)
    keep = keep_recent_tokens or run.policy.keep_recent_tokens
    done = compact_sessions(run, session, sessions, force, dry_run, keep)
    error = done.error()
    if error is None:
        for warning in done.warnings:
            out.warn(warning)
    for r in done.sessions:
        held = (r.flushed.withheld if r.flushed is not None else ()) + r.withheld
        if held:
            out.note(f"{r.key}: {left_out(held, 'message', 'messages')}")
    print_sessions(out, done, dry_run, _lines)
    if error is not None:
        raise error


def _lines(r: Compacted, dry_run: bool) -> Iterator[str]:
    """A session compacted (or not, and why): what the summary replaced and kept, the
    tokens before and after, and the flush that ran first."""
    if not r.due or r.entry is None:
        yield f"{r.key}: not compacted — {r.why}"
        return
    verb = "would compact" if dry_run else "compacted"
    first = r.entry.get("firstKeptEntryId")
    kept_from = first if first is not None else f"line {r.entry.get('firstKeptEntryIndex')} (no ids)"
    yield (
        f"{r.key}: {verb} — {r.why}; {r.summarised} message(s) summarised, {r.kept} kept from "
        f"{kept_from}; {r.tokens_before:,} -> {r.tokens_after:,} tokens"
    )
    if r.flushed is not None and r.flushed.items:
        verb = "would flush" if dry_run else "flushed"
        yield f"  {verb} first: {len(r.flushed.items)} item(s) to {r.flushed.note or 'today’s note'}"

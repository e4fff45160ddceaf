"""`memcli flush`: durable notes out of sessions that near compaction, into today's note."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import typer

from memcli.cli.common import SessionKey, SessionStore, output, print_sessions, runtime
from memcli.cli.output import one_line
from memcli.core.withheld import left_out
from memcli.flush import Flushed, prompts
from memcli.flush import flush as flush_sessions


def flush(
    ctx: typer.Context,
    session: SessionKey = None,
    sessions: SessionStore = None,
    force: Annotated[bool, typer.Option("--force", help="Flush even sessions that are not due.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would be written; write nothing.")
    ] = False,
    prompt: Annotated[
        bool, typer.Option("--prompt", help="Print the flush prompt and system prompt for a gateway instead.")
    ] = False,
) -> None:
    """Flush durable notes out of sessions before compaction loses them.

    The sessions are those of the workspace's own sessions.json and of the OpenClaw agents
    whose workspace it is (--state-dir, else $OPENCLAW_STATE_DIR, else ~/.openclaw; their
    workspaces from openclaw.json), or the store named with --sessions. OpenClaw 2026.8+
    keeps them in a per-agent SQLite database, which is read, never written: memcli keeps
    its record of what it flushed in .memcli/flushed.json. No store found: exit 3.

    A session is due when its prompt nears the window (totalTokens >= contextTokens -
    reserve_tokens_floor - soft_threshold_tokens), or its transcript passes
    force_flush_transcript_bytes; once per compaction cycle, but a session never flushed is
    due; a stale totalTokens is re-estimated from the transcript; heartbeat and cron
    sessions and a read-only workspace are skipped; a 10-minute cooldown keeps flushes
    apart. Preferences, decisions, environment facts, lessons and open items said since the
    last flush are appended to today's note, leaving out what memory already holds; then
    memoryFlushAt and memoryFlushCompactionCount are recorded under OpenClaw's lock.
    Items are the speakers' own words; a message holding a secret is left out (named by id).
    A session whose transcript is missing, unreadable or an archive is skipped with a
    warning; one whose store entry points out of its sessions folder is skipped and the run
    ends with exit 3 once the others are done.
    """
    run = runtime(ctx)
    out = output(ctx)
    if prompt:
        user, system = prompts(run.today.isoformat())
        if out.json_mode:
            out.json({"prompt": user, "system_prompt": system, "reply_token": "NO_REPLY"})
        else:
            out.line(user)
            out.line()
            out.line(system)
        return
    done = flush_sessions(run, session, sessions, force, dry_run)
    error = done.error()
    if error is None:  # an error ends in one line on stderr: the warnings are in it or in the JSON
        for warning in done.warnings:
            out.warn(warning)
    for r in done.sessions:
        for problem in r.problems:
            if error is None:
                out.warn(problem)
        if r.withheld:
            out.note(f"{r.key}: {left_out(r.withheld, 'message', 'messages')}")
    print_sessions(out, done, dry_run, _lines)
    if error is not None:
        raise error


def _lines(r: Flushed, dry_run: bool) -> Iterator[str]:
    """A session's decision, how its transcript was found, and why it was skipped or what
    was (or would be) appended."""
    state = "due" if r.decision.due else "not due"
    yield f"{r.key}: {state} — {r.decision.why}"
    if r.transcript_note:
        yield f"  transcript: {r.transcript_note}"
    if r.problem:
        yield f"  skipped: {r.problem}"
        return
    verb = "would append" if dry_run else "appended"
    for text in r.items:
        yield f"  {verb}: {one_line(text, 100)}"
    if r.decision.due:
        where = f" to {r.note}" if r.note else ""
        yield f"  {len(r.items)} new item(s){where}; {r.skipped} already in memory"

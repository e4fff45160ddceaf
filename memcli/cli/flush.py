"""`memcli flush`: durable notes out of sessions that near compaction, into today's note."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli.common import SessionKey, SessionStore, output, runtime
from memcli.cli.output import one_line
from memcli.core.withheld import left_out
from memcli.flush import flush as flush_sessions
from memcli.flush import prompts


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

    A session is due when its prompt nears the window (totalTokens >= contextTokens -
    reserve_tokens_floor - soft_threshold_tokens), or its transcript passes
    force_flush_transcript_bytes; once per compaction cycle, but a session never flushed is
    due; a stale totalTokens is re-estimated from the transcript; heartbeat and cron
    sessions and a read-only workspace are skipped; a 10-minute cooldown keeps flushes
    apart. Preferences, decisions, environment facts, lessons and open items said since the
    last flush are appended to today's note, leaving out what memory already holds; then
    memoryFlushAt and memoryFlushCompactionCount are recorded under OpenClaw's lock.
    Items are the speakers' own words; a message holding a secret is left out (named by id).
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
    results = flush_sessions(run, session, sessions, force, dry_run)
    for r in results:
        for problem in r.problems:
            out.warn(problem)
        if r.withheld:
            out.note(f"{r.key}: {left_out(r.withheld, 'message', 'messages')}")
    if out.json_mode:
        out.json({"dry_run": dry_run, "sessions": [r.to_json() for r in results]})
        return
    if not results:
        out.note("no session store in this workspace (name one with --sessions)")
    for r in results:
        state = "due" if r.decision.due else "not due"
        out.line(f"{r.key}: {state} — {r.decision.why}")
        verb = "would append" if dry_run else "appended"
        for text in r.items:
            out.line(f"  {verb}: {one_line(text, 100)}")
        if r.decision.due:
            where = f" to {r.note}" if r.note else ""
            out.line(f"  {len(r.items)} new item(s){where}; {r.skipped} already in memory")

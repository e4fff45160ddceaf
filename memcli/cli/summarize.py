"""`memcli summarize`: a period of daily notes, or one session, summarised from a template."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated

import typer

from memcli.cli.common import output, runtime
from memcli.core.withheld import left_out
from memcli.errors import UsageError
from memcli.summaries import Summary, summarize_notes, summarize_session, write_summary


def _day(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} {value!r} is not a date like 2026-10-26") from None


def summarize(
    ctx: typer.Context,
    since: Annotated[str | None, typer.Option("--since", help="First day (YYYY-MM-DD) of the notes.")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Last day (YYYY-MM-DD) of the notes.")] = None,
    period: Annotated[
        str | None, typer.Option("--period", help="An ISO week, like 2026-W44 (default: last week).")
    ] = None,
    session: Annotated[
        str | None, typer.Option("--session", help="A session key of sessions.json, like agent:main:main.")
    ] = None,
    sessions: Annotated[
        Path | None,
        typer.Option("--sessions", help="The session store (default: <workspace>/sessions.json)."),
    ] = None,
    template: Annotated[
        str | None,
        typer.Option(
            "--template", help="weekly-digest, session-summary, compaction-summary, or a template of yours."
        ),
    ] = None,
    out_path: Annotated[
        str | None,
        typer.Option("--output", "-o", help="Where to write it; - for standard output."),
    ] = None,
    budget: Annotated[
        int | None, typer.Option("--budget", min=50, help="Token budget of the summary.")
    ] = None,
    summarizer_cmd: Annotated[
        str | None,
        typer.Option(
            "--summarizer-cmd", help="A command that reads the prompt on stdin and prints a summary."
        ),
    ] = None,
) -> None:
    """Summarise daily notes (a week by default) or a session's transcript.

    Extractive and offline: entries (or messages) are classified — goal, preference,
    decision, environment, knowledge, open items, done — ranked by decayed score and kept
    within the token budget; preferences and decisions first. In a transcript a tool call
    and its result leave only their conclusion, and an error followed by retries only the
    fix that worked. The template lays it out: <workspace>/templates/, then templates_dir,
    then the shipped ones.

    Written to memory/summaries/<period>.md with front matter (kind, period, sources,
    generated), as a transaction `memcli undo` reverts; `--output -` prints it instead.
    With --summarizer-cmd the rendered prompt goes to that command (a local model, an LLM
    CLI) and its output is the summary; if it fails, the extractive summary is used. Output
    that is not UTF-8 text is refused (exit 3, nothing written).

    Items quote the notes as written (only list markers, indentation, a leading time stamp
    and line breaks change; a long one ends in "…"). An entry or message holding a secret
    is left out; a note names its place, never its text.
    """
    run = runtime(ctx)
    out = output(ctx)
    if session is not None and (since or until or period):
        raise UsageError("--session summarises a transcript; it does not take --since, --until or --period")
    if period is not None and (since or until):
        raise UsageError("give either --period or --since/--until, not both")
    command = summarizer_cmd if summarizer_cmd is not None else run.policy.summarizer_cmd
    tokens = budget or run.policy.summary_tokens
    summary: Summary
    if session is not None:
        summary = summarize_session(run, session, sessions, template, tokens, command)
    else:
        summary = summarize_notes(
            run, _day(since, "--since"), _day(until, "--until"), period, template, tokens, command
        )
    for warning in summary.warnings:
        out.warn(warning)
    if summary.withheld:
        nouns = ("message", "messages") if session is not None else ("entry", "entries")
        out.note(left_out(summary.withheld, *nouns))
    written = None
    tx = None
    if out_path != "-":
        written, tx = write_summary(run, summary, out_path)
    if out.json_mode:
        out.json(
            {
                "kind": summary.digest.kind,
                "period": summary.digest.period,
                "sources": list(summary.digest.sources),
                "template": str(summary.template),
                "summarizer": summary.summarizer,
                "tokens_in": summary.digest.tokens_in,
                "tokens_out": summary.tokens_out,
                "budget": summary.digest.budget,
                "found": summary.digest.found,
                "kept": summary.digest.kept(),
                "withheld": list(summary.withheld),
                "output": written,
                "transaction": tx,
                "text": summary.text,
            }
        )
        return
    if out_path == "-":
        typer.echo(summary.text, nl=False)
        return
    out.note(
        f"wrote {written} ({summary.tokens_out:,} tokens from {summary.digest.tokens_in:,}); "
        f"transaction {tx}; `memcli undo` takes it back"
    )

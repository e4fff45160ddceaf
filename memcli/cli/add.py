"""`memcli add`: append one entry to today's note (append-only, never rewrites)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from memcli.cli.common import output, runtime
from memcli.core.compose import as_bullet, check_entry_text
from memcli.core.decay import age_days, decayed_score
from memcli.core.entries import parse
from memcli.core.scoring import score_text, tier_of
from memcli.workspace.notes import add_entry


def add(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="The entry's text, or - to read it from stdin.")],
    pin: Annotated[bool, typer.Option("--pin", help="Mark it #pin: it never decays.")] = False,
    importance: Annotated[
        int | None,
        typer.Option("--importance", min=1, max=10, help="Explicit importance 1-10 (OpenClaw's marker)."),
    ] = None,
) -> None:
    """Append an entry to today's note, memory/YYYY-MM-DD.md in the configured time zone.

    The note is created with a heading when it does not exist yet.
    """
    body = check_entry_text(sys.stdin.read() if text == "-" else text)
    run = runtime(ctx)
    out = output(ctx)
    entry = as_bullet(body, pinned=pin, importance=importance)
    added = add_entry(run.root, run.today, entry, run.policy.max_file_bytes, run.policy.lock_timeout_seconds)
    if added.stale_lock is not None:
        out.note(f"took over the lock left by {added.stale_lock.describe()}, which no longer runs")
    if out.json_mode:
        written = parse(entry).entries[0]
        scored = score_text(
            written.text,
            run.rules,
            kind=written.kind,
            importance=written.importance,
            today=run.today,
            written=run.today,
        )
        age = age_days(run.today, written.time, run.now_local)
        decayed = decayed_score(scored.score, age, run.policy.half_life_days, written.pinned)
        out.json(
            {  # the keys of every entry (SPEC §13), as `list` will show it: written and seen today
                "id": written.id,
                "file": added.file,
                "line": added.line,
                "text": entry.rstrip("\n"),
                "tier": tier_of(scored, run.policy).value,
                "score": scored.score,
                "decayed": round(decayed, 4),
                "date": run.today.isoformat(),
                "mentions": 1,
                "last_seen": run.today.isoformat(),
                "created": added.created,
            }
        )
        return
    out.line(f"{'created' if added.created else 'appended to'} {added.file}:{added.line}")

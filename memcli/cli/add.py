"""`memcli add`: append one entry to today's note (append-only, never rewrites)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from memcli.cli.common import output, runtime
from memcli.core.compose import as_bullet, daily_note
from memcli.core.entries import parse
from memcli.core.roles import daily_note_rel
from memcli.errors import UsageError
from memcli.workspace.files import read_text, remove_stale_temp_files
from memcli.workspace.layout import scan
from memcli.workspace.lock import WorkspaceLock
from memcli.workspace.notes import append_or_create, check_appendable


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

    The note is created with a heading when it does not exist yet. Example:

        memcli add "我习惯用 pnpm，不要用 npm"
    """
    body = sys.stdin.read() if text == "-" else text
    if not body.strip():
        raise UsageError("nothing to add: the text is empty")
    run = runtime(ctx)
    out = output(ctx)
    rel = daily_note_rel(run.today)
    entry = as_bullet(body, pinned=pin, importance=importance)
    check_appendable(run.root, rel, run.policy.max_file_bytes)
    with WorkspaceLock(run.root, "add", run.policy.lock_timeout_seconds) as lock:
        if lock.stale is not None:
            out.note(f"took over the lock left by {lock.stale.describe()}, which no longer runs")
        remove_stale_temp_files(run.root, scan(run.root).temp_files)
        created = append_or_create(
            run.root, rel, entry, daily_note(run.today, entry), run.policy.max_file_bytes
        )
        _, after = read_text(run.root / rel, run.root, run.policy.max_file_bytes)
    added = parse(after, rel, run.today).entries[-1]
    if out.json_mode:
        out.json(
            {
                "file": rel,
                "line": added.first_line,
                "created": created,
                "id": added.id,
                "text": added.text,
                "date": run.today.isoformat(),
            }
        )
        return
    out.line(f"{'created' if created else 'appended to'} {rel}:{added.first_line}")

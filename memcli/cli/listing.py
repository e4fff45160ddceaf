"""`memcli list`: every entry with its place, section, date and kind."""

from __future__ import annotations

import fnmatch
from datetime import date
from typing import Annotated, Any

import typer

from memcli.cli.common import output, runtime
from memcli.cli.output import one_line
from memcli.core.entries import Entry
from memcli.errors import UsageError
from memcli.workspace.snapshot import take_snapshot


def parse_day(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} {value!r} is not a date", "use YYYY-MM-DD") from None


def entry_json(entry: Entry) -> dict[str, Any]:
    """The keys every entry-shaped object carries (SPEC §13), plus where it sits."""
    return {
        "id": entry.id,
        "file": entry.file,
        "line": entry.first_line,
        "end_line": entry.last_line,
        "text": entry.text,
        "tier": None,
        "score": None,
        "decayed": None,
        "date": entry.date.isoformat() if entry.date else None,
        "time": entry.time,
        "mentions": None,
        "last_seen": None,
        "kind": entry.kind,
        "section": entry.section_path,
        "importance": entry.importance,
        "pinned": entry.pinned,
        "done": entry.done,
    }


def list_entries(
    ctx: typer.Context,
    file: Annotated[
        list[str] | None,
        typer.Option(
            "--file", "-f", metavar="PATH", help="Only these files (glob, e.g. 'memory/2026-10-*')."
        ),
    ] = None,
    since: Annotated[
        str | None, typer.Option("--since", metavar="DATE", help="Entries dated on or after.")
    ] = None,
    until: Annotated[
        str | None, typer.Option("--until", metavar="DATE", help="Entries dated on or before.")
    ] = None,
) -> None:
    """List the entries of MEMORY.md and the notes under memory/. Reads only.

    An entry is a top-level list item (with what is nested in it) or a paragraph;
    its date is its own timestamp, its heading's, or its file's.
    """
    first, last = parse_day(since, "--since"), parse_day(until, "--until")
    run = runtime(ctx)
    out = output(ctx)
    patterns = file or []

    def chosen(rel: str) -> bool:
        return not patterns or any(fnmatch.fnmatch(rel, p) or rel == p.lstrip("./") for p in patterns)

    snap = take_snapshot(run.root, run.policy.max_file_bytes, select=lambda f: f.is_memory and chosen(f.rel))
    entries = [
        e
        for e in snap.entries()
        if (first is None or (e.date is not None and e.date >= first))
        and (last is None or (e.date is not None and e.date <= last))
    ]
    if out.json_mode:
        out.json({"entries": [entry_json(e) for e in entries]})
        return
    rows = [
        [
            f"{e.file}:{e.first_line}",
            e.date.isoformat() if e.date else "",
            e.kind,
            one_line(" > ".join(h.title for h in e.section), 30),
            one_line(e.body, None if not out.terminal else 200),
        ]
        for e in entries
    ]
    out.table(["place", "date", "kind", "section", "text"], rows)
    out.note(f"{len(entries)} entries in {len(snap.files)} files")

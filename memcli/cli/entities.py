"""`memcli entities`: the people, projects, tools and places memory keeps naming."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli.common import output, runtime
from memcli.cli.layout import Column
from memcli.core.entities import KINDS
from memcli.errors import UsageError
from memcli.recall import entities as find_entities


def entities(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many entities.")] = 20,
    kind: Annotated[
        list[str] | None,
        typer.Option("--kind", "-k", help="Only this kind: person, project, tool or place (repeatable)."),
    ] = None,
    least: Annotated[
        int, typer.Option("--min", min=1, help="Named in at least this many entries (2: recurring).")
    ] = 2,
) -> None:
    """The people, projects, tools and places that recur in memory, with counts and dates.

    People are learnt from how notes speak of them ("Priya said", "ask Marco", "Lin 让我",
    小周, 王总, @handle, "Team: A, B"), projects from "project X", "X 项目", a heading under
    a Projects section and GitHub owner/repo; tools and places come from bilingual lists
    (上海 and Shanghai are one place). Each entry naming one counts once; first and last
    seen are the dates of those entries (MEMORY.md is undated). Summaries are not counted:
    they repeat the notes.
    """
    run = runtime(ctx)
    out = output(ctx)
    kinds = tuple(kind) if kind else KINDS
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise UsageError(f"unknown kind {unknown[0]!r}", f"use one of {', '.join(KINDS)}")
    found = [e for e in find_entities(run, kinds) if e.count >= least][:limit]
    if out.json_mode:
        out.json({"entities": [e.to_json() for e in found]})
        return
    if not found:
        out.note(f"no {' / '.join(kinds)} named in {least} or more entries")
        return
    rows = [
        [e.kind, e.name, str(e.count), e.first_seen or "-", e.last_seen or "-", e.where[0]] for e in found
    ]
    out.table(
        [
            Column("kind"),
            Column("name", text=True, min_width=16),
            Column("entries", numeric=True),
            Column("first seen", drop=2),
            Column("last seen"),
            Column("latest", key_min=20, drop=1),
        ],
        rows,
    )

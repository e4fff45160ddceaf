"""`memcli list`: every entry with its place, section, date, kind, tier and decayed score."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from enum import StrEnum
from itertools import islice
from operator import itemgetter
from typing import Annotated, Any

import typer

from memcli.cli.common import output, runtime
from memcli.cli.contract import entry_json
from memcli.cli.layout import BOLD, DIM, GREEN, Column
from memcli.cli.output import compact, one_line
from memcli.core.analysis import Assessed, Selection
from memcli.core.scoring import Tier
from memcli.errors import UsageError
from memcli.services import listed

TIER_STYLE = {"core": f"{BOLD};{GREEN}", "discard": DIM}


class SortBy(StrEnum):
    FILE = "file"
    DECAYED = "decayed"
    SCORE = "score"
    DATE = "date"


def parse_day(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} {value!r} is not a date", "use YYYY-MM-DD") from None


def _sort_key(by: SortBy) -> Any:
    if by is SortBy.DECAYED:
        return lambda a: (-a.decayed, a.entry.file, a.entry.first_line)
    if by is SortBy.SCORE:
        return lambda a: (-a.scored.score, a.entry.file, a.entry.first_line)
    if by is SortBy.DATE:
        return lambda a: (a.entry.date or date.min, a.entry.time or "", a.entry.file, a.entry.first_line)
    return None


def list_entries(
    ctx: typer.Context,
    file: Annotated[
        list[str] | None,
        typer.Option("--file", "-f", metavar="GLOB", help="Only these files, e.g. 'memory/2026-10-*'."),
    ] = None,
    since: Annotated[str | None, typer.Option("--since", metavar="DATE", help="Dated on or after.")] = None,
    until: Annotated[str | None, typer.Option("--until", metavar="DATE", help="Dated on or before.")] = None,
    tier: Annotated[Tier | None, typer.Option("--tier", help="Only this tier.")] = None,
    stale: Annotated[
        bool, typer.Option("--stale", help="Only stale entries (decayed below stale_below).")
    ] = False,
    sort: Annotated[
        SortBy, typer.Option("--sort", help="Order: file, decayed, score or date.")
    ] = SortBy.FILE,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most this many.")] = None,
) -> None:
    """List the entries of MEMORY.md and the notes under memory/, scored and decayed. Reads only.

    An entry is a top-level list item (with what is nested in it) or a paragraph; its date is
    its own timestamp, its heading's, or its file's. Tiers: core (MEMORY.md-worthy), task,
    session, discard (noise).
    """
    selection = Selection(
        tuple(file or ()), parse_day(since, "--since"), parse_day(until, "--until"), tier, stale
    )
    run = runtime(ctx)
    out = output(ctx)
    chosen: Iterable[Assessed] = (a for a in listed(run, selection.matches_file) if selection(a))
    key = _sort_key(sort)
    if out.json_mode:
        if key is None:  # each entry assessed as it goes out
            out.json_stream("entries", islice(chosen, limit), entry_json)
        else:  # each entry's JSON kept for the sort, not the entry (a decade: 10^5 of them)
            ordered = sorted(((key(a), compact(entry_json(a))) for a in chosen), key=itemgetter(0))
            out.json_stream("entries", (j for _, j in ordered[:limit]), str, encoded=True)
        return
    if key is not None:
        chosen = sorted(chosen, key=key)
    rows = list(islice(chosen, limit))
    table = [
        [
            a.entry.id,
            f"{a.entry.file}:{a.entry.first_line}",
            a.entry.date.isoformat() if a.entry.date else "",
            a.tier.value,
            f"{a.scored.score:g}",
            f"{a.decayed:.2f}",
            str(a.mentions),
            one_line(a.entry.body),
        ]
        for a in rows
    ]
    out.table(
        [
            Column("id", style=lambda v: DIM),
            Column("place", key_min=20),
            Column("date", drop=1),
            Column("tier", style=TIER_STYLE.get),
            Column("score", numeric=True),
            Column("decayed", numeric=True),
            Column("days", numeric=True),
            Column("text", text=True, min_width=30, beneath=True),
        ],
        table,
    )
    out.note(f"{len(rows)} entries")

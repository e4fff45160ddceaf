"""`memcli dedupe`: groups of entries that say the same thing, and which one would be kept."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli.common import output, runtime
from memcli.cli.contract import entry_json
from memcli.cli.layout import hanging
from memcli.cli.output import one_line
from memcli.config import with_flags
from memcli.services import assess


def dedupe(
    ctx: typer.Context,
    threshold: Annotated[
        float | None,
        typer.Option("--threshold", min=0.01, max=1.0, help="Similarity from which entries are duplicates."),
    ] = None,
) -> None:
    """Find duplicates: entries that state the same fact — identical after normalisation, or
    the same words or concepts in another order or language (similarity >= threshold) — with
    no number, date, path, port, version, name, subject or polarity that differs, and no
    routine event of another day. Reads only; `gc` merges.

    The entry kept is the one in MEMORY.md if any, else the most complete wording, else the
    earliest. Mentions count the distinct days a fact appears on.
    """
    run = runtime(ctx)
    out = output(ctx)
    policy = run.policy if threshold is None else with_flags(run.policy, {"dedupe_threshold": threshold})
    _, analysis = assess(run, policy, only_duplicates=True)
    assessed = analysis.assessed
    if out.json_mode:
        out.json(
            {
                "threshold": policy.dedupe_threshold,
                "groups": [
                    {
                        "keep": entry_json(assessed[g.keep]),
                        "duplicates": [
                            {**entry_json(assessed[i]), "similarity": round(s, 4)} for i, s in g.duplicates
                        ],
                        "mentions": g.mentions,
                        "first_seen": g.first_seen.isoformat() if g.first_seen else None,
                        "last_seen": g.last_seen.isoformat() if g.last_seen else None,
                    }
                    for g in analysis.groups
                ],
            }
        )
        return
    width = out.width

    def item(head: str, text: str) -> list[str]:  # wrapped on a terminal, never cut
        first, *rest = hanging(f"{head}  {one_line(text)}", width, 9)
        return ["  " + first, *(" " * 9 + line for line in rest)]

    for n, g in enumerate(analysis.groups, 1):
        keep = assessed[g.keep].entry
        out.line(f"group {n}: {g.mentions} day(s), {g.first_seen or '-'} .. {g.last_seen or '-'}")
        out.lines(item(f"keep   {keep.file}:{keep.first_line}", keep.body))
        for i, s in g.duplicates:
            dup = assessed[i].entry
            out.lines(item(f"{s:5.0%}  {dup.file}:{dup.first_line}", dup.body))
    removable = sum(len(g.duplicates) for g in analysis.groups)
    out.note(f"{len(analysis.groups)} groups, {removable} duplicates (read-only: `memcli gc` merges them)")

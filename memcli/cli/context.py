"""`memcli context`: what an agent should load at session start, within a token budget."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli.common import output, runtime
from memcli.recall import build_context


def context(
    ctx: typer.Context,
    budget: Annotated[int, typer.Option("--budget", "-b", min=1, help="Tokens the text may use.")] = 2000,
    query: Annotated[
        str | None, typer.Option("--query", metavar="TEXT", help="Recall what is about this.")
    ] = None,
) -> None:
    """The memory to load at session start or after a compaction, never over --budget tokens.

    Core memory first (MEMORY.md, its preference sections first of all), then today's and
    yesterday's notes, then the best-ranked recalled entries (about --query, or the last 30
    days' most important) in time order; memcli's own markers stripped. It says how many
    entries it left out.
    """
    run = runtime(ctx)
    out = output(ctx)
    result = build_context(run, budget, query)
    if out.json_mode:
        out.json(result.to_json())
        return
    typer.echo(result.text, nl=False)
    out.note(f"{result.tokens:,} of {budget:,} tokens; {result.left_out} entr(ies) left out")

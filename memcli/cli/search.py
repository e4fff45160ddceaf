"""`memcli search`: ranked hits from the workspace's full-text index."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli.common import output, runtime
from memcli.cli.layout import CYAN, hanging, paint
from memcli.cli.output import one_line
from memcli.recall import search as search_index

HIT_INDENT = 4  # wrapped lines of a hit


def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="Words to find, in any language (周会, 时区, port 8080).")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many hits.")] = 6,
) -> None:
    """Search memory: MEMORY.md, daily notes, summaries and the archive.

    Every word of the query must be in a hit; Chinese words of one or two characters are
    found too. Hits are ranked by relevance × decay (MEMORY.md and pinned entries do not
    decay) × importance, and diversified so one fact said ten times takes one slot. The
    index lives in .memcli/ and follows the files (only changed files are re-read); it is
    safe to delete.
    """
    run = runtime(ctx)
    out = output(ctx)
    found, refreshed = search_index(run, query, limit)
    if out.json_mode:
        out.json({"query": query, "hits": [f.to_json() for f in found], "reindexed": list(refreshed.indexed)})
        return
    if not found:
        out.note(f"nothing found for {query!r}")
        return
    lines = []
    for f in found:
        where = f"{f.hit.path}:{f.hit.line}" + (f"-{f.hit.end_line}" if f.hit.end_line > f.hit.line else "")
        text = f"{where}  ({f.score:.2f})  {one_line(f.hit.text)}"
        for n, piece in enumerate(hanging(text, out.width, HIT_INDENT)):
            if n == 0 and piece.startswith(where):
                piece = paint(where, CYAN, out.color) + piece[len(where) :]
            lines.append(piece if n == 0 else " " * HIT_INDENT + piece)
    out.lines(lines)

"""`memcli init`: a new workspace, or the missing pieces of an existing one."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memcli.cli.common import options, output
from memcli.config import CONFIG_NAME, default_toml
from memcli.workspace.setup import initialise

MEMORY_TEMPLATE = """# MEMORY.md

Long-term memory: durable facts, preferences and decisions. memcli promotes
entries here and keeps the file under its budget.

## Preferences

## Environment

## Decisions

## Knowledge
"""


def init(
    ctx: typer.Context,
    path: Annotated[
        Path | None,
        typer.Argument(help="Folder to set up (default: -w, else the current folder)."),
    ] = None,
) -> None:
    """Create MEMORY.md, memory/ and memcli.toml (every setting at its default, commented).

    Never overwrites a file that exists, so it is safe on an existing OpenClaw workspace.
    """
    out = output(ctx)
    target = path or Path(options(ctx).workspace or ".")
    root, created, kept = initialise(target, {"MEMORY.md": MEMORY_TEMPLATE, CONFIG_NAME: default_toml()})
    if out.json_mode:
        out.json({"workspace": str(root), "created": created, "kept": kept})
        return
    for name in created:
        out.line(f"created  {name}")
    for name in kept:
        out.line(f"kept     {name} (exists)")
    out.note(f"workspace ready: {root}")
